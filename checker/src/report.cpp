// Formatting check results (report.hpp).
#include "sfg/checker/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace sfg::checker {

std::string op_text(const Model& m, const Action& a) {
    // The model's names are interned in m.syms with the model's ids (model.hpp).
    const OpInfo& op = op_info(a.op);
    if (op.operand == Operand::name) // vw(v=1): the value a volatile op carries (docs/traces.md)
        return fmt::format("{}({}{})", op.spelling, m.syms.names(op.space).name(a.target),
                           a.has_value ? fmt::format("={}", a.value) : "");
    if (op.operand == Operand::queue_item) { // enq(q,o), as traces spell it (docs/traces.md)
        const QueueItems& items = m.syms.queue_items;
        return fmt::format("{}({},{})", op.spelling, m.syms.queues.name(items.queue(a.target)),
                           m.syms.vars.name(items.var(a.target)));
    }
    if (op.operand == Operand::thread_set) {
        std::string s;
        for (ThreadId u : m.thread_sets[a.target])
            s += (s.empty() ? "" : ",") + m.threads[u].name;
        return fmt::format("{}({})", op.spelling, s);
    }
    return std::string(op.spelling);
}

namespace {

std::string cell(const Model& m, const Step& s) {
    std::string c;
    for (const Action& a : s.actions)
        c += fmt::format("{}{}{}", c.empty() ? "" : " ", op_text(m, a),
                         a.emitted || op_info(a.op).role == Role::schedule ? "" : "!");
    if (!s.actions.empty())
        c += fmt::format(" :{}", s.actions.front().line);
    return c;
}

} // namespace

void print_table(std::ostream& out, const Model& m, const CheckFinding& f) {
    // Columns: the threads that take a step or fail, in order of their first step.
    std::vector<ThreadId> cols;
    auto add = [&](ThreadId t) {
        if (std::find(cols.begin(), cols.end(), t) == cols.end())
            cols.push_back(t);
    };
    for (const Step& s : f.steps)
        add(s.thread);
    if (f.has_thread())
        add(f.access.thread);
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"STEP"});
    for (ThreadId t : cols)
        rows[0].push_back(m.threads[t].name);
    for (std::size_t i = 0; i < f.steps.size(); ++i) {
        std::vector<std::string> row{std::to_string(i + 1)};
        for (ThreadId t : cols)
            row.push_back(f.steps[i].thread == t ? cell(m, f.steps[i]) : "");
        rows.push_back(std::move(row));
    }
    if (f.kind != FindingKind::race && f.kind != FindingKind::violation && f.has_thread() &&
        f.kind != FindingKind::bound && f.kind != FindingKind::conflict &&
        f.kind != FindingKind::cycle) {
        std::vector<std::string> row{""};
        const char* what = f.kind == FindingKind::assert_    ? "assert fails"
                           : f.kind == FindingKind::divzero  ? "division by zero"
                           : f.kind == FindingKind::deadlock ? "waits forever"
                                                             : "ill-formed";
        for (ThreadId t : cols)
            row.push_back(
                t == f.access.thread ? fmt::format("// {} :{}", what, f.line().value_or(0)) : "");
        rows.push_back(std::move(row));
    }
    std::vector<std::size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c)
            width[c] = std::max(width[c], row[c].size());
    for (const auto& row : rows) {
        std::string line = "    ";
        for (std::size_t c = 0; c < row.size(); ++c)
            line += fmt::format("{:<{}}", row[c], c + 1 < row.size() ? width[c] + 2 : 0);
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << '\n';
    }
}

void print_text(std::ostream& out, const Model& m, const CheckResult& r, const std::string& part) {
    out << fmt::format(
        "program {}: {} executions, {} classes, {} final states, {} ({}{})\n", r.program,
        r.stats.executions, r.classes, r.final_states, r.stats.complete ? "complete" : "incomplete",
        r.fell_back ? "naive: dpor does not take --preemption-bound" : to_string(r.mode),
        part.empty() ? "" : ", " + part);
    for (const CheckFinding& f : r.findings) {
        out << '\n';
        std::string head = to_string(f.kind);
        if (!f.var.empty())
            head += " on " + f.var;
        if (const std::optional<std::uint32_t> line = f.line())
            head += fmt::format(" at line {}", *line);
        out << fmt::format("{}: {}\n", head, f.message);
        if (f.steps.empty() && !f.has_thread())
            continue;
        out << fmt::format("  shortest counterexample ({} events, seen in {} executions):\n",
                           f.events, f.executions);
        print_table(out, m, f);
    }
    if (r.findings.empty())
        out << "no findings\n";
    else
        out << fmt::format("\n{} finding{}\n", r.findings.size(),
                           r.findings.size() == 1 ? "" : "s");
}

nlohmann::ordered_json to_json(const Model& m, const CheckResult& r) {
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    for (const CheckFinding& f : r.findings) {
        nlohmann::ordered_json trace = nlohmann::ordered_json::array();
        for (const Step& s : f.steps)
            for (const Action& a : s.actions)
                if (a.emitted)
                    trace.push_back({{"thread", m.threads[a.thread].name},
                                     {"op", op_text(m, a)},
                                     {"line", a.line}});
        findings.push_back(
            {{"kind", to_string(f.kind)},
             {"var", f.var.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(f.var)},
             {"line", f.line() ? nlohmann::ordered_json(*f.line()) : nlohmann::ordered_json()},
             {"message", f.message},
             {"trace", std::move(trace)}});
    }
    return {{"program", r.program},         {"executions", r.stats.executions},
            {"classes", r.classes},         {"final_states", r.final_states},
            {"complete", r.stats.complete}, {"findings", std::move(findings)}};
}

std::string trace_text(const Model& m, const CheckFinding& f) {
    std::string out = fmt::format("# sfgc check: {} {}{}\n# {}\n", m.name, to_string(f.kind),
                                  f.var.empty() ? "" : " on " + f.var, f.message);
    for (const Step& s : f.steps)
        for (const Action& a : s.actions)
            if (a.emitted)
                out += fmt::format("{}|{}|{}:{}\n", m.threads[a.thread].name, op_text(m, a), m.name,
                                   a.line);
    return out;
}

std::string trace_file_name(const Model& m, const CheckFinding& f) {
    const std::optional<std::uint32_t> line = f.line();
    std::string what = !f.var.empty() ? f.var : line ? std::to_string(*line) : "search";
    return fmt::format("{}-{}-{}.std", m.name, to_string(f.kind), what);
}

} // namespace sfg::checker
