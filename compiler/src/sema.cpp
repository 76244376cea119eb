#include "sfg/compiler/sema.hpp"

#include "sfg/compiler/sfg.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace sfg {

namespace {

enum class NameKind { thread, lock, volatile_, barrier, discipline, var, queue, group, cond };

const char* describe(NameKind k) {
    switch (k) {
    case NameKind::thread:
        return "a thread";
    case NameKind::lock:
        return "a lock";
    case NameKind::volatile_:
        return "a volatile";
    case NameKind::barrier:
        return "a barrier";
    case NameKind::discipline:
        return "a discipline";
    case NameKind::var:
        return "a variable";
    case NameKind::queue:
        return "a queue";
    case NameKind::group:
        return "a group";
    case NameKind::cond:
        return "a condition variable";
    }
    return "?";
}

struct Symbol {
    NameKind kind;
    SourceLoc loc;
    const ast::Decl* decl;
};

class Sema {
public:
    Sema(const ast::Spec& spec, Diagnostics& diags, const CompileLimits& limits)
        : spec_(spec), diags_(diags), limits_(limits) {}

    CompiledSpec run(const std::string& file) {
        CompiledSpec out;
        out.file = file;
        declare_all(out);
        for (const ast::Decl& d : spec_.decls)
            if (d.kind == ast::Decl::Kind::discipline)
                check_recursion(d.names[0].name);
        for (const ast::Decl& d : spec_.decls)
            if (d.disc) {
                check_disc(*d.disc);
                collect_refs(*d.disc, [&](const std::string& ref) { referenced_.insert(ref); });
            }
        build_variables(out);
        return out;
    }

private:
    // ---- declarations ----
    void declare(const ast::Ident& id, NameKind kind, const ast::Decl* decl) {
        auto [it, fresh] = symbols_.emplace(id.name, Symbol{kind, id.loc, decl});
        if (fresh)
            return;
        if (kind == NameKind::var && it->second.kind == NameKind::var && it->second.decl != decl) {
            const ast::Decl* prev = it->second.decl;
            if (prev->disc && decl->disc) {
                diags_.error(id.loc, fmt::format("variable '{}' is annotated twice", id.name));
                diags_.note(it->second.loc, "first annotation is here");
            } else if (decl->disc) {
                it->second = Symbol{kind, id.loc, decl}; // declared first, annotated now
            }
            return;
        }
        diags_.error(id.loc, fmt::format("redefinition of '{}'", id.name));
        diags_.note(it->second.loc, fmt::format("'{}' is already declared as {} here", id.name,
                                                describe(it->second.kind)));
    }

    void declare_all(CompiledSpec& out) {
        for (const ast::Decl& d : spec_.decls) {
            NameKind k = NameKind::thread;
            switch (d.kind) {
            case ast::Decl::Kind::threads:
                k = NameKind::thread;
                break;
            case ast::Decl::Kind::lock:
                k = NameKind::lock;
                break;
            case ast::Decl::Kind::volatile_:
                k = NameKind::volatile_;
                break;
            case ast::Decl::Kind::barrier:
                k = NameKind::barrier;
                break;
            case ast::Decl::Kind::discipline:
                k = NameKind::discipline;
                break;
            case ast::Decl::Kind::var:
                k = NameKind::var;
                break;
            case ast::Decl::Kind::queue:
                k = NameKind::queue;
                break;
            case ast::Decl::Kind::group:
                k = NameKind::group;
                break;
            case ast::Decl::Kind::cond:
                k = NameKind::cond;
                break;
            }
            for (const ast::Ident& id : d.names)
                declare(id, k, &d);
        }
        // Groups first: a barrier may name a group declared after it.
        for (const ast::Decl& d : spec_.decls)
            if (d.kind == ast::Decl::Kind::group && symbols_.at(d.names[0].name).decl == &d)
                declare_group(d, out);
        // Now that every name is known (declarations may come in any order), collect them.
        std::set<std::string> seen_vars;
        for (const ast::Decl& d : spec_.decls) {
            for (const ast::Ident& id : d.names) {
                const Symbol& s = symbols_.at(id.name);
                if (s.decl != &d && !(s.kind == NameKind::var))
                    continue; // a redefinition, already reported
                switch (d.kind) {
                case ast::Decl::Kind::threads:
                    out.threads.push_back(id.name);
                    break;
                case ast::Decl::Kind::lock:
                    out.mechanisms.push_back({id.name, MechKind::lock, {}, id.loc});
                    break;
                case ast::Decl::Kind::volatile_:
                    out.mechanisms.push_back({id.name, MechKind::volatile_, {}, id.loc});
                    break;
                case ast::Decl::Kind::barrier:
                    out.mechanisms.push_back({id.name, MechKind::barrier,
                                              thread_set(d.barrier_threads, "barrier"), id.loc});
                    break;
                case ast::Decl::Kind::queue:
                    out.mechanisms.push_back({id.name, MechKind::queue, {}, id.loc});
                    break;
                case ast::Decl::Kind::cond:
                    out.conds.push_back({id.name, id.loc});
                    break;
                case ast::Decl::Kind::var:
                    if (s.kind == NameKind::var && seen_vars.insert(id.name).second)
                        out.variables.push_back({id.name, s.loc, std::nullopt, std::nullopt});
                    break;
                default:
                    break;
                }
            }
        }
        std::sort(out.threads.begin(), out.threads.end());
    }

    // group W = t1, t2, ...: distinct declared threads, at least one (the thesis' ⊔_{t∈W}).
    void declare_group(const ast::Decl& d, CompiledSpec& out) {
        const ast::Ident& w = d.names[0];
        if (d.members.empty())
            diags_.error(w.loc, fmt::format("group '{}' needs at least one thread", w.name));
        std::vector<std::string>& members = groups_[w.name];
        std::set<std::string> seen;
        for (const ast::Ident& id : d.members) {
            if (!expect(id, {NameKind::thread}, "thread"))
                continue;
            if (!seen.insert(id.name).second) {
                diags_.error(id.loc, fmt::format("thread '{}' appears twice in group '{}'", id.name,
                                                 w.name));
                continue;
            }
            members.push_back(id.name);
        }
        std::vector<std::string> sorted = members;
        std::sort(sorted.begin(), sorted.end());
        out.groups.push_back({w.name, std::move(sorted), w.loc});
    }

    // ---- lookups ----
    // Resolves `id` as `want`; reports an undeclared name or one of the wrong kind.
    bool expect(const ast::Ident& id, std::initializer_list<NameKind> want, const char* role) {
        auto it = symbols_.find(id.name);
        if (it == symbols_.end()) {
            diags_.error(id.loc, fmt::format("use of undeclared {} '{}'", role, id.name));
            return false;
        }
        if (std::find(want.begin(), want.end(), it->second.kind) == want.end()) {
            diags_.error(id.loc, fmt::format("'{}' is {}, not {}", id.name,
                                             describe(it->second.kind), role_article(role)));
            diags_.note(it->second.loc, fmt::format("'{}' is declared here", id.name));
            return false;
        }
        return true;
    }
    static std::string role_article(const char* role) {
        std::string r = role;
        bool vowel = !r.empty() && std::string("aeiou").find(r[0]) != std::string::npos;
        return (vowel ? "an " : "a ") + r;
    }

    // A list of distinct declared threads, sorted; a group stands for its threads. Reports
    // unknown and repeated ones (also those a group brings in twice).
    std::vector<std::string> thread_set(const std::vector<ast::Ident>& ids, const char* where,
                                        bool groups = true) {
        std::vector<std::string> out;
        std::set<std::string> seen;
        for (const ast::Ident& id : ids) {
            if (!expect(id, {NameKind::thread, NameKind::group}, "thread"))
                continue;
            if (symbols_.at(id.name).kind == NameKind::group) {
                if (!groups) {
                    diags_.error(id.loc, fmt::format("'{}' is a group, not a thread; did you mean "
                                                     "{}(each {})?",
                                                     id.name, where, id.name));
                    continue;
                }
                for (const std::string& t : groups_[id.name]) {
                    if (!seen.insert(t).second) {
                        diags_.error(id.loc, fmt::format("thread '{}' appears twice in {} (group "
                                                         "'{}' has it)",
                                                         t, where, id.name));
                        continue;
                    }
                    out.push_back(t);
                }
                continue;
            }
            if (!seen.insert(id.name).second) {
                diags_.error(id.loc,
                             fmt::format("thread '{}' appears twice in {}", id.name, where));
                continue;
            }
            out.push_back(id.name);
        }
        std::sort(out.begin(), out.end());
        return out;
    }
    // The threads of a list as they stand (groups expanded), sorted; for terms already checked.
    std::vector<std::string> threads_of(const std::vector<ast::Ident>& ids) {
        std::vector<std::string> out;
        for (const ast::Ident& id : ids) {
            auto it = groups_.find(id.name);
            if (it == groups_.end())
                out.push_back(id.name);
            else
                out.insert(out.end(), it->second.begin(), it->second.end());
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }

    // ---- disciplines ----
    // Named disciplines must not refer to themselves, directly or not (they are expanded as
    // fresh copies, so a cycle would be infinite).
    void check_recursion(const std::string& name) {
        std::vector<std::string> stack;
        visit_names(name, stack);
    }
    void visit_names(const std::string& name, std::vector<std::string>& stack) {
        if (done_.count(name))
            return;
        auto it = symbols_.find(name);
        if (it == symbols_.end() || it->second.kind != NameKind::discipline)
            return;
        auto pos = std::find(stack.begin(), stack.end(), name);
        if (pos != stack.end()) {
            std::vector<std::string> cycle(pos, stack.end());
            cycle.push_back(name);
            recursive_.insert(name);
            diags_.error(it->second.loc, fmt::format("discipline '{}' is recursive ({})", name,
                                                     fmt::join(cycle, " -> ")));
            return;
        }
        stack.push_back(name);
        collect_refs(*it->second.decl->disc,
                     [&](const std::string& ref) { visit_names(ref, stack); });
        stack.pop_back();
        done_.insert(name);
    }
    template <class F>
    void collect_refs(const ast::Disc& d, F&& f) {
        if (d.kind == ast::Disc::Kind::name)
            f(d.name.name);
        if (d.lhs)
            collect_refs(*d.lhs, f);
        if (d.rhs)
            collect_refs(*d.rhs, f);
    }

    // Name, kind and arity checks on a discipline term, reported once per written term.
    void check_disc(const ast::Disc& d) {
        switch (d.kind) {
        case ast::Disc::Kind::ex:
            if (d.threads.size() != 1)
                diags_.error(d.loc, d.threads.empty()
                                        ? std::string("EX needs exactly one thread")
                                        : fmt::format("EX takes exactly one thread, not {}; "
                                                      "use RS(...) for read-shared access",
                                                      d.threads.size()));
            thread_set(d.threads, "EX", false);
            break;
        case ast::Disc::Kind::rs:
            if (d.threads.empty())
                diags_.error(d.loc, "RS needs at least one thread");
            thread_set(d.threads, "RS");
            break;
        case ast::Disc::Kind::lock:
            expect(d.name, {NameKind::lock}, "lock");
            if (d.threads.empty())
                diags_.error(d.loc, "LOCK needs at least one thread");
            thread_set(d.threads, "LOCK");
            break;
        case ast::Disc::Kind::each:
            if (auto it = symbols_.find(d.name.name);
                it != symbols_.end() && it->second.kind == NameKind::thread)
                diags_.error(d.name.loc, fmt::format("'{}' is a thread, not a group; did you mean "
                                                     "EX({})?",
                                                     d.name.name, d.name.name));
            else
                expect(d.name, {NameKind::group}, "group");
            break;
        case ast::Disc::Kind::name:
            if (auto it = symbols_.find(d.name.name);
                it != symbols_.end() && it->second.kind == NameKind::thread) {
                diags_.error(d.name.loc, fmt::format("'{}' is a thread, not a discipline; did you "
                                                     "mean EX({})?",
                                                     d.name.name, d.name.name));
            } else {
                expect(d.name, {NameKind::discipline}, "discipline");
            }
            break;
        case ast::Disc::Kind::seq:
        case ast::Disc::Kind::loop:
            check_label(d.label);
            break;
        case ast::Disc::Kind::disj:
            break;
        }
        if (d.lhs)
            check_disc(*d.lhs);
        if (d.rhs)
            check_disc(*d.rhs);
    }

    void check_label(const ast::Label& l) {
        switch (l.kind) {
        case ast::Label::Kind::named:
            expect(l.name,
                   {NameKind::lock, NameKind::volatile_, NameKind::barrier, NameKind::queue},
                   "mechanism");
            break;
        case ast::Label::Kind::value:
            // Only a volatile carries a value (thesis §5.1, vflag).
            expect(l.name, {NameKind::volatile_}, "volatile");
            if (!parse_value(l.value.name))
                diags_.error(l.value.loc, fmt::format("value {} does not fit in a signed 64-bit "
                                                      "integer",
                                                      l.value.name));
            break;
        case ast::Label::Kind::fork:
        case ast::Label::Kind::join: {
            const char* what = l.kind == ast::Label::Kind::fork ? "fork" : "join";
            bool ok = expect(l.thread, {NameKind::thread}, "thread");
            auto set = thread_set(l.threads, what);
            if (ok && std::binary_search(set.begin(), set.end(), l.thread.name))
                diags_.warning(
                    l.loc,
                    fmt::format("{}({}{}{}) includes its own thread '{}': no "
                                "well-formed trace can ever send it",
                                what, l.kind == ast::Label::Kind::fork ? l.thread.name + "->" : "",
                                fmt::join(set, ","),
                                l.kind == ast::Label::Kind::join ? "->" + l.thread.name : "",
                                l.thread.name));
            break;
        }
        default:
            break;
        }
    }

    // ---- SFG construction (Figures 4.3/4.4) ----
    // Fails (returns nothing) where an error was already reported for the term.
    std::optional<EdgeLabel> resolve_label(const ast::Label& l) {
        EdgeLabel z;
        switch (l.kind) {
        case ast::Label::Kind::bare_fork:
            z.kind = EdgeLabel::Kind::bare_fork;
            return z;
        case ast::Label::Kind::bare_join:
            z.kind = EdgeLabel::Kind::bare_join;
            return z;
        case ast::Label::Kind::named: {
            auto it = symbols_.find(l.name.name);
            if (it == symbols_.end())
                return std::nullopt;
            const ast::Decl& d = *it->second.decl;
            switch (it->second.kind) {
            case NameKind::lock:
                z.mech = {MechKind::lock, l.name.name, "", {}};
                return z;
            case NameKind::volatile_:
                z.mech = {MechKind::volatile_, l.name.name, "", {}};
                return z;
            case NameKind::barrier:
                z.mech = {MechKind::barrier, l.name.name, "", threads_of(d.barrier_threads)};
                return z;
            case NameKind::queue:
                z.mech = {MechKind::queue, l.name.name, "", {}};
                return z;
            default:
                return std::nullopt;
            }
        }
        case ast::Label::Kind::value: {
            auto k = parse_value(l.value.name);
            if (!k)
                return std::nullopt;
            z.mech = {MechKind::volatile_, l.name.name, "", {}, *k};
            return z;
        }
        case ast::Label::Kind::fork:
        case ast::Label::Kind::join:
            z.mech = {l.kind == ast::Label::Kind::fork ? MechKind::fork : MechKind::join, "",
                      l.thread.name, threads_of(l.threads)};
            return z;
        }
        return std::nullopt;
    }

    static std::optional<std::int64_t> parse_value(const std::string& text) {
        std::int64_t k = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
        if (ec != std::errc() || end != text.data() + text.size())
            return std::nullopt;
        return k;
    }

    std::optional<SfgBuilder::Fragment> build(const ast::Disc& d, SfgBuilder& b, int depth) {
        switch (d.kind) {
        case ast::Disc::Kind::ex:
            return b.base({ModeKind::EX, threads_of(d.threads)}, d.loc);
        case ast::Disc::Kind::rs:
            return b.base({ModeKind::RS, threads_of(d.threads)}, d.loc);
        case ast::Disc::Kind::lock:
            // LOCK_m(T) (thesis §5.2): Tid = T, so it composes like RS(T).
            return b.base({ModeKind::LOCK, threads_of(d.threads), d.name.name}, d.loc);
        case ast::Disc::Kind::each: {
            // EX(each W) = EX(t1) ⊔ EX(t2) ⊔ ..., in the order W lists its threads.
            std::optional<SfgBuilder::Fragment> f;
            for (const std::string& t : groups_.at(d.name.name)) {
                auto g = b.base({ModeKind::EX, {t}}, d.loc);
                f = f ? b.disjunction(*f, g) : g;
            }
            return f;
        }
        case ast::Disc::Kind::name: {
            // A named discipline used twice gives two disjoint copies of its modes.
            const std::string& n = d.name.name;
            if (recursive_.count(n) || depth > max_expansion_depth_)
                return std::nullopt;
            const Symbol& s = symbols_.at(n);
            if (b.over_budget())
                return std::nullopt;
            return build(*s.decl->disc, b, depth + 1);
        }
        case ast::Disc::Kind::disj: {
            auto l = build(*d.lhs, b, depth);
            auto r = build(*d.rhs, b, depth);
            if (!l || !r)
                return std::nullopt;
            return b.disjunction(*l, *r);
        }
        case ast::Disc::Kind::seq: {
            auto l = build(*d.lhs, b, depth);
            auto r = build(*d.rhs, b, depth);
            auto z = resolve_label(d.label);
            if (!l || !r || !z)
                return std::nullopt;
            ConnectReport rep;
            auto f = b.sequence(*l, *z, *r, d.label.loc, rep);
            report_connect(d, "sequence", rep, b);
            return f;
        }
        case ast::Disc::Kind::loop: {
            auto l = build(*d.lhs, b, depth);
            auto z = resolve_label(d.label);
            if (!l || !z)
                return std::nullopt;
            ConnectReport rep;
            auto f = b.loop(*l, *z, d.label.loc, rep);
            report_connect(d, "loop", rep, b);
            return f;
        }
        }
        return std::nullopt;
    }

    void report_connect(const ast::Disc& d, const char* op, const ConnectReport& rep,
                        const SfgBuilder& b) {
        const SfgGraph& g = b.graph();
        auto mode = [&](std::uint32_t v) { return g[v].mode.label(); };
        std::string label = label_text(d.label);
        // One operator can drop |O| x |I| edges: the first few say why, a count says the rest.
        for (const auto& drop : rep.dropped)
            diags_.warning(d.label.loc,
                           fmt::format("edge {} -{}-> {} is left out: {}", mode(drop.from), label,
                                       mode(drop.to), drop.reason));
        if (rep.dropped_beyond > 0)
            diags_.warning(d.label.loc, fmt::format("{} more edges of this {} are left out",
                                                    rep.dropped_beyond, op));
        if (rep.candidates > 0 && rep.valid == 0)
            diags_.warning(d.label.loc, fmt::format("this {} adds no edge: no out-mode can reach "
                                                    "an in-mode through '{}'",
                                                    op, label));
        // Explicit fork/join labels were already warned about once, at the label.
        if (d.label.kind != ast::Label::Kind::fork && d.label.kind != ast::Label::Kind::join)
            for (const auto& e : rep.self_sync)
                diags_.warning(d.label.loc,
                               fmt::format("edge {} -{}-> {} includes its own thread: no "
                                           "well-formed trace can ever send it",
                                           mode(e.from), e.mech.label(), mode(e.to)));
    }

    std::string label_text(const ast::Label& l) {
        switch (l.kind) {
        case ast::Label::Kind::named:
            return l.name.name;
        case ast::Label::Kind::value:
            return fmt::format("{}=={}", l.name.name, parse_value(l.value.name).value_or(0));
        case ast::Label::Kind::bare_fork:
            return "fork";
        case ast::Label::Kind::bare_join:
            return "join";
        default: {
            std::vector<std::string> ts = threads_of(l.threads);
            return l.kind == ast::Label::Kind::fork
                       ? fmt::format("fork({}->{})", l.thread.name, fmt::join(ts, ","))
                       : fmt::format("join({}->{})", fmt::join(ts, ","), l.thread.name);
        }
        }
    }

    // A builder with what is left of the spec's budget: the limits bound all variables together.
    SfgBuilder builder() const {
        return SfgBuilder(limits_.modes - used_modes_, limits_.edges - used_candidates_,
                          limits_.family_from);
    }
    // Charges a finished builder to the budget; false (after the error) when it ran over.
    bool charge(const SfgBuilder& b, const std::string& what, SourceLoc where) {
        used_modes_ += boost::num_vertices(b.graph());
        used_candidates_ += b.candidates();
        if (!b.over_budget())
            return true;
        const SfgBuilder::Overrun& o = *b.overrun();
        if (o.what == SfgBuilder::Overrun::What::modes)
            diags_.error(where, fmt::format("{} expands to more than {} access modes{}; raise "
                                            "the limit with --max-modes",
                                            what, limits_.modes,
                                            used_modes_ > boost::num_vertices(b.graph())
                                                ? " (counting the variables before it)"
                                                : ""));
        else
            diags_.error(o.loc, fmt::format("{} needs more than {} candidate edges{} at this "
                                            "operator; raise the limit with --max-edges",
                                            what, limits_.edges,
                                            used_candidates_ > b.candidates()
                                                ? " (counting the variables before it)"
                                                : ""));
        return false;
    }

    void build_variables(CompiledSpec& out) {
        for (CompiledVariable& v : out.variables) {
            const ast::Decl* d = symbols_.at(v.name).decl;
            if (!d->disc)
                continue;
            if (diags_.has_errors())
                continue; // names or arities are wrong, or a bound was hit: stop building
            SfgBuilder b = builder();
            auto f = build(*d->disc, b, 0);
            if (!charge(b, fmt::format("the discipline of '{}'", v.name), v.loc) || !f)
                continue;
            Sfg g = std::move(b).finish(*f);
            for (std::uint32_t m : g.unreachable_modes())
                diags_.warning(g.graph[m].loc,
                               fmt::format("mode {} of variable '{}' is unreachable from every "
                                           "in-mode",
                                           g.mode(m).label(), v.name));
            v.sfg = to_discipline(std::move(g));
        }
        // Disciplines no variable uses are still built once, so their warnings are shown.
        std::vector<const ast::Decl*> unused;
        for (const ast::Decl& d : spec_.decls)
            if (d.kind == ast::Decl::Kind::discipline && !referenced_.count(d.names[0].name) &&
                symbols_.at(d.names[0].name).decl == &d)
                unused.push_back(&d);
        for (const ast::Decl* d : unused) {
            diags_.warning(d->names[0].loc,
                           fmt::format("discipline '{}' is never used", d->names[0].name));
            if (!diags_.has_errors() && !recursive_.count(d->names[0].name)) {
                SfgBuilder b = builder();
                build(*d->disc, b, 0);
                charge(b, fmt::format("the discipline '{}'", d->names[0].name), d->names[0].loc);
            }
        }
    }

    const ast::Spec& spec_;
    Diagnostics& diags_;
    const CompileLimits& limits_;
    std::size_t used_modes_ = 0, used_candidates_ = 0;
    std::map<std::string, Symbol> symbols_;
    std::set<std::string> done_, recursive_, referenced_;
    std::map<std::string, std::vector<std::string>> groups_; // threads as the group lists them
    static constexpr int max_expansion_depth_ = 10000;
};

} // namespace

CompiledSpec analyze(const ast::Spec& spec, const std::string& file_name, Diagnostics& diags,
                     const CompileLimits& limits) {
    return Sema(spec, diags, limits).run(file_name);
}

} // namespace sfg
