// Several traces into one spec (docs/infer.md): their names must agree on what each is; each
// variable's chains, one per distinct shape, are joined by ⊔ (a walk takes one of them).
#include "chain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace sfg::infer {

namespace {

constexpr std::string_view keywords[] = {
    "threads", "lock", "volatile", "barrier", "discipline",    "var",  "program", "thread",
    "EX",      "RS",   "LOCK",     "fork",    "join",          "init", "let",     "read",
    "write",   "acq",  "rel",      "await",   "assert",        "if",   "else",    "while",
    "repeat",  "skip", "queue",    "group",   "deterministic", "each", "cond"};

bool is_identifier(const std::string& s) {
    auto letter = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    };
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (s.empty() || !letter(s[0]))
        return false;
    return std::all_of(s.begin(), s.end(), [&](char c) { return letter(c) || digit(c); });
}

std::string label_key(const Label& l) {
    return fmt::format("{}:{}:{}", static_cast<int>(l.kind), l.name,
                       l.value ? std::to_string(*l.value) : "");
}

// A chain's shape as tokens, element, label, element, ...: one chain's shape begins another's
// when its tokens are a prefix of the other's (Element::same_shape, and the labels between).
std::vector<std::string> shape(const Chain& c) {
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < c.elements.size(); ++i) {
        const Element& el = c.elements[i];
        std::string t = std::to_string(static_cast<int>(el.kind));
        for (const Mode& m : el.modes)
            t += fmt::format("|{}:{}:{}", static_cast<int>(m.kind), fmt::join(m.threads, ","),
                             m.lock);
        for (const Label& l : el.inner)
            t += "|" + label_key(l);
        if (el.kind != Element::Kind::phase)
            t += "|^" + label_key(el.back);
        tokens.push_back(std::move(t));
        if (i + 1 < c.elements.size())
            tokens.push_back(label_key(c.labels[i]));
    }
    return tokens;
}

bool begins(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// A chain whose shape begins another's adds no walk: it goes, its traces to the first kept
// chain (in the order of shapes) that it begins; of equal shapes the first trace's is kept. The
// shapes are sorted, not compared pairwise: a shape's extensions follow it in that order.
void drop_prefixes(std::vector<Chain>& chains) {
    const std::size_t n = chains.size();
    std::vector<std::vector<std::string>> keys;
    for (const Chain& c : chains)
        keys.push_back(shape(c));
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(keys[a], a) < std::tie(keys[b], b);
    });
    std::vector<std::size_t> into(n, n); // n: kept
    std::size_t next_kept = n;           // in `order`, after the group at hand
    for (std::size_t end = n; end > 0;) {
        std::size_t start = end - 1; // the group of equal shapes [start, end)
        while (start > 0 && keys[order[start - 1]] == keys[order[end - 1]])
            --start;
        const bool extended = end < n && begins(keys[order[start]], keys[order[end]]);
        const std::size_t target = extended ? next_kept : order[start];
        for (std::size_t p = start; p < end; ++p)
            if (order[p] != target)
                into[order[p]] = target;
        if (!extended)
            next_kept = order[start];
        end = start;
    }
    for (std::size_t i = 0; i < n; ++i)
        if (into[i] != n)
            chains[into[i]].traces.insert(chains[into[i]].traces.end(), chains[i].traces.begin(),
                                          chains[i].traces.end());
    std::vector<Chain> kept;
    for (std::size_t i = 0; i < n; ++i)
        if (into[i] == n)
            kept.push_back(std::move(chains[i]));
    chains = std::move(kept);
}

RaceNote race_note(const std::string& trace, const Symbols& syms, const Finding& f) {
    return RaceNote{trace, syms.threads.name(f.access.thread), std::string(spelling(f.access.op)),
                    f.access.event, f.with ? f.with->event : 0};
}

} // namespace

std::string InferError::to_string() const {
    return fmt::format("{}: error: {}", where.empty() ? "sfgc infer" : where, message);
}

const char* to_string(DeclKind k) {
    switch (k) {
    case DeclKind::thread:
        return "thread";
    case DeclKind::lock:
        return "lock";
    case DeclKind::volatile_:
        return "volatile";
    case DeclKind::barrier:
        return "barrier";
    case DeclKind::queue:
        return "queue";
    case DeclKind::variable:
        break;
    }
    return "variable";
}

struct Inferrer::Impl {
    struct Name {
        DeclKind kind;
        std::string where; // the trace or spec line that first declared it
        bool kept = false; // from --spec
    };
    std::map<std::string, Name> names;
    std::map<std::string, std::set<std::string>> barrier_threads;
    Declarations decls;
    std::vector<InferredVariable> vars;
    std::vector<std::set<std::string>> var_threads; // by vars' index: InferredVariable::threads
    std::map<std::string, std::size_t> var_index;
    std::size_t traces = 0;

    std::optional<InferError> declare(const std::string& name, DeclKind kind,
                                      const std::string& where, bool kept);
    std::optional<InferError> add_barriers(const std::string& trace, const TraceRecorder& rec,
                                           const Symbols& syms);
    void add_variable(const std::string& trace, const TraceRecorder& rec, const Symbols& syms,
                      ObjId x, const Finding* race);
    void add_groups();
};

std::optional<InferError> Inferrer::Impl::declare(const std::string& name, DeclKind kind,
                                                  const std::string& where, bool kept) {
    if (!is_identifier(name) ||
        std::find(std::begin(keywords), std::end(keywords), name) != std::end(keywords))
        return InferError{"", fmt::format("the {} '{}' of {} cannot be named in a .sfg spec (a "
                                          "name is [A-Za-z_][A-Za-z0-9_]* and not a keyword)",
                                          to_string(kind), name, where)};
    const auto [it, fresh] = names.try_emplace(name, Name{kind, where, kept});
    if (fresh) {
        std::vector<std::string>* list = kind == DeclKind::thread      ? &decls.threads
                                         : kind == DeclKind::lock      ? &decls.locks
                                         : kind == DeclKind::volatile_ ? &decls.volatiles
                                         : kind == DeclKind::queue     ? &decls.queues
                                                                       : nullptr;
        if (list)
            list->push_back(name);
        if (kind == DeclKind::barrier)
            barrier_threads[name];
        return std::nullopt;
    }
    if (it->second.kind == kind)
        return std::nullopt;
    if (it->second.kept)
        return InferError{it->second.where,
                          fmt::format("'{}' is declared a {} here, but {} uses it as a {}", name,
                                      to_string(it->second.kind), where, to_string(kind))};
    return InferError{"", fmt::format("'{}' is a {} in {} but a {} in {}", name,
                                      to_string(it->second.kind), it->second.where, to_string(kind),
                                      where)};
}

std::optional<InferError> Inferrer::Impl::add_barriers(const std::string& trace,
                                                       const TraceRecorder& rec,
                                                       const Symbols& syms) {
    for (ObjId b = 0; b < rec.barrier_threads.size(); ++b) {
        const std::string& name = syms.barriers.name(b);
        std::set<std::string>& users = barrier_threads[name];
        for (ThreadId t : rec.barrier_threads[b]) {
            const std::string& thread = syms.threads.name(t);
            if (names.at(name).kept && !users.count(thread))
                return InferError{names.at(name).where,
                                  fmt::format("barrier {} is declared without thread {}, which "
                                              "passes it in {}",
                                              name, thread, trace)};
            users.insert(thread);
        }
    }
    return std::nullopt;
}

// Costs what the variable's runs cost: its threads and its race are looked up, not searched.
void Inferrer::Impl::add_variable(const std::string& trace, const TraceRecorder& rec,
                                  const Symbols& syms, ObjId x, const Finding* race) {
    const std::string& name = syms.vars.name(x);
    const auto [it, fresh] = var_index.try_emplace(name, vars.size());
    if (fresh) {
        vars.push_back({name, 0, {}, {}, {}, {}, {}, {}, {}});
        var_threads.emplace_back();
    }
    InferredVariable& v = vars[it->second];
    std::set<std::string>& known = var_threads[it->second];
    if (x >= rec.runs.size() || rec.runs[x].empty())
        return;
    const RunLog& runs = rec.runs[x];
    v.traces.push_back(trace);
    if (race && !v.race)
        v.race = race_note(trace, syms, *race);
    RunTotals totals;
    std::optional<std::variant<Chain, std::string>> c;
    if (v.race || v.unordered)
        totals = run_totals(runs);
    else
        c = infer_chain(runs, rec, syms, x, &totals);
    v.accesses += totals.accesses;
    for (ThreadId t : totals.threads)
        if (const std::string& thread = syms.threads.name(t); known.insert(thread).second)
            v.threads.push_back(thread);
    if (!c)
        return;
    if (auto* why = std::get_if<std::string>(&*c)) {
        v.unordered = fmt::format("{} in {}", *why, trace);
        return;
    }
    Chain& chain = std::get<Chain>(*c);
    chain.traces = {trace};
    v.chains.push_back(std::move(chain));
}

std::optional<InferError> Inferrer::add_trace(const std::string& trace, const TraceRecorder& rec,
                                              const Symbols& syms,
                                              const std::vector<Finding>& races) {
    ++impl_->traces;
    const std::pair<const SymbolTable*, DeclKind> tables[] = {
        {&syms.threads, DeclKind::thread},      {&syms.locks, DeclKind::lock},
        {&syms.volatiles, DeclKind::volatile_}, {&syms.barriers, DeclKind::barrier},
        {&syms.queues, DeclKind::queue},        {&syms.vars, DeclKind::variable}};
    for (const auto& [table, kind] : tables)
        for (std::uint32_t i = 0; i < table->size(); ++i)
            if (auto err = impl_->declare(table->name(i), kind, trace, false))
                return err;
    if (auto err = impl_->add_barriers(trace, rec, syms))
        return err;
    std::vector<const Finding*> race_of(syms.vars.size()); // hb's first race of each variable
    for (const Finding& f : races)
        if (const ObjId x = syms.vars.find(f.var); x != no_object && !race_of[x])
            race_of[x] = &f;
    for (ObjId x = 0; x < syms.vars.size(); ++x)
        impl_->add_variable(trace, rec, syms, x, race_of[x]);
    return std::nullopt;
}

void Inferrer::add_races(const std::string& trace, const Symbols& syms,
                         const std::vector<Finding>& races) {
    for (const Finding& f : races) {
        const auto it = impl_->var_index.find(f.var);
        if (it == impl_->var_index.end() || impl_->vars[it->second].race)
            continue;
        impl_->vars[it->second].race = race_note(trace, syms, f);
    }
}

bool Inferrer::races_matter() const {
    return std::any_of(impl_->vars.begin(), impl_->vars.end(),
                       [](const InferredVariable& v) { return v.unordered && !v.race; });
}

Inferrer::Inferrer() : impl_(std::make_unique<Impl>()) {}
Inferrer::~Inferrer() = default;

void Inferrer::keep_declaration(std::string name, DeclKind kind, std::vector<std::string> threads,
                                std::string where) {
    impl_->declare(name, kind, where, true);
    if (kind == DeclKind::barrier)
        impl_->barrier_threads[name].insert(threads.begin(), threads.end());
}

void Inferrer::keep_group(std::string name, std::vector<std::string> threads) {
    std::sort(threads.begin(), threads.end());
    impl_->decls.groups.emplace_back(std::move(name), std::move(threads));
}

// Groups (docs/language.md, thread groups) where four or more threads behave alike: the threads
// of a loop of alternatives EX(t) (`[EX(each W)]^m` is the lock discipline of a pool of any
// size), and a set of threads that reads or locks alike in two or more modes (`RS(W)`). The
// thesis writes three threads out.
void Inferrer::Impl::add_groups() {
    std::map<std::vector<std::string>, int> uses;
    for (const InferredVariable& v : vars)
        for (const Chain& c : v.chains)
            for (const Element& el : c.elements) {
                const bool pool = el.kind == Element::Kind::alternative_loop &&
                                  std::all_of(el.modes.begin(), el.modes.end(),
                                              [](const Mode& m) { return m.kind == ModeKind::EX; });
                std::vector<std::string> ts;
                for (const Mode& m : el.modes) {
                    if (m.kind != ModeKind::EX && m.threads.size() >= 4)
                        ++uses[m.threads];
                    if (pool)
                        ts.push_back(m.threads[0]);
                }
                std::sort(ts.begin(), ts.end());
                if (ts.size() >= 4)
                    uses[ts] += 2;
            }
    for (const auto& [set, n] : uses) {
        const std::vector<std::string>& ts = set; // (Clang 14 captures no structured binding)
        if (n < 2 || std::any_of(decls.groups.begin(), decls.groups.end(),
                                 [&](const auto& g) { return g.second == ts; }))
            continue;
        std::string name = "W";
        for (int k = 2; names.count(name); ++k)
            name = fmt::format("W{}", k);
        names.try_emplace(name, Name{DeclKind::thread, "", false});
        decls.groups.emplace_back(name, ts);
    }
}

std::optional<InferError> Inferrer::finish() {
    Impl& m = *impl_;
    for (const auto& [name, users] : m.barrier_threads)
        m.decls.barriers.emplace_back(name, std::vector<std::string>(users.begin(), users.end()));
    for (InferredVariable& v : m.vars)
        drop_prefixes(v.chains);
    m.add_groups();
    for (InferredVariable& v : m.vars) {
        if (v.race || v.unordered || v.chains.empty())
            continue;
        auto text = [&](const Declarations& decls) {
            std::vector<std::string> alts;
            for (const Chain& c : v.chains) {
                const std::string one = render_chain(c, decls);
                alts.push_back(v.chains.size() > 1 && c.elements.size() > 1 ? "(" + one + ")"
                                                                            : one);
            }
            return fmt::format("{}", fmt::join(alts, " ⊔ "));
        };
        v.discipline = text(m.decls);
        v.expanded = text(Declarations{});
    }
    return std::nullopt;
}

const Declarations& Inferrer::declarations() const {
    return impl_->decls;
}
const std::vector<InferredVariable>& Inferrer::variables() const {
    return impl_->vars;
}
std::size_t Inferrer::trace_count() const {
    return impl_->traces;
}

} // namespace sfg::infer
