// Promela emitter (docs/programs.md, part 6). Each thread is lowered to a control-flow graph
// whose nodes are visible events (one scheduling point each), local statements, branches and
// findings; every event becomes `S<n>: atomic { event; local code up to the next event }`, so the
// local computation runs right after the thread's previous visible event, as docs/programs.md
// fixes. A `goto` from one atomic to the start of another is a scheduling point in Spin; a `goto`
// inside one atomic keeps it atomic. See docs/promela.md.
#include "sfg/checker/promela.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace sfg {
namespace {

using prog::Expr;
using prog::Ref;
using prog::Stmt;

struct Node {
    enum class Kind { local, event, branch, fail, end };
    Kind kind = Kind::local;
    std::string code;    // local/event: Promela statements (an event's guard first); fail: name
    std::string comment; // event: what it is ("line 12: w(balance)")
    int next = -1;       // local, event
    int then_ = -1;      // branch
    int else_ = -1;      // branch
};

struct Globals {
    const CompiledSpec& spec;            // what the program's Refs index
    std::vector<bool> forked;            // by thread id: named in some fork
    std::vector<std::string> fail_names; // hidden bytes asserted at findings, in order
    std::set<std::string> fail_seen;
    std::vector<std::string> warnings;
    std::set<std::string> warned;

    void fail_name(const std::string& n) {
        if (fail_seen.insert(n).second)
            fail_names.push_back(n);
    }
    void warn(const std::string& w) {
        if (warned.insert(w).second)
            warnings.push_back(w);
    }
};

std::string shared_name(const std::string& n) {
    return "v_" + n;
}
std::string local_name(const std::string& n) {
    return "l_" + n;
}
std::string lock_name(const std::string& n) {
    return "lk_" + n;
}
std::string cond_name(const std::string& n) {
    return "cv_" + n;
}
std::string barrier_name(const std::string& n) {
    return "bar_" + n;
}
std::string queue_name(const std::string& n) {
    return "q_" + n;
}

constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t int32_min = std::numeric_limits<std::int32_t>::min();

// A literal as Promela text; constants beyond 32 bits are truncated (with a warning), since
// Promela's int is 32-bit while ours are 64-bit (docs/programs.md).
std::string literal(std::int64_t v, int line, Globals& g) {
    if (v > int32_max || v < int32_min) {
        auto t = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
        g.warn(fmt::format("line {}: constant {} exceeds Promela's 32-bit int; emitted as {}", line,
                           v, t));
        v = t;
    }
    if (v == int32_min)
        return "(-2147483647 - 1)";
    return v < 0 ? fmt::format("({})", v) : std::to_string(v);
}

bool is_nonzero_literal(const Expr& e) {
    return e.kind == Expr::Kind::integer && e.value != 0;
}

class ThreadLowering {
public:
    ThreadLowering(Globals& g, std::string name, int me) : g_(g), name_(std::move(name)), me_(me) {}

    std::vector<Node> nodes;
    std::vector<std::string> decls; // local declarations (locals, temporaries, repeat counters)
    int entry = -1;

    // `thread` is null for a thread without a body in the program.
    void lower(const prog::Thread* thread) {
        static const std::vector<Stmt> empty;
        std::vector<std::string> locals;
        if (thread)
            locals = thread->locals;
        std::sort(locals.begin(), locals.end()); // declared in name order
        for (const std::string& l : locals)
            decls.push_back("int " + local_name(l) + " = 0");
        const int start = static_cast<int>(nodes.size());
        stmts(thread ? thread->body : empty);
        Node end;
        end.kind = Node::Kind::end;
        add(std::move(end));
        entry = start;
    }

private:
    Globals& g_;
    std::string name_;
    int me_;
    std::vector<std::pair<int, int>> pending_; // (node, 0 next / 1 then / 2 else) to patch
    int temps_ = 0;
    int repeats_ = 0;

    static bool is_local(const Ref& r) { return r.kind == Ref::Kind::local; }

    void patch(const std::vector<std::pair<int, int>>& exits, int to) {
        for (auto [n, which] : exits) {
            Node& x = nodes[static_cast<std::size_t>(n)];
            (which == 0 ? x.next : which == 1 ? x.then_ : x.else_) = to;
        }
    }

    // Appends `n`, links the pending exits to it and makes its own exit pending.
    int add(Node n) {
        const int id = static_cast<int>(nodes.size());
        const Node::Kind k = n.kind;
        nodes.push_back(std::move(n));
        patch(pending_, id);
        pending_.clear();
        if (k == Node::Kind::local || k == Node::Kind::event)
            pending_.push_back({id, 0});
        return id;
    }
    void local(std::string code) {
        Node n;
        n.kind = Node::Kind::local;
        n.code = std::move(code);
        add(std::move(n));
    }
    void event(std::string code, std::string comment) {
        Node n;
        n.kind = Node::Kind::event;
        n.code = std::move(code);
        n.comment = std::move(comment);
        add(std::move(n));
    }
    // A finding when `cond` holds (noticed in the local computation, so right after the
    // previous visible event); otherwise execution goes on.
    void check(const std::string& cond, const std::string& fail) {
        Node b;
        b.kind = Node::Kind::branch;
        b.code = cond;
        const int id = add(std::move(b));
        g_.fail_name(fail);
        Node f;
        f.kind = Node::Kind::fail;
        f.code = fail;
        const int fid = static_cast<int>(nodes.size());
        nodes.push_back(std::move(f));
        nodes[static_cast<std::size_t>(id)].then_ = fid;
        pending_ = {{id, 2}};
    }
    std::string temp() {
        std::string t = fmt::format("tmp_{}", ++temps_);
        decls.push_back("int " + t + " = 0");
        return t;
    }

    // ---- expressions ----
    bool has_read(const Expr& e) const {
        switch (e.kind) {
        case Expr::Kind::integer:
            return false;
        case Expr::Kind::name:
            return !is_local(e.ref);
        case Expr::Kind::unary:
            return has_read(*e.lhs);
        case Expr::Kind::binary:
            return has_read(*e.lhs) || has_read(*e.rhs);
        }
        return false;
    }
    static bool has_div(const Expr& e) {
        switch (e.kind) {
        case Expr::Kind::integer:
        case Expr::Kind::name:
            return false;
        case Expr::Kind::unary:
            return has_div(*e.lhs);
        case Expr::Kind::binary:
            return ((e.op == "/" || e.op == "%") && !is_nonzero_literal(*e.rhs)) ||
                   has_div(*e.lhs) || has_div(*e.rhs);
        }
        return false;
    }

    // `e` evaluated in one go (locals, and shared variables inside an `await`). With `safe`,
    // every division by a possibly zero divisor is guarded so that Spin never divides by zero.
    std::string pure(const Expr& e, bool safe) {
        switch (e.kind) {
        case Expr::Kind::integer:
            return literal(e.value, e.loc.line, g_);
        case Expr::Kind::name:
            return is_local(e.ref) ? local_name(e.name) : shared_name(e.name);
        case Expr::Kind::unary:
            if (e.op == "-" && e.lhs->kind == Expr::Kind::integer)
                return literal(-e.lhs->value, e.loc.line, g_);
            return fmt::format("({}{})", e.op, pure(*e.lhs, safe));
        case Expr::Kind::binary: {
            std::string a = pure(*e.lhs, safe), b = pure(*e.rhs, safe);
            if (safe && (e.op == "/" || e.op == "%") && !is_nonzero_literal(*e.rhs))
                return fmt::format("({} != 0 -> {} {} {} : 0)", b, a, e.op, b);
            return fmt::format("({} {} {})", a, e.op, b);
        }
        }
        return "0";
    }
    // Holds iff evaluating `e` (short-circuit, left to right) divides by zero; "" if it cannot.
    std::string divzero(const Expr& e) {
        switch (e.kind) {
        case Expr::Kind::integer:
        case Expr::Kind::name:
            return "";
        case Expr::Kind::unary:
            return divzero(*e.lhs);
        case Expr::Kind::binary: {
            std::string a = divzero(*e.lhs), b = divzero(*e.rhs);
            auto any = [](const std::string& x, const std::string& y) {
                if (x.empty())
                    return y;
                if (y.empty())
                    return x;
                return "(" + x + " || " + y + ")";
            };
            if (e.op == "&&" || e.op == "||") {
                if (!b.empty())
                    b = fmt::format("({}{} && {})", e.op == "&&" ? "" : "!", pure(*e.lhs, true), b);
                return any(a, b);
            }
            std::string r = any(a, b);
            if ((e.op == "/" || e.op == "%") && !is_nonzero_literal(*e.rhs))
                r = any(r, "(" + pure(*e.rhs, true) + " == 0)");
            return r;
        }
        }
        return "";
    }

    // Lowers `e` outside `await`: each occurrence of a shared variable is one read event, left
    // to right, skipped by short-circuit; returns the value as a Promela expression over
    // locals and temporaries. Divisions by zero become findings before the division.
    std::string value(const Expr& e, int line) {
        if (!has_read(e)) {
            if (has_div(e))
                check(divzero(e), fmt::format("DIVISION_BY_ZERO_line_{}", line));
            return pure(e, false);
        }
        switch (e.kind) {
        case Expr::Kind::integer:
            return literal(e.value, e.loc.line, g_);
        case Expr::Kind::name: {
            std::string t = temp();
            event(t + " = " + shared_name(e.name), fmt::format("line {}: r({})", line, e.name));
            return t;
        }
        case Expr::Kind::unary:
            return fmt::format("({}{})", e.op, value(*e.lhs, line));
        case Expr::Kind::binary:
            break;
        }
        std::string a = value(*e.lhs, line);
        if (e.op == "&&" || e.op == "||") {
            if (!has_read(*e.rhs) && !has_div(*e.rhs))
                return fmt::format("({} {} {})", a, e.op, pure(*e.rhs, false));
            // t = a && b: evaluate b (its reads) only when a does not decide.
            std::string t = temp();
            Node b;
            b.kind = Node::Kind::branch;
            b.code = e.op == "&&" ? a : "!" + a;
            const int id = add(std::move(b));
            pending_ = {{id, 1}};
            std::string rhs = value(*e.rhs, line);
            local(fmt::format("{} = ({} != 0)", t, rhs));
            auto exits = pending_;
            pending_ = {{id, 2}};
            local(fmt::format("{} = {}", t, e.op == "&&" ? 0 : 1));
            pending_.insert(pending_.end(), exits.begin(), exits.end());
            return t;
        }
        std::string b = value(*e.rhs, line);
        if ((e.op == "/" || e.op == "%") && !is_nonzero_literal(*e.rhs))
            check("(" + b + " == 0)", fmt::format("DIVISION_BY_ZERO_line_{}", line));
        return fmt::format("({} {} {})", a, e.op, b);
    }

    // ---- statements ----
    void stmts(const std::vector<Stmt>& body) {
        for (const Stmt& s : body)
            stmt(s);
    }

    void branch_on(const std::string& cond, const std::vector<Stmt>& then_body,
                   const std::vector<Stmt>* else_body) {
        Node b;
        b.kind = Node::Kind::branch;
        b.code = cond;
        const int id = add(std::move(b));
        pending_ = {{id, 1}};
        stmts(then_body);
        auto exits = pending_;
        pending_ = {{id, 2}};
        if (else_body)
            stmts(*else_body);
        pending_.insert(pending_.end(), exits.begin(), exits.end());
    }

    // One event creating every named thread; forking a started thread is ill-formed (checked at
    // the fork itself, as another thread may have forked it meanwhile).
    void fork_stmt(const Stmt& s, int line) {
        std::string started, set, names;
        for (const prog::Ident& t : s.threads) {
            const std::uint32_t id = t.ref.index;
            started += (started.empty() ? "" : " || ") + fmt::format("sfg_started[{}]", id);
            set += (set.empty() ? "" : "; ") + fmt::format("sfg_started[{}] = 1", id);
            names += (names.empty() ? "" : ",") + t.name;
        }
        const std::string fail = fmt::format("ILL_FORMED_fork_line_{}", line);
        g_.fail_name(fail);
        event(fmt::format("if\n:: ({}) -> {}\n:: else -> {}\nfi", started, fail_code(fail), set),
              fmt::format("line {}: fork({})", line, names));
    }

    // Waits until every named thread ended (normally or by a finding).
    void join_stmt(const Stmt& s, int line) {
        std::string ended, names;
        for (const prog::Ident& t : s.threads) {
            ended += (ended.empty() ? "" : " && ") + fmt::format("sfg_ended[{}]", t.ref.index);
            names += (names.empty() ? "" : ",") + t.name;
        }
        event("(" + ended + ")", fmt::format("line {}: join({})", line, names));
    }

    void barrier_stmt(const Stmt& s, int line) {
        // Reusable: entries are counted mod 3 per member; the k-th exit waits until every
        // member entered k times. Members' counts stay within one of each other, so
        // "c_j >= c_me" is "(c_j - c_me) mod 3 != 2".
        const auto& members = g_.spec.mechanisms[s.target.ref.index].threads;
        const auto pos = std::find(members.begin(), members.end(), name_) - members.begin();
        const std::string b = barrier_name(s.target.name);
        event(fmt::format("{}[{}] = ({}[{}] + 1) % 3", b, pos, b, pos),
              fmt::format("line {}: enter({})", line, s.target.name));
        std::string guard;
        for (std::size_t j = 0; j < members.size(); ++j)
            if (static_cast<std::ptrdiff_t>(j) != pos)
                guard += (guard.empty() ? "" : " && ") +
                         fmt::format("(({}[{}] + 3 - {}[{}]) % 3 != 2)", b, j, b, pos);
        event(guard.empty() ? "skip" : "(" + guard + ")",
              fmt::format("line {}: exit({})", line, s.target.name));
    }

    // Condition variables with their real choices (docs/promela.md): cv_c_waiting[t] while t
    // waits on c and is not notified, cv_c_notified[t] once a notify picked it; a notify picks
    // any waiting thread (Spin explores each), or is lost when none waits.
    void cond_stmt(const Stmt& s, int line) {
        const std::string c = cond_name(s.target.name), me = std::to_string(me_);
        if (s.kind == Stmt::Kind::wait) {
            const std::string lk = lock_name(s.object.name);
            check(fmt::format("({} != {})", lk, me_ + 1),
                  fmt::format("ILL_FORMED_rel_{}_line_{}", s.object.name, line));
            event(fmt::format("{} = 0; {}_waiting[{}] = 1", lk, c, me),
                  fmt::format("line {}: rel({}) wait({})", line, s.object.name, s.target.name));
            event(fmt::format("({}_notified[{}] && {} == 0) -> {}_notified[{}] = 0; {} = {}", c, me,
                              lk, c, me, lk, me_ + 1),
                  fmt::format("line {}: wake({}) acq({})", line, s.target.name, s.object.name));
            return;
        }
        const std::size_t n = g_.spec.threads.size();
        auto pick = [&](std::size_t u) {
            return fmt::format("{}_waiting[{}] -> {}_waiting[{}] = 0; {}_notified[{}] = 1", c, u, c,
                               u, c, u);
        };
        std::string code;
        if (s.kind == Stmt::Kind::notify) {
            code = "if\n";
            for (std::size_t u = 0; u < n; ++u)
                code += ":: " + pick(u) + "\n";
            code += ":: else -> skip\nfi";
        } else {
            for (std::size_t u = 0; u < n; ++u)
                code += fmt::format("{}if\n:: {}\n:: else -> skip\nfi", code.empty() ? "" : ";\n",
                                    pick(u));
        }
        event(code,
              fmt::format("line {}: {}({})", line,
                          s.kind == Stmt::Kind::notify ? "notify" : "notifyall", s.target.name));
    }

    void await_stmt(const Stmt& s, int line) {
        // A condition on locals only is local computation (docs/programs.md): a guard inside
        // the atomic of the previous event, true for good or false for good (then the thread
        // blocks there, an invalid end state unless others run on).
        if (!has_read(*s.expr)) {
            const std::string v = value(*s.expr, line); // a name, a literal or "(...)"
            local(v.front() == '(' ? v : "(" + v + ")");
            return;
        }
        // One step, enabled when e holds; its reads are the step's. If evaluating e would
        // divide by zero the step is enabled too, and is a finding.
        std::string dz = divzero(*s.expr);
        std::string v = pure(*s.expr, !dz.empty());
        if (dz.empty()) {
            event("(" + v + ")", fmt::format("line {}: await", line));
        } else {
            const std::string fail = fmt::format("DIVISION_BY_ZERO_line_{}", line);
            g_.fail_name(fail);
            event(fmt::format("({} || {}) ->\nif\n:: {} -> {}\n:: else -> skip\nfi", dz, v, dz,
                              fail_code(fail)),
                  fmt::format("line {}: await", line));
        }
    }

    void while_stmt(const Stmt& s, int line) {
        const int head = static_cast<int>(nodes.size());
        std::string v = value(*s.expr, line);
        Node b;
        b.kind = Node::Kind::branch;
        b.code = v;
        const int id = add(std::move(b));
        pending_ = {{id, 1}};
        stmts(s.body);
        patch(pending_, head);
        pending_ = {{id, 2}};
    }

    void repeat_stmt(const Stmt& s, int line) {
        std::string r = fmt::format("rep_{}", ++repeats_);
        decls.push_back("int " + r + " = 0");
        local(r + " = 0");
        const int head = static_cast<int>(nodes.size());
        Node b;
        b.kind = Node::Kind::branch;
        b.code = fmt::format("({} < {})", r, literal(s.count, line, g_));
        const int id = add(std::move(b));
        pending_ = {{id, 1}};
        stmts(s.body);
        local(fmt::format("{} = {} + 1", r, r));
        patch(pending_, head);
        pending_ = {{id, 2}};
    }

    void queue_stmt(const Stmt& s, int line) {
        // A channel of variable ids (docs/promela.md): `q!id` appends; `q?id` is executable
        // only when id is the first message, then removes it (FIFO, as deq waits for o at
        // the front).
        const bool enq = s.kind == Stmt::Kind::enq;
        event(fmt::format("{}{}{}", queue_name(s.target.name), enq ? "!" : "?", s.object.ref.index),
              fmt::format("line {}: {}({},{})", line, enq ? "enq" : "deq", s.target.name,
                          s.object.name));
    }

    // xchg, cas, fadd: one atomic event (vr then maybe vw); its result in a temporary.
    std::string rmw(const Stmt& s, int line) {
        const std::string a = value(*s.expr, line);
        const std::string b = s.expr2 ? value(*s.expr2, line) : std::string();
        const std::string t = temp(), v = shared_name(s.object.name);
        switch (s.rmw) {
        case Stmt::Rmw::xchg:
            event(fmt::format("{} = {}; {} = {}", t, v, v, a),
                  fmt::format("line {}: xchg({})", line, s.object.name));
            break;
        case Stmt::Rmw::cas:
            event(fmt::format("if\n:: ({} == {}) -> {} = {}; {} = 1\n:: else -> {} = 0\nfi", v, a,
                              v, b, t, t),
                  fmt::format("line {}: cas({})", line, s.object.name));
            break;
        default:
            event(fmt::format("{} = {}; {} = {} + {}", t, v, v, v, a),
                  fmt::format("line {}: fadd({})", line, s.object.name));
            break;
        }
        return t;
    }

    void stmt(const Stmt& s) {
        const int line = s.loc.line;
        const std::string me1 = std::to_string(me_ + 1);
        switch (s.kind) {
        case Stmt::Kind::let:
        case Stmt::Kind::assign: {
            std::string v = s.rmw == Stmt::Rmw::none ? value(*s.expr, line) : rmw(s, line);
            if (is_local(s.target.ref))
                local(local_name(s.target.name) + " = " + v);
            else
                event(shared_name(s.target.name) + " = " + v,
                      fmt::format("line {}: w({})", line, s.target.name));
            return;
        }
        case Stmt::Kind::read:
            event("skip", fmt::format("line {}: r({})", line, s.target.name));
            return;
        case Stmt::Kind::write: // value unchanged
            event("skip", fmt::format("line {}: w({})", line, s.target.name));
            return;
        case Stmt::Kind::acq: {
            const std::string lk = lock_name(s.target.name);
            check(fmt::format("({} == {})", lk, me1),
                  fmt::format("ILL_FORMED_acq_{}_line_{}", s.target.name, line));
            event(fmt::format("({} == 0) -> {} = {}", lk, lk, me1),
                  fmt::format("line {}: acq({})", line, s.target.name));
            return;
        }
        case Stmt::Kind::rel: {
            const std::string lk = lock_name(s.target.name);
            check(fmt::format("({} != {})", lk, me1),
                  fmt::format("ILL_FORMED_rel_{}_line_{}", s.target.name, line));
            event(fmt::format("{} = 0", lk), fmt::format("line {}: rel({})", line, s.target.name));
            return;
        }
        case Stmt::Kind::fork:
            return fork_stmt(s, line);
        case Stmt::Kind::join:
            return join_stmt(s, line);
        case Stmt::Kind::barrier:
            return barrier_stmt(s, line);
        case Stmt::Kind::await_:
            return await_stmt(s, line);
        case Stmt::Kind::assert_: {
            std::string v = value(*s.expr, line);
            check("!" + v, fmt::format("ASSERTION_FAILED_line_{}", line));
            return;
        }
        case Stmt::Kind::if_: {
            std::string v = value(*s.expr, line);
            branch_on(v, s.body, s.has_else ? &s.else_body : nullptr);
            return;
        }
        case Stmt::Kind::while_:
            return while_stmt(s, line);
        case Stmt::Kind::repeat:
            return repeat_stmt(s, line);
        case Stmt::Kind::skip:
            return;
        case Stmt::Kind::deterministic:
            // Begin and end are visible events (docs/programs.md); the body is emitted between
            // them.
            event("skip", fmt::format("line {}: begin deterministic {{", line));
            stmts(s.body);
            event("skip", fmt::format("line {}: end deterministic }}", line));
            return;
        case Stmt::Kind::enq:
        case Stmt::Kind::deq:
            return queue_stmt(s, line);
        case Stmt::Kind::wait:
        case Stmt::Kind::notify:
        case Stmt::Kind::notifyall:
            return cond_stmt(s, line);
        }
    }

public:
    std::string fail_code(const std::string& fail) const {
        return fmt::format("assert({}); sfg_ended[{}] = 1; goto end_done", fail, me_);
    }
    int me() const { return me_; }
};

// Writes one thread's proctype: a region (atomic) per step start.
class ProctypeWriter {
public:
    ProctypeWriter(const ThreadLowering& t, std::string& out) : t_(t), out_(out) {}

    void region(const std::string& label, int first) {
        label_ = label;
        emitted_.clear();
        refs_.clear();
        count(first);
        walk(first, 2);
    }

private:
    const ThreadLowering& t_;
    std::string& out_;
    std::string label_;
    std::set<int> emitted_;
    std::map<int, int> refs_;

    const Node& node(int n) const { return t_.nodes[static_cast<std::size_t>(n)]; }

    // In-region references of each local node, to know which ones need a label.
    void count(int n) {
        if (n < 0 || node(n).kind == Node::Kind::event || node(n).kind == Node::Kind::end)
            return;
        if (refs_[n]++ > 0)
            return;
        const Node& x = node(n);
        if (x.kind == Node::Kind::local)
            count(x.next);
        else if (x.kind == Node::Kind::branch) {
            count(x.then_);
            count(x.else_);
        }
    }

    void line(int indent, const std::string& text) {
        std::size_t start = 0;
        while (start <= text.size()) {
            std::size_t end = text.find('\n', start);
            if (end == std::string::npos)
                end = text.size();
            out_ += std::string(static_cast<std::size_t>(indent) * 4, ' ') +
                    text.substr(start, end - start) + "\n";
            start = end + 1;
        }
    }

    void walk(int n, int indent) {
        if (n < 0)
            return line(indent, "skip /* unreachable */");
        const Node& x = node(n);
        if (x.kind == Node::Kind::event)
            return line(indent, fmt::format("goto S{}", n));
        if (x.kind == Node::Kind::end)
            return line(indent, fmt::format("sfg_ended[{}] = 1; goto end_done", t_.me()));
        if (emitted_.count(n))
            return line(indent, fmt::format("goto {}_{}", label_, n));
        emitted_.insert(n);
        std::string lbl = refs_[n] > 1 ? fmt::format("{}_{}: ", label_, n) : "";
        switch (x.kind) {
        case Node::Kind::local:
            line(indent, lbl + x.code + ";");
            walk(x.next, indent);
            return;
        case Node::Kind::fail:
            line(indent, lbl + t_.fail_code(x.code));
            return;
        case Node::Kind::branch:
            line(indent, lbl + "if");
            line(indent, ":: (" + x.code + ") ->");
            walk(x.then_, indent + 1);
            line(indent, ":: else ->");
            walk(x.else_, indent + 1);
            line(indent, "fi");
            return;
        default:
            return;
        }
    }

public:
    void event_region(int n) {
        const Node& x = node(n);
        out_ += fmt::format("S{}: atomic {{ /* {} */\n", n, x.comment);
        line(2, x.code + ";");
        region(fmt::format("S{}", n), x.next);
        out_ += "    };\n";
    }
};

// The most objects each queue can hold (by index in spec.mechanisms): the enq statements of
// every thread, each counted as often as the `repeat`s around it run. An enq inside a `while`
// has no bound: it goes to `unbounded` (the first one met), and a Spin channel, whose capacity
// is fixed, cannot stand for the queue (docs/promela.md).
struct QueueBounds {
    std::map<std::size_t, std::uint64_t> capacity;
    const Stmt* unbounded = nullptr;
};

void count_enqs(const std::vector<Stmt>& body, std::uint64_t times, bool in_while, QueueBounds& b) {
    constexpr std::uint64_t many = std::uint64_t{1} << 32; // saturates: beyond any channel
    for (const Stmt& s : body) {
        if (s.kind == Stmt::Kind::enq) {
            if (in_while && !b.unbounded)
                b.unbounded = &s;
            std::uint64_t& c = b.capacity[s.target.ref.index];
            c = std::min(many, c + times);
        }
        const std::uint64_t inner =
            s.kind == Stmt::Kind::repeat
                ? std::min(many,
                           times * static_cast<std::uint64_t>(std::max<std::int64_t>(s.count, 0)))
                : times;
        count_enqs(s.body, inner, in_while || s.kind == Stmt::Kind::while_, b);
        count_enqs(s.else_body, inner, in_while, b);
    }
}

// The error of a model whose queues a Spin channel cannot stand for (docs/promela.md); `bounds`
// gets every queue's capacity.
std::optional<PromelaModel> unbounded_queue(const prog::Program& program, const CompiledSpec& spec,
                                            QueueBounds& bounds) {
    for (const prog::Thread& t : program.threads)
        count_enqs(t.body, 1, false, bounds);
    if (bounds.unbounded) {
        const Stmt& s = *bounds.unbounded;
        PromelaModel m;
        m.error_loc = s.loc;
        m.error = fmt::format("cannot export 'enq {} {}': an enq inside a while loop has no bound, "
                              "and a Spin channel has a fixed capacity",
                              s.target.name, s.object.name);
        return m;
    }
    for (const auto& [queue, capacity] : bounds.capacity)
        if (capacity > max_promela_queue) {
            PromelaModel m;
            m.error_loc = spec.mechanisms[queue].loc;
            m.error = fmt::format("cannot export queue '{}': it may hold {} objects, more than a "
                                  "Spin channel's {}",
                                  spec.mechanisms[queue].name, capacity, max_promela_queue);
            return m;
        }
    return std::nullopt;
}

// Indices into spec.mechanisms by kind; barriers in name order.
struct Mechanisms {
    std::vector<std::size_t> locks, volatiles, barriers, queues;
};

Mechanisms mechanisms_of(const CompiledSpec& spec) {
    Mechanisms m;
    for (std::size_t i = 0; i < spec.mechanisms.size(); ++i) {
        if (spec.mechanisms[i].kind == MechKind::queue)
            m.queues.push_back(i);
        else if (spec.mechanisms[i].kind == MechKind::lock)
            m.locks.push_back(i);
        else if (spec.mechanisms[i].kind == MechKind::volatile_)
            m.volatiles.push_back(i);
        else if (spec.mechanisms[i].kind == MechKind::barrier)
            m.barriers.push_back(i);
    }
    std::sort(m.barriers.begin(), m.barriers.end(), [&](std::size_t a, std::size_t b) {
        return spec.mechanisms[a].name < spec.mechanisms[b].name;
    });
    return m;
}

void find_forks(const std::vector<Stmt>& body, std::vector<bool>& forked) {
    for (const Stmt& s : body) {
        if (s.kind == Stmt::Kind::fork)
            for (const prog::Ident& t : s.threads)
                forked[t.ref.index] = true;
        find_forks(s.body, forked);
        find_forks(s.else_body, forked);
    }
}

// Thread i's proctype (`body` null for a thread without one): its initial region, then a region
// per event.
std::string proctype(Globals& g, std::size_t i, const prog::Thread* body) {
    const std::string& name = g.spec.threads[i];
    ThreadLowering t(g, name, static_cast<int>(i));
    t.lower(body);
    std::string out;
    const bool forked = g.forked[i];
    out += fmt::format("\n/* thread {} (id {}){} */\nactive proctype p_{}() {{\n", name, i,
                       forked ? ", starts when forked" : ", starts at once", name);
    for (const std::string& d : t.decls)
        out += "    " + d + ";\n";
    ProctypeWriter w(t, out);
    const Node& first = t.nodes[static_cast<std::size_t>(t.entry)];
    // The initial local computation runs when the thread starts.
    if (forked)
        out += fmt::format("end_unforked:\n    atomic {{\n        sfg_started[{}] ->\n", i);
    else if (first.kind != Node::Kind::event)
        out += "    atomic {\n";
    if (forked || first.kind != Node::Kind::event) {
        w.region("B", t.entry);
        out += "    };\n";
    }
    // Regions in node order, the entry event's first so that it is reached by falling through;
    // every region ends with a goto.
    std::vector<int> events;
    for (std::size_t n = 0; n < t.nodes.size(); ++n)
        if (t.nodes[n].kind == Node::Kind::event)
            events.push_back(static_cast<int>(n));
    std::stable_partition(events.begin(), events.end(), [&](int n) { return n == t.entry; });
    for (int n : events)
        w.event_region(n);
    out += "end_done:\n    skip\n}\n";
    return out;
}

// The globals: shared variables with their initial values, locks, barriers, queues, the
// threads' start and end bits and the findings' names.
std::string globals_text(const prog::Program& program, const Mechanisms& mech,
                         const QueueBounds& bounds, Globals& g) {
    const CompiledSpec& spec = g.spec;
    // By the index of what they initialize: a variable, or a volatile among the mechanisms.
    std::vector<const prog::Init*> var_init(spec.variables.size(), nullptr),
        mech_init(spec.mechanisms.size(), nullptr);
    for (const prog::Init& i : program.inits)
        (i.var.ref.kind == Ref::Kind::variable ? var_init : mech_init)[i.var.ref.index] = &i;
    auto init_of = [&](const prog::Init* i) {
        return i ? literal(i->value, i->loc.line, g) : std::string("0");
    };
    std::string out = "\n/* threads:";
    for (std::size_t i = 0; i < spec.threads.size(); ++i)
        out += fmt::format(" {}={}", spec.threads[i], i);
    out += " */\n";
    for (std::size_t i = 0; i < spec.variables.size(); ++i)
        out += fmt::format("int {} = {}; /* var {} */\n", shared_name(spec.variables[i].name),
                           init_of(var_init[i]), spec.variables[i].name);
    for (std::size_t i : mech.volatiles) {
        const std::string& v = spec.mechanisms[i].name;
        out += fmt::format("int {} = {}; /* volatile {} */\n", shared_name(v),
                           init_of(mech_init[i]), v);
    }
    for (std::size_t i : mech.locks) {
        const std::string& l = spec.mechanisms[i].name;
        out +=
            fmt::format("byte {} = 0; /* lock {}: 0 free, else owner id + 1 */\n", lock_name(l), l);
    }
    for (std::size_t i : mech.barriers) {
        const MechanismDecl& b = spec.mechanisms[i];
        std::string ms;
        for (const std::string& m : b.threads)
            ms += (ms.empty() ? "" : ",") + m;
        out += fmt::format("byte {}[{}]; /* barrier {}({}): entries mod 3 per member */\n",
                           barrier_name(b.name), std::max<std::size_t>(b.threads.size(), 1), b.name,
                           ms);
    }
    for (std::size_t i : mech.queues) {
        const std::string& q = spec.mechanisms[i].name;
        const auto c = bounds.capacity.find(i);
        // Capacity 0 would make a rendezvous channel: a queue never filled gets one slot.
        const std::uint64_t capacity =
            c == bounds.capacity.end() ? 1 : std::max<std::uint64_t>(c->second, 1);
        out += fmt::format("chan {} = [{}] of {{ int }}; /* queue {}: variable ids, every enq "
                           "fits */\n",
                           queue_name(q), capacity, q);
    }
    const std::size_t nthreads = std::max<std::size_t>(spec.threads.size(), 1);
    for (const CondDecl& c : spec.conds)
        out += fmt::format("bit {}_waiting[{}]; bit {}_notified[{}]; /* cond {} by thread */\n",
                           cond_name(c.name), nthreads, cond_name(c.name), nthreads, c.name);
    out += fmt::format("bit sfg_started[{}]; /* set by fork */\n", nthreads);
    out +=
        fmt::format("bit sfg_ended[{}]; /* thread ended, normally or by a finding */\n", nthreads);
    for (const std::string& f : g.fail_names)
        out += fmt::format("hidden byte {}; /* 0: asserted when the finding occurs */\n", f);
    return out;
}

std::string header_text(const prog::Program& program, const Globals& g) {
    std::string head;
    head += fmt::format("/* Promela model of sfg program '{}' (from {}), written by sfgc check "
                        "--emit-promela.\n",
                        program.name.name, g.spec.file);
    head += "   One atomic per visible step; findings are asserts of variables named after them;\n"
            "   a thread that fails stops (counts as ended for joins). Integers are 32-bit here\n"
            "   (64-bit in sfg). Check: spin -a m.pml && gcc -o pan pan.c && ./pan -E (asserts),\n"
            "   ./pan -A (deadlocks = invalid end states). See docs/promela.md. */\n";
    for (const std::string& w : g.warnings)
        head += "/* WARNING: " + w + " */\n";
    return head;
}

} // namespace

PromelaModel emit_promela(const prog::Program& program, const CompiledSpec& spec) {
    QueueBounds bounds;
    if (std::optional<PromelaModel> error = unbounded_queue(program, spec, bounds))
        return std::move(*error);
    Globals g{spec, std::vector<bool>(spec.threads.size(), false), {}, {}, {}, {}};
    for (const prog::Thread& t : program.threads)
        find_forks(t.body, g.forked);
    std::vector<const prog::Thread*> bodies(spec.threads.size(), nullptr);
    for (const prog::Thread& t : program.threads)
        bodies[t.name.ref.index] = &t;
    // Threads first: their lowering names the findings declared among the globals; the globals'
    // literals may add warnings to the header.
    std::string procs;
    for (std::size_t i = 0; i < spec.threads.size(); ++i)
        procs += proctype(g, i, bodies[i]);
    const std::string globals = globals_text(program, mechanisms_of(spec), bounds, g);
    PromelaModel m;
    m.text = header_text(program, g) + globals + procs;
    m.warnings = std::move(g.warnings);
    return m;
}

std::string to_promela(const prog::Program& program, const CompiledSpec& spec) {
    return emit_promela(program, spec).text;
}

} // namespace sfg
