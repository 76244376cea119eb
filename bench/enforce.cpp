// Enforcement cost per sync op as the number of annotated variables grows (thesis §5.3).
//
// N variables x_i, each with its own lock discipline [EX(t0) ⊔ EX(t1)]^m_i (one Figure 4.11 net;
// the copies differ only in the lock). Two traces, both made of rounds
// "t0: acq(m) w(x) rel(m); t1: acq(m) w(x) rel(m)" (4 sync ops, 2 memory ops):
//   fixed       every round uses m_0 / x_0: the other N-1 variables are annotated but never
//               involved. This isolates the claim: a sync op must not pay for variables whose
//               nets do not mention its mechanism. Indexed: flat. Figure 5.2: linear.
//   round_robin round j uses m_(j mod N) / x_(j mod N): every variable is live, each op touches
//               one of them, in the order they were declared. Indexed: flat; each group's tables
//               are adjacent in two pools (runtime/src/enforce/one_token_groups.hpp), so
//               this order streams.
//   shuffled    the same rounds in a random order of variables: every op's state is a cache
//               miss once the N variables' state outgrows the caches (about 100 bytes each), so
//               growth here is the memory hierarchy's, not the algorithm's.
// Baseline: Figure 5.2's [SLOW SYNC] rule, implemented as cheaply as it allows (each variable
// first checks whether its lock is the op's), which still visits every variable on every sync op.
//
// Reported: per_sync_op = CPU time / sync ops (the round's memory ops are included in the time;
// they are O(1) in both).
//
// Barrier8: nets with several tokens (CandidateMarkings), the particle discipline of thesis
// Figure 4.5 with eight threads as in bench/live/particles8.sfg: p_i : [RS(t0..t7) ▷^b EX(t_i)]^b.
// Rounds: every thread reads every p_j, all pass barrier b, each t_i writes p_i, all pass b
// again; each group of ops in a random order of the threads (seeded), so that the candidate sets
// (up to 3^8 markings) differ from round to round. One iteration = the whole trace from M0, with
// the candidate sets as products (Arg 2, the default, docs/enforcement.md "Candidate sets as
// products"), explicit and memoized (1, "Candidate sets as states"), or explicit (0).
// BarrierK: the same with k threads (Arg), as products.
//
// Pool: a thread pool under the thesis' lock discipline written for it, [EX(each W)]^m with W
// the n workers (Arg): n modes, an edge m between every two of them (n^2; past 64 workers one
// edge family, as the compiler keeps them, docs/language.md). Rounds "w: acq(m)
// w(x) rel(m)" by a worker drawn at random (seeded), 3x10^5 events; per_event = CPU time /
// events. The one variable's group has n rows (docs/enforcement.md, "Per-event cost").
#include "sfg/runtime/core/petri_net.hpp"
#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/event.hpp"
#include "sfg/runtime/net.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace sfg;

// N([EX(t0) ⊔ EX(t1)]^m), thesis Figure 4.11, built here so that the benchmark does not depend
// on the front end: modes EX(t0), EX(t1); edges a -m-> b for all four pairs; per edge
// PostSnd[s:e], PreRcv[t:e], snd[s:e], sync[e], rcv[t:e]; M0 = { {Acc[t0:0]}, {Acc[t1:1]} }.
const Net& template_net() {
    static const Net net = [] {
        Net n;
        n.modes = {{ModeKind::EX, {"t0"}}, {ModeKind::EX, {"t1"}}};
        const std::string t[2] = {"t0", "t1"};
        for (std::uint32_t a = 0; a < 2; ++a)
            n.places.push_back({"Acc[" + t[a] + ":" + std::to_string(a) + "]", PlaceKind::Acc, t[a],
                                a, std::nullopt});
        for (std::uint32_t a = 0; a < 2; ++a)
            for (std::uint32_t b = 0; b < 2; ++b) {
                const auto e = static_cast<std::uint32_t>(n.edges.size());
                const std::string es = "e" + std::to_string(e);
                n.edges.push_back({a, b, {MechKind::lock, "m", "", {}}});
                const auto ps = static_cast<std::uint32_t>(n.places.size());
                n.places.push_back({"PostSnd[" + t[a] + ":" + es + "]", PlaceKind::PostSnd, t[a],
                                    std::nullopt, e});
                const std::uint32_t pr = ps + 1;
                n.places.push_back(
                    {"PreRcv[" + t[b] + ":" + es + "]", PlaceKind::PreRcv, t[b], std::nullopt, e});
                n.transitions.push_back(
                    {"snd[" + t[a] + ":" + es + "]", TransitionKind::snd, t[a], e, {a}, {ps}});
                n.transitions.push_back(
                    {"sync[" + es + "]", TransitionKind::sync, "", e, {ps}, {pr}});
                n.transitions.push_back(
                    {"rcv[" + t[b] + ":" + es + "]", TransitionKind::rcv, t[b], e, {pr}, {b}});
            }
        n.initial_markings = {{0}, {1}};
        return n;
    }();
    return net;
}

Net net_with_lock(const std::string& lock) {
    Net n = template_net();
    for (ModeEdge& e : n.edges)
        e.mech.name = lock;
    return n;
}

// Figure 5.2: a candidate set per variable, every sync op applied to every variable.
class NaiveEnforcer : public Analysis {
public:
    NaiveEnforcer(const Net& tmpl, const Symbols& syms) : net_(tmpl) {
        for (const Transition& r : net_.transitions)
            tr_thread_.push_back(r.kind == TransitionKind::sync ? no_object
                                                                : syms.threads.find(r.thread));
        for (const Place& p : net_.places)
            acc_thread_.push_back(p.kind == PlaceKind::Acc ? syms.threads.find(p.thread)
                                                           : no_object);
    }
    void add_variable(ObjId lock) { vars_.push_back({lock, net_.initial_markings}); }
    void on_event(const Event& e, const Symbols&) override {
        if (is_memory(e.op)) { // [WRITE]/[READ]: only x's marking
            V& v = vars_[e.target];
            std::erase_if(v.cands, [&](const Marking& m) { return !permits(m, e); });
            violations_ += v.cands.empty();
            return;
        }
        const auto role = e.op == Op::release ? TransitionKind::snd : TransitionKind::rcv;
        for (V& v : vars_) { // [SLOW SYNC]: ∀x. M[x] ⇒o M'[x]
            if (v.lock != e.target)
                continue; // [SKIP] is the only rule that applies to x
            next_ = v.cands;
            for (std::size_t r = 0; r < net_.transitions.size(); ++r) {
                if (net_.transitions[r].kind != role || tr_thread_[r] != e.thread)
                    continue;
                for (const Marking& m : v.cands)
                    if (net_.enabled(m, r))
                        add(close(net_.fire(m, r)));
            }
            v.cands.swap(next_);
        }
    }
    std::size_t violations() const { return violations_; }

private:
    struct V {
        ObjId lock;
        std::vector<Marking> cands;
    };
    bool permits(const Marking& m, const Event& e) const {
        for (std::uint32_t p : m) // the template's modes are all EX
            if (acc_thread_[static_cast<std::size_t>(p)] == e.thread)
                return true;
        return false;
    }
    Marking close(Marking m) const { // [SYNC]
        for (std::size_t r = 0; r < net_.transitions.size(); ++r)
            if (net_.transitions[r].kind == TransitionKind::sync && net_.enabled(m, r))
                return net_.fire(m, r);
        return m;
    }
    void add(Marking m) {
        if (std::find(next_.begin(), next_.end(), m) == next_.end())
            next_.push_back(std::move(m));
    }

    Net net_;
    std::vector<ObjId> tr_thread_, acc_thread_;
    std::vector<V> vars_;
    std::vector<Marking> next_;
    std::size_t violations_ = 0;
};

// Symbols and events: threads t0 = 0, t1 = 1; x_i = var i; m_i = lock i.
struct Workload {
    Symbols syms;
    std::vector<Event> events;
    std::size_t sync_per_round = 4;
};

enum class Order { fixed, round_robin, shuffled };

Workload make_workload(std::size_t n, Order order) {
    Workload w;
    w.syms.threads.intern("t0");
    w.syms.threads.intern("t1");
    for (std::size_t i = 0; i < n; ++i) {
        w.syms.vars.intern("x" + std::to_string(i));
        w.syms.locks.intern("m" + std::to_string(i));
    }
    const std::size_t rounds = order == Order::fixed ? 1 : n;
    std::vector<ObjId> var(rounds);
    for (std::size_t j = 0; j < rounds; ++j)
        var[j] = static_cast<ObjId>(j);
    if (order == Order::shuffled)
        std::shuffle(var.begin(), var.end(), std::mt19937_64(42));
    std::uint64_t number = 0;
    for (std::size_t j = 0; j < rounds; ++j) {
        const ObjId x = var[j];
        for (ThreadId t : {ThreadId{0}, ThreadId{1}}) {
            for (Op op : {Op::acquire, Op::write, Op::release}) {
                Event e;
                e.number = ++number;
                e.thread = t;
                e.op = op;
                e.target = x;
                w.events.push_back(e);
            }
        }
    }
    return w;
}

constexpr std::size_t batch = 600; // events per benchmark iteration (100 rounds)

template <class MakeAnalysis>
void run(benchmark::State& state, Order order, MakeAnalysis make, bool warm_up) {
    const auto n = static_cast<std::size_t>(state.range(0));
    Workload w = make_workload(n, order);
    auto analysis = make(n, w.syms);
    // Warm up: one pass over the trace, so every variable is in its steady state (too slow for
    // the baseline's round robin at 100,000 variables, whose cost is the scan over them anyway).
    if (warm_up)
        for (const Event& e : w.events)
            analysis->on_event(e, w.syms);
    std::size_t cursor = 0, events = 0;
    for (auto _ : state) {
        for (std::size_t k = 0; k < batch; ++k) {
            analysis->on_event(w.events[cursor], w.syms);
            if (++cursor == w.events.size())
                cursor = 0;
        }
        events += batch;
    }
    // CPU seconds per sync op, shown with an SI prefix (e.g. "45n").
    const double sync_ops = static_cast<double>(events) * 4.0 / 6.0;
    state.counters["per_sync_op"] =
        benchmark::Counter(sync_ops, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["vars"] = static_cast<double>(n);
}

auto make_indexed = [](std::size_t n, const Symbols&) {
    auto enf = std::make_unique<Enforcer>();
    for (std::size_t i = 0; i < n; ++i)
        enf->add_variable("x" + std::to_string(i), net_with_lock("m" + std::to_string(i)));
    return enf;
};

auto make_naive = [](std::size_t n, const Symbols& syms) {
    auto naive = std::make_unique<NaiveEnforcer>(template_net(), syms);
    for (std::size_t i = 0; i < n; ++i)
        naive->add_variable(static_cast<ObjId>(i));
    return naive;
};

void BM_Indexed_Fixed(benchmark::State& s) {
    run(s, Order::fixed, make_indexed, true);
}
void BM_Indexed_RoundRobin(benchmark::State& s) {
    run(s, Order::round_robin, make_indexed, true);
}
void BM_Indexed_Shuffled(benchmark::State& s) {
    run(s, Order::shuffled, make_indexed, true);
}
void BM_Fig52_Fixed(benchmark::State& s) {
    run(s, Order::fixed, make_naive, true);
}
void BM_Fig52_RoundRobin(benchmark::State& s) {
    run(s, Order::round_robin, make_naive, false);
}

// Threads t0..tk-1 = 0..k-1, variables p0..pk-1 = 0..k-1, barrier b = 0.
Workload make_barrier_workload(std::size_t rounds, int k) {
    Workload w;
    for (int i = 0; i < k; ++i) {
        w.syms.threads.intern("t" + std::to_string(i));
        w.syms.vars.intern("p" + std::to_string(i));
    }
    w.syms.barriers.intern("b");
    std::mt19937_64 rng(7);
    std::vector<ThreadId> order(static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i)
        order[static_cast<std::size_t>(i)] = static_cast<ThreadId>(i);
    auto add = [&](ThreadId t, Op op, ObjId target) {
        Event e;
        e.number = w.events.size() + 1;
        e.thread = t;
        e.op = op;
        e.target = target;
        w.events.push_back(e);
    };
    auto each_thread = [&](auto&& f) {
        std::shuffle(order.begin(), order.end(), rng);
        for (ThreadId t : order)
            f(t);
    };
    auto barrier = [&] {
        each_thread([&](ThreadId t) { add(t, Op::barrier_enter, 0); });
        each_thread([&](ThreadId t) { add(t, Op::barrier_exit, 0); });
    };
    for (std::size_t j = 0; j < rounds; ++j) {
        each_thread([&](ThreadId t) {
            for (ObjId p = 0; p < static_cast<ObjId>(k); ++p)
                add(t, Op::read, p);
        });
        barrier();
        each_thread([&](ThreadId t) { add(t, Op::write, t); });
        barrier();
    }
    w.sync_per_round = 4 * static_cast<std::size_t>(k);
    return w;
}

Net barrier_net(int owner, int k) {
    std::vector<std::string> all;
    for (int i = 0; i < k; ++i)
        all.push_back("t" + std::to_string(i));
    const Mechanism b{MechKind::barrier, "b", "", all};
    Discipline g;
    g.modes = {{ModeKind::RS, all}, {ModeKind::EX, {all[static_cast<std::size_t>(owner)]}}};
    g.edges = {{0, 1, b}, {1, 0, b}};
    g.in = {0};
    g.out = {1};
    return build_petri_net(g);
}

// One iteration: the barrier trace of k threads from M0 through an Enforcer with `options`.
void run_barrier(benchmark::State& state, int k, std::size_t rounds,
                 const EnforceOptions& options) {
    const Workload w = make_barrier_workload(rounds, k);
    std::size_t violations = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto enf = std::make_unique<Enforcer>(options);
        for (int i = 0; i < k; ++i)
            enf->add_variable("p" + std::to_string(i), barrier_net(i, k));
        state.ResumeTiming();
        for (const Event& e : w.events)
            enf->on_event(e, w.syms);
        violations += enf->violations().size();
    }
    if (violations != 0)
        state.SkipWithError("the barrier trace should conform");
    const double sync_ops =
        static_cast<double>(state.iterations()) * static_cast<double>(rounds * w.sync_per_round);
    state.counters["per_sync_op"] =
        benchmark::Counter(sync_ops, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    // Each sync op visits every variable: the cost per (sync op, variable).
    state.counters["per_visit"] =
        benchmark::Counter(sync_ops * k, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Barrier8(benchmark::State& state) {
    EnforceOptions options;
    options.factor_candidates = state.range(0) == 2;
    options.memoize_candidates = state.range(0) != 0;
    run_barrier(state, 8, 400, options);
}

// Barriers of k threads, the sets as products (explicit sets of up to 3^k markings are out of
// reach past k = 8 or so): the cost per visit grows with k, the words of a product.
void BM_BarrierK(benchmark::State& state) {
    run_barrier(state, static_cast<int>(state.range(0)), 50, EnforceOptions{});
}

// N([EX(w0) ⊔ ... ⊔ EX(wn-1)]^m): what the compiler makes of [EX(each W)]^m.
Net pool_net(int n) {
    const Mechanism m{MechKind::lock, "m", "", {}};
    Discipline g;
    for (int i = 0; i < n; ++i) {
        g.modes.push_back({ModeKind::EX, {"w" + std::to_string(i)}});
        g.in.push_back(static_cast<std::uint32_t>(i));
        g.out.push_back(static_cast<std::uint32_t>(i));
    }
    // As the compiler makes it: past CompileLimits::family_from (4,096) pairs, one edge family.
    if (n * n > 4096)
        g.families.push_back({g.out, g.in, m});
    else
        for (std::uint32_t a = 0; a < static_cast<std::uint32_t>(n); ++a)
            for (std::uint32_t b = 0; b < static_cast<std::uint32_t>(n); ++b)
                g.edges.push_back({a, b, m});
    return build_petri_net(g);
}

// Workers w0..wn-1 = 0..n-1, lock m = 0, variable x = 0.
Workload make_pool_workload(int n, std::size_t events) {
    Workload w;
    for (int i = 0; i < n; ++i)
        w.syms.threads.intern("w" + std::to_string(i));
    w.syms.locks.intern("m");
    w.syms.vars.intern("x");
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<ThreadId> worker(0, static_cast<ThreadId>(n - 1));
    while (w.events.size() < events) {
        const ThreadId t = worker(rng);
        for (Op op : {Op::acquire, Op::write, Op::release}) {
            Event e;
            e.number = w.events.size() + 1;
            e.thread = t;
            e.op = op;
            e.target = 0;
            w.events.push_back(e);
        }
    }
    return w;
}

void BM_Pool(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    const Workload w = make_pool_workload(n, 300000);
    Enforcer enf;
    enf.add_variable("x", pool_net(n));
    std::size_t violations = 0;
    for (auto _ : state) {
        enf.reset();
        for (const Event& e : w.events)
            enf.on_event(e, w.syms);
        violations += enf.violations().size();
    }
    if (violations != 0)
        state.SkipWithError("the pool trace should conform");
    state.counters["per_event"] =
        benchmark::Counter(static_cast<double>(state.iterations() * w.events.size()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void sizes(benchmark::internal::Benchmark* b) {
    for (long n : {1L, 10L, 100L, 1000L, 10000L, 100000L})
        b->Arg(n);
    b->Unit(benchmark::kMicrosecond);
}

} // namespace

BENCHMARK(BM_Indexed_Fixed)->Apply(sizes);
BENCHMARK(BM_Indexed_RoundRobin)->Apply(sizes);
BENCHMARK(BM_Indexed_Shuffled)->Apply(sizes);
BENCHMARK(BM_Fig52_Fixed)->Apply(sizes);
BENCHMARK(BM_Fig52_RoundRobin)->Apply(sizes);
BENCHMARK(BM_Barrier8)->Arg(2)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BarrierK)->Arg(8)->Arg(16)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pool)->Arg(8)->Arg(16)->Arg(17)->Arg(64)->Arg(65)->Arg(256)->Arg(512)->Arg(1024)->Unit(
    benchmark::kMillisecond);

BENCHMARK_MAIN();
