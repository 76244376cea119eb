// Static checks and name resolution of programs (docs/programs.md); see program_sema.hpp.
#include "sfg/compiler/program_sema.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace sfg {

namespace {

using Kind = prog::Ref::Kind;

const char* describe(Kind k) {
    switch (k) {
    case Kind::thread:
        return "a thread";
    case Kind::queue:
        return "a queue";
    case Kind::lock:
        return "a lock";
    case Kind::volatile_:
        return "a volatile";
    case Kind::barrier:
        return "a barrier";
    case Kind::variable:
        return "a variable";
    case Kind::cond:
        return "a condition variable";
    case Kind::local:
    case Kind::none:
        break;
    }
    return "?";
}

struct Global {
    prog::Ref ref;
    std::optional<SourceLoc> loc; // threads carry no location in CompiledSpec
    const MechanismDecl* mech = nullptr;
};

struct Local {
    SourceLoc loc;
    std::uint32_t index = 0; // in Thread::locals
};

std::uint32_t index_of(std::size_t i) {
    return static_cast<std::uint32_t>(i);
}

class ProgramSema {
public:
    ProgramSema(const CompiledSpec& spec, Diagnostics& diags) : diags_(diags) {
        for (std::size_t i = 0; i < spec.threads.size(); ++i)
            globals_.emplace(spec.threads[i], Global{{Kind::thread, index_of(i)}, std::nullopt});
        for (std::size_t i = 0; i < spec.mechanisms.size(); ++i) {
            const MechanismDecl& m = spec.mechanisms[i];
            Kind k = m.kind == MechKind::lock        ? Kind::lock
                     : m.kind == MechKind::volatile_ ? Kind::volatile_
                     : m.kind == MechKind::barrier   ? Kind::barrier
                     : m.kind == MechKind::queue     ? Kind::queue
                                                     : Kind::none;
            globals_.emplace(m.name, Global{{k, index_of(i)}, m.loc, &m});
        }
        for (std::size_t i = 0; i < spec.variables.size(); ++i)
            globals_.emplace(spec.variables[i].name,
                             Global{{Kind::variable, index_of(i)}, spec.variables[i].loc});
        for (std::size_t i = 0; i < spec.conds.size(); ++i)
            globals_.emplace(spec.conds[i].name,
                             Global{{Kind::cond, index_of(i)}, spec.conds[i].loc});
    }

    void run(prog::Program& p) {
        std::map<std::string, SourceLoc> inits;
        for (prog::Init& i : p.inits) {
            const Global* g =
                expect(i.var, "a shared variable or volatile", {Kind::variable, Kind::volatile_});
            if (!g)
                continue;
            auto [it, fresh] = inits.emplace(i.var.name, i.var.loc);
            if (!fresh) {
                diags_.error(i.var.loc, fmt::format("'{}' is initialized twice", i.var.name));
                diags_.note(it->second, "first initialization is here");
            }
        }
        std::map<std::string, SourceLoc> bodies;
        for (prog::Thread& t : p.threads) {
            if (!expect(t.name, "a thread", {Kind::thread}))
                continue;
            auto [it, fresh] = bodies.emplace(t.name.name, t.name.loc);
            if (!fresh) {
                diags_.error(t.name.loc, fmt::format("thread '{}' has two bodies in program '{}'",
                                                     t.name.name, p.name.name));
                diags_.note(it->second, "first body is here");
            }
            thread_ = &t;
            locals_.clear();
            later_locals_.clear();
            collect_lets(t.body);
            block(t.body);
        }
    }

private:
    // ---- names ----
    const Global* find(const std::string& name) const {
        auto it = globals_.find(name);
        return it == globals_.end() ? nullptr : &it->second;
    }

    void wrong_kind(const prog::Ident& id, const Global& g, const char* wanted) {
        diags_.error(id.loc,
                     fmt::format("'{}' is {}, not {}", id.name, describe(g.ref.kind), wanted));
        if (g.loc)
            diags_.note(*g.loc, fmt::format("'{}' is declared here", id.name));
    }

    // A global of one of `kinds`, which `id` then refers to; reports an error and returns null
    // otherwise.
    const Global* expect(prog::Ident& id, const char* wanted, std::initializer_list<Kind> kinds) {
        const Global* g = find(id.name);
        if (!g) {
            if (locals_.count(id.name))
                diags_.error(id.loc, fmt::format("'{}' is a local, not {}", id.name, wanted));
            else
                diags_.error(id.loc, fmt::format("use of undeclared name '{}' (expected {})",
                                                 id.name, wanted));
            return nullptr;
        }
        if (std::find(kinds.begin(), kinds.end(), g->ref.kind) == kinds.end()) {
            wrong_kind(id, *g, wanted);
            return nullptr;
        }
        id.ref = g->ref;
        return g;
    }

    // Locals declared anywhere in the thread, for "used before its declaration".
    void collect_lets(const std::vector<prog::Stmt>& body) {
        for (const prog::Stmt& s : body) {
            if (s.kind == prog::Stmt::Kind::let)
                later_locals_.emplace(s.target.name, s.target.loc);
            collect_lets(s.body);
            collect_lets(s.else_body);
        }
    }

    // A name read or assigned as a value: a local declared before, a variable or a volatile;
    // what it denotes goes to `ref`.
    void value_name(const prog::Ident& id, prog::Ref& ref) {
        if (auto local = locals_.find(id.name); local != locals_.end()) {
            ref = {Kind::local, local->second.index};
            return;
        }
        if (const Global* g = find(id.name)) {
            if (g->ref.kind == Kind::variable || g->ref.kind == Kind::volatile_)
                ref = g->ref;
            else
                wrong_kind(id, *g, "a value");
            return;
        }
        auto later = later_locals_.find(id.name);
        if (later != later_locals_.end()) {
            diags_.error(id.loc, fmt::format("local '{}' is used before its declaration", id.name));
            diags_.note(later->second, fmt::format("'{}' is declared here", id.name));
            return;
        }
        diags_.error(id.loc, fmt::format("use of undeclared name '{}'", id.name));
    }

    // ---- expressions ----
    void expr(prog::Expr& e, int depth = 1) {
        if (depth > max_expression_depth) {
            if (!deep_reported_)
                diags_.error(e.loc, fmt::format("expression nested deeper than {} levels",
                                                max_expression_depth));
            deep_reported_ = true;
            return;
        }
        switch (e.kind) {
        case prog::Expr::Kind::integer:
            return;
        case prog::Expr::Kind::name:
            value_name({e.name, e.loc, {}}, e.ref);
            return;
        case prog::Expr::Kind::unary:
            if (e.lhs)
                expr(*e.lhs, depth + 1);
            return;
        case prog::Expr::Kind::binary:
            if (e.lhs)
                expr(*e.lhs, depth + 1);
            if (e.rhs)
                expr(*e.rhs, depth + 1);
            return;
        }
    }

    // ---- statements ----
    void block(std::vector<prog::Stmt>& body) {
        for (prog::Stmt& s : body) {
            if (diags_.limit_reached())
                return;
            stmt(s);
        }
    }

    void thread_list(prog::Stmt& s, const char* what) {
        std::map<std::string, SourceLoc> seen;
        for (prog::Ident& id : s.threads) {
            if (!expect(id, "a thread", {Kind::thread}))
                continue;
            auto [it, fresh] = seen.emplace(id.name, id.loc);
            if (!fresh) {
                diags_.error(id.loc,
                             fmt::format("thread '{}' is listed twice in this {}", id.name, what));
                diags_.note(it->second, "first listed here");
            } else if (id.name == thread_->name.name) {
                diags_.error(id.loc, fmt::format("thread '{}' cannot {} itself", id.name, what));
            }
        }
    }

    // The value of a let or assignment: an expression, or a read-modify-write of a volatile.
    void value(prog::Stmt& s) {
        if (s.rmw != prog::Stmt::Rmw::none)
            expect(s.object, "a volatile", {Kind::volatile_});
        if (s.expr)
            expr(*s.expr);
        if (s.expr2)
            expr(*s.expr2);
    }

    // `let r = e`: a new local of the thread, named unlike every global and every other local.
    void let_stmt(prog::Stmt& s) {
        value(s);
        prog::Ident& r = s.target;
        if (const Global* g = find(r.name)) {
            diags_.error(r.loc, fmt::format("'{}' is already declared as {}; a local needs "
                                            "another name",
                                            r.name, describe(g->ref.kind)));
            if (g->loc)
                diags_.note(*g->loc, fmt::format("'{}' is declared here", r.name));
            return;
        }
        auto [it, fresh] = locals_.emplace(r.name, Local{r.loc, index_of(thread_->locals.size())});
        if (!fresh) {
            diags_.error(r.loc, fmt::format("local '{}' is declared twice in thread '{}'", r.name,
                                            thread_->name.name));
            diags_.note(it->second.loc, "first declaration is here");
            return;
        }
        r.ref = {Kind::local, it->second.index};
        thread_->locals.push_back(r.name);
    }

    // `x = e`: a local, a variable or a volatile.
    void assign_stmt(prog::Stmt& s) {
        value(s);
        if (const Global* g = find(s.target.name);
            g && g->ref.kind != Kind::variable && g->ref.kind != Kind::volatile_) {
            diags_.error(s.target.loc, fmt::format("cannot assign to '{}': it is {}", s.target.name,
                                                   describe(g->ref.kind)));
            if (g->loc)
                diags_.note(*g->loc, fmt::format("'{}' is declared here", s.target.name));
            return;
        }
        value_name(s.target, s.target.ref);
    }

    // `barrier b`: a barrier that lists this thread.
    void barrier_stmt(prog::Stmt& s) {
        const Global* g = expect(s.target, "a barrier", {Kind::barrier});
        if (!g || !g->mech)
            return;
        const auto& ts = g->mech->threads;
        if (std::find(ts.begin(), ts.end(), thread_->name.name) == ts.end()) {
            diags_.error(s.target.loc,
                         fmt::format("thread '{}' is not one of barrier '{}''s threads ({})",
                                     thread_->name.name, s.target.name, fmt::join(ts, ", ")));
            diags_.note(g->mech->loc, fmt::format("'{}' is declared here", s.target.name));
        }
    }

    // A thread's blocks do not nest (docs/determinism.md): the inner `begin` would be an
    // ill-formed trace.
    void deterministic_stmt(prog::Stmt& s) {
        if (in_deterministic_)
            diags_.error(s.loc, "a deterministic block inside another one (blocks do not "
                                "nest)");
        const bool outer = in_deterministic_;
        in_deterministic_ = true;
        block(s.body);
        in_deterministic_ = outer;
    }

    void stmt(prog::Stmt& s) {
        using K = prog::Stmt::Kind;
        deep_reported_ = false;
        switch (s.kind) {
        case K::let:
            let_stmt(s);
            return;
        case K::assign:
            assign_stmt(s);
            return;
        case K::read:
        case K::write:
            expect(s.target, "a shared variable or volatile", {Kind::variable, Kind::volatile_});
            return;
        case K::acq:
        case K::rel:
            expect(s.target, "a lock", {Kind::lock});
            return;
        case K::fork:
            thread_list(s, "fork");
            return;
        case K::join:
            thread_list(s, "join");
            return;
        case K::barrier:
            barrier_stmt(s);
            return;
        case K::await_:
        case K::assert_:
            if (s.expr)
                expr(*s.expr);
            return;
        case K::if_:
            if (s.expr)
                expr(*s.expr);
            block(s.body);
            block(s.else_body);
            return;
        case K::while_:
            if (s.expr)
                expr(*s.expr);
            block(s.body);
            return;
        case K::repeat:
            if (s.count > max_repeat_count)
                diags_.error(s.loc, fmt::format("repeat count {} is too large (at most {})",
                                                s.count, max_repeat_count));
            block(s.body);
            return;
        case K::enq:
        case K::deq:
            // Thesis §5.1, q(o): a queue and a data variable, the object handed over.
            expect(s.target, "a queue", {Kind::queue});
            expect(s.object, "a variable", {Kind::variable});
            return;
        case K::wait:
            expect(s.target, "a condition variable", {Kind::cond});
            expect(s.object, "a lock", {Kind::lock});
            return;
        case K::notify:
        case K::notifyall:
            expect(s.target, "a condition variable", {Kind::cond});
            return;
        case K::skip:
            return;
        case K::deterministic:
            deterministic_stmt(s);
            return;
        }
    }

    Diagnostics& diags_;
    std::map<std::string, Global> globals_;
    prog::Thread* thread_ = nullptr;
    std::map<std::string, Local> locals_;
    std::map<std::string, SourceLoc> later_locals_;
    bool deep_reported_ = false;
    bool in_deterministic_ = false;
};

} // namespace

void resolve_program(prog::Program& program, const CompiledSpec& spec, Diagnostics& diags) {
    ProgramSema(spec, diags).run(program);
}

void resolve_programs(std::vector<ast::Program>& programs, const CompiledSpec& spec,
                      Diagnostics& diags) {
    std::map<std::string, SourceLoc> seen;
    for (ast::Program& p : programs) {
        auto [it, fresh] = seen.emplace(p.name.name, p.name.loc);
        if (!fresh) {
            diags.error(p.name.loc, fmt::format("redefinition of program '{}'", p.name.name));
            diags.note(it->second, "first definition is here");
        }
        if (p.body)
            resolve_program(*p.body, spec, diags);
    }
}

} // namespace sfg
