// Parts of a divided search, written and read back (part.hpp; docs/programs.md, "More than one
// machine").
#include "sfg/checker/part.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace sfg::checker {

std::string options_text(const CheckOptions& o, const std::string& program) {
    return fmt::format("mode={} seed={} max-executions={} max-steps={} max-states={} "
                       "preemption-bound={} program={} task-budget={} split-above={}",
                       to_string(o.mode), o.seed, o.max_executions, o.max_steps, o.max_states,
                       o.preemption_bound ? std::to_string(*o.preemption_bound) : "none",
                       program.empty() ? "*" : program, o.task_budget, o.split_above) +
           (o.mode == Mode::pct ? fmt::format(" pct-depth={}", o.pct_depth) : "");
}

bool classes_disjoint(const Model& m, Mode mode) {
    if (mode != Mode::dpor)
        return false;
    // dpor's relation makes an await read every variable of its condition; the classes are
    // counted by the reads made. They agree when every read is always made: no short-circuit
    // and no division that may stop the evaluation early. (A local await reads nothing.)
    for (const std::vector<Instr>& code : m.awaits)
        for (const Instr& i : code)
            if (reads_shared(code) &&
                (i.code == Code::and_ || i.code == Code::or_ ||
                 (i.code == Code::binary && (static_cast<BinOp>(i.op) == BinOp::div ||
                                             static_cast<BinOp>(i.op) == BinOp::mod))))
                return false;
    return true;
}

namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

std::string class_id(const ClassId& c) {
    return fmt::format("{:016x}{:016x}", c.a, c.b);
}

const char* mode_name(Mode m) {
    return to_string(m);
}

ojson finding_json(const CheckFinding& f) {
    ojson steps = ojson::array();
    for (const Step& s : f.steps) {
        ojson actions = ojson::array();
        for (const Action& a : s.actions) {
            ojson action = ojson::array({std::string(spelling(a.op)), a.target, a.line, a.emitted});
            if (a.has_value) // a volatile op's value, fifth
                action.push_back(a.value);
            else if (a.generation) // a barrier op's generation, fifth
                action.push_back(a.generation);
            actions.push_back(std::move(action));
        }
        steps.push_back(ojson::array({s.thread, std::move(actions)}));
    }
    return ojson{{"kind", to_string(f.kind)},
                 {"var", f.var},
                 {"message", f.message},
                 {"events", f.events},
                 {"event", f.access.event},
                 {"thread", f.has_thread() ? ojson(f.access.thread) : ojson()},
                 {"line", f.access.line},
                 {"block", f.block ? ojson(*f.block) : ojson()},
                 {"executions", f.executions},
                 {"order", ojson{{"task", f.order.task}, {"index", f.order.index}}},
                 {"steps", std::move(steps)}};
}

} // namespace

ojson write_part(const std::string& file, const std::string& source, const std::string& options,
                 std::uint32_t index, std::uint32_t count,
                 const std::vector<ProgramPart>& programs) {
    ojson list = ojson::array();
    for (const ProgramPart& p : programs) {
        const CheckPartial& c = p.partial;
        const ExploreStats& st = c.stats;
        ojson entry{{"program", p.model->name},
                    {"mode", mode_name(p.mode)},
                    {"fell_back", p.fell_back},
                    {"executions", st.executions},
                    {"states", c.states},
                    {"sleep_blocked", st.sleep_blocked},
                    {"max_depth", st.max_depth},
                    {"complete", st.complete},
                    {"hit_max_executions", st.hit_max_executions},
                    {"hit_max_steps", st.hit_max_steps},
                    {"hit_max_states", st.hit_max_states},
                    {"pruned", st.pruned},
                    {"classes", c.classes.size() + c.counted_classes}};
        if (!classes_disjoint(*p.model, p.fell_back ? Mode::naive : p.mode)) {
            std::vector<std::string> ids;
            for (const ClassId& id : c.classes)
                ids.push_back(class_id(id));
            std::sort(ids.begin(), ids.end());
            entry["class_ids"] = ids;
        }
        ojson finals = ojson::array();
        for (const std::vector<std::int64_t>& f : c.finals)
            finals.push_back(f);
        entry["final_states"] = std::move(finals);
        ojson findings = ojson::array();
        for (const auto& [key, f] : c.findings)
            findings.push_back(finding_json(f));
        entry["findings"] = std::move(findings);
        list.push_back(std::move(entry));
    }
    return ojson{{"sfgc_check_part", part_format},
                 {"part", index},
                 {"of", count},
                 {"file", file},
                 {"options", options},
                 {"source", source},
                 {"programs", std::move(list)}};
}

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
    throw PartError(fmt::format("'{}' is not a part written by sfgc check --shard K/N --format "
                                "json: {}",
                                path, what));
}

const json& field(const std::string& path, const json& object, const char* key,
                  json::value_t type) {
    auto it = object.find(key);
    if (it == object.end())
        bad(path, fmt::format("no \"{}\"", key));
    const bool ok = it->type() == type ||
                    (type == json::value_t::number_unsigned &&
                     it->type() == json::value_t::number_integer && it->get<std::int64_t>() >= 0);
    if (!ok)
        bad(path, fmt::format("\"{}\" is not {}", key,
                              type == json::value_t::string            ? "a string"
                              : type == json::value_t::array           ? "an array"
                              : type == json::value_t::boolean         ? "true or false"
                              : type == json::value_t::number_unsigned ? "a count"
                                                                       : "an object"));
    return *it;
}

std::uint64_t count(const std::string& path, const json& object, const char* key) {
    return field(path, object, key, json::value_t::number_unsigned).get<std::uint64_t>();
}

bool flag(const std::string& path, const json& object, const char* key) {
    return field(path, object, key, json::value_t::boolean).get<bool>();
}

} // namespace

Part read_part(const std::string& path, const std::string& text) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        bad(path, std::string("not JSON (") + e.what() + ")");
    }
    if (!j.is_object())
        bad(path, "not a JSON object");
    if (!j.contains("sfgc_check_part"))
        bad(path, "no \"sfgc_check_part\" (a report of a whole search is not a part)");
    const json& version = j["sfgc_check_part"];
    if (!version.is_number_integer() || version.get<std::int64_t>() != part_format)
        throw PartError(fmt::format("'{}' is a part in another format (version {}; this sfgc "
                                    "reads version {})",
                                    path, version.dump(), part_format));
    Part p;
    p.path = path;
    p.file = field(path, j, "file", json::value_t::string).get<std::string>();
    p.source = field(path, j, "source", json::value_t::string).get<std::string>();
    p.options = field(path, j, "options", json::value_t::string).get<std::string>();
    const std::uint64_t k = count(path, j, "part"), n = count(path, j, "of");
    if (n == 0 || k == 0 || k > n || n > 1000000)
        bad(path, fmt::format("it says it is part {} of {}", k, n));
    p.index = static_cast<std::uint32_t>(k);
    p.count = static_cast<std::uint32_t>(n);
    p.programs = field(path, j, "programs", json::value_t::array);
    for (const json& prog : p.programs) {
        if (!prog.is_object())
            bad(path, "a program entry is not an object");
        field(path, prog, "program", json::value_t::string);
    }
    return p;
}

namespace {

// The first item of two option lines that differs, as "A in 'x', B in 'y'".
std::string first_difference(const Part& a, const Part& b) {
    std::istringstream x(a.options), y(b.options);
    for (std::string s, t; x >> s && y >> t;)
        if (s != t)
            return fmt::format("{} in '{}', {} in '{}'", s, a.path, t, b.path);
    return fmt::format("'{}' in '{}', '{}' in '{}'", a.options, a.path, b.options, b.path);
}

std::string programs_of(const Part& p) {
    std::string out;
    for (const json& prog : p.programs)
        out += (out.empty() ? "" : ", ") + prog["program"].get<std::string>();
    return out;
}

} // namespace

std::string check_parts(const std::vector<Part>& parts) {
    if (parts.empty())
        return "no part to merge";
    const Part& first = parts.front();
    for (const Part& p : parts) {
        if (p.count != first.count)
            return fmt::format("'{}' is part {} of {}, but '{}' is part {} of {}: parts of "
                               "searches divided differently",
                               p.path, p.index, p.count, first.path, first.index, first.count);
        if (p.file != first.file)
            return fmt::format("'{}' and '{}' are parts of different searches: of {} and of {}",
                               first.path, p.path, first.file, p.file);
        if (p.source != first.source)
            return fmt::format("'{}' and '{}' are parts of different searches: {} differs between "
                               "them",
                               first.path, p.path, first.file);
        if (p.options != first.options)
            return fmt::format("'{}' and '{}' are parts of different searches: different options "
                               "({})",
                               first.path, p.path, first_difference(first, p));
        if (programs_of(p) != programs_of(first))
            return fmt::format("'{}' and '{}' are parts of different searches: programs {} and {}",
                               first.path, p.path, programs_of(first), programs_of(p));
    }
    std::map<std::uint32_t, const Part*> seen;
    for (const Part& p : parts) {
        auto [it, fresh] = seen.emplace(p.index, &p);
        if (!fresh)
            return fmt::format("part {} of {} is given twice: '{}' and '{}'", p.index, p.count,
                               it->second->path, p.path);
    }
    std::vector<std::uint32_t> missing;
    for (std::uint32_t k = 1; k <= first.count && missing.size() < 10; ++k)
        if (!seen.count(k))
            missing.push_back(k);
    if (!missing.empty()) {
        std::string list;
        for (std::uint32_t k : missing)
            list += (list.empty() ? "" : ", ") + std::to_string(k);
        return fmt::format("{} {} of {} {} missing", missing.size() == 1 ? "part" : "parts", list,
                           first.count, missing.size() == 1 ? "is" : "are");
    }
    return {};
}

namespace {

std::optional<FindingKind> kind_named(const std::string& s) {
    for (FindingKind k : {FindingKind::race, FindingKind::violation, FindingKind::assert_,
                          FindingKind::divzero, FindingKind::deadlock, FindingKind::ill_formed,
                          FindingKind::bound, FindingKind::conflict, FindingKind::cycle})
        if (s == to_string(k))
            return k;
    return std::nullopt;
}

// Does `target` name an object of op's kind in m?
bool fits(const Model& m, Op op, std::uint64_t target) {
    const OpInfo& info = op_info(op);
    if (info.operand == Operand::none)
        return target == no_object;
    if (info.operand == Operand::thread_set)
        return target < m.thread_sets.size();
    if (info.operand == Operand::queue_item) // the program's (queue, variable) pairs
        return target < m.syms.queue_items.size();
    if (info.operand != Operand::name)
        return false;
    return target < m.syms.names(info.space).size();
}

// The counts and flags of a program's entry.
void read_stats(const std::string& path, const json& e, CheckPartial& c) {
    c.stats.executions = count(path, e, "executions");
    c.states = count(path, e, "states");
    c.stats.sleep_blocked = count(path, e, "sleep_blocked");
    c.stats.max_depth = count(path, e, "max_depth");
    c.stats.complete = flag(path, e, "complete");
    c.stats.hit_max_executions = flag(path, e, "hit_max_executions");
    c.stats.hit_max_steps = flag(path, e, "hit_max_steps");
    c.stats.hit_max_states = flag(path, e, "hit_max_states");
    c.stats.pruned = flag(path, e, "pruned");
}

// The classes: their number when parts' classes are disjoint, else their ids.
void read_classes(const std::string& path, const json& e, bool disjoint, CheckPartial& c) {
    const std::uint64_t classes = count(path, e, "classes");
    if (disjoint) {
        c.counted_classes = classes;
        return;
    }
    for (const json& id : field(path, e, "class_ids", json::value_t::array)) {
        const std::string s = id.is_string() ? id.get<std::string>() : std::string();
        if (s.size() != 32 || s.find_first_not_of("0123456789abcdef") != std::string::npos)
            bad(path, "a class id is not 32 hexadecimal digits");
        c.classes.insert(ClassId{std::stoull(s.substr(0, 16), nullptr, 16),
                                 std::stoull(s.substr(16), nullptr, 16)});
    }
    if (c.classes.size() != classes)
        bad(path, "\"classes\" does not count \"class_ids\"");
}

void read_finals(const std::string& path, const json& e, const Model& m, CheckPartial& c) {
    for (const json& f : field(path, e, "final_states", json::value_t::array)) {
        if (!f.is_array() || f.size() != m.shared.size())
            bad(path, "a final state is not the values of the program's variables");
        std::vector<std::int64_t> values;
        for (const json& v : f) {
            if (!v.is_number_integer())
                bad(path, "a final state holds something other than integers");
            values.push_back(v.get<std::int64_t>());
        }
        c.finals.insert(std::move(values));
    }
}

// A step of a counterexample: [thread, [[op, target, line, emitted(, value or generation)]...]].
Step read_step(const std::string& path, const json& js, const Model& m) {
    if (!js.is_array() || js.size() != 2 || !js[0].is_number_unsigned() ||
        js[0].get<std::uint64_t>() >= m.threads.size() || !js[1].is_array())
        bad(path, "a step of a counterexample is not [thread, actions]");
    Step s;
    s.thread = js[0].get<ThreadId>();
    for (const json& ja : js[1]) {
        if (!ja.is_array() || (ja.size() != 4 && ja.size() != 5) || !ja[0].is_string() ||
            !ja[1].is_number_unsigned() || !ja[2].is_number_unsigned() || !ja[3].is_boolean() ||
            (ja.size() == 5 && !ja[4].is_number_integer()))
            bad(path, "an action is not [op, target, line, emitted] or [..., value or generation]");
        std::optional<Op> op = op_from_spelling(ja[0].get<std::string>());
        for (const OpInfo& i : op_table) // a condition variable's steps: in parts, not traces
            if (!op && i.role == Role::schedule && i.spelling == ja[0].get<std::string>())
                op = i.op;
        const std::uint64_t target = ja[1].get<std::uint64_t>();
        if (!op || !fits(m, *op, target))
            bad(path, "an action names an operation or object the program does not have");
        const bool barrier = op_info(*op).space == Namespace::barrier;
        if (ja.size() == 5 && !is_volatile_access(*op) &&
            !(barrier && ja[4].is_number_unsigned() &&
              ja[4].get<std::uint64_t>() <= std::numeric_limits<std::uint32_t>::max()))
            bad(path, "a fifth element other than a vr's or vw's value or a barrier op's "
                      "generation");
        Action a{s.thread, *op, static_cast<ObjId>(target), ja[2].get<std::uint32_t>(),
                 ja[3].get<bool>()};
        if (ja.size() == 5 && barrier) {
            a.generation = ja[4].get<std::uint32_t>();
        } else if (ja.size() == 5) {
            a.has_value = true;
            a.value = ja[4].get<std::int64_t>();
        }
        s.actions.push_back(a);
    }
    return s;
}

CheckFinding read_finding(const std::string& path, const json& jf, const Model& m) {
    if (!jf.is_object())
        bad(path, "a finding is not an object");
    CheckFinding f;
    const std::optional<FindingKind> kind =
        kind_named(field(path, jf, "kind", json::value_t::string).get<std::string>());
    if (!kind)
        bad(path, "a finding of an unknown kind");
    f.kind = *kind;
    f.var = field(path, jf, "var", json::value_t::string).get<std::string>();
    f.message = field(path, jf, "message", json::value_t::string).get<std::string>();
    f.events = count(path, jf, "events");
    f.access.event = count(path, jf, "event");
    if (jf.contains("thread") && !jf["thread"].is_null()) {
        const std::uint64_t t = count(path, jf, "thread");
        if (t >= m.threads.size())
            bad(path, "a finding names a thread the program does not have");
        f.access.thread = static_cast<ThreadId>(t);
    }
    const std::uint64_t line = count(path, jf, "line");
    if (line > 0xffffffffu)
        bad(path, "a finding's line is not a line");
    f.access.line = static_cast<std::uint32_t>(line);
    if (jf.contains("block") && !jf["block"].is_null())
        f.block = count(path, jf, "block");
    f.executions = count(path, jf, "executions");
    const json& order = field(path, jf, "order", json::value_t::object);
    for (const json& k : field(path, order, "task", json::value_t::array)) {
        if (!k.is_number_unsigned() || k.get<std::uint64_t>() > 0xffffffffu)
            bad(path, "an execution's place is not a list of counts");
        f.order.task.push_back(k.get<std::uint32_t>());
    }
    f.order.index = count(path, order, "index");
    for (const json& js : field(path, jf, "steps", json::value_t::array))
        f.steps.push_back(read_step(path, js, m));
    return f;
}

} // namespace

ProgramPart read_program(const Part& part, std::size_t i, const Model& m) {
    const std::string& path = part.path;
    if (i >= part.programs.size())
        bad(path, "a program is missing");
    const json& e = part.programs[i];
    if (field(path, e, "program", json::value_t::string).get<std::string>() != m.name)
        bad(path, fmt::format("program {} is not {}", i + 1, m.name));
    ProgramPart p;
    p.model = &m;
    const std::string mode = field(path, e, "mode", json::value_t::string).get<std::string>();
    if (mode == "dpor")
        p.mode = Mode::dpor;
    else if (mode == "naive")
        p.mode = Mode::naive;
    else if (mode == "random")
        p.mode = Mode::random;
    else if (mode == "pct")
        p.mode = Mode::pct;
    else
        bad(path, "unknown mode " + mode);
    p.fell_back = flag(path, e, "fell_back");
    CheckPartial& c = p.partial;
    read_stats(path, e, c);
    read_classes(path, e, classes_disjoint(m, p.fell_back ? Mode::naive : p.mode), c);
    read_finals(path, e, m, c);
    for (const json& jf : field(path, e, "findings", json::value_t::array)) {
        CheckFinding f = read_finding(path, jf, m);
        const FindingKey key = key_of(f);
        if (c.findings.count(key))
            bad(path, "a finding is listed twice");
        c.findings.emplace(key, std::move(f));
    }
    return p;
}

} // namespace sfg::checker
