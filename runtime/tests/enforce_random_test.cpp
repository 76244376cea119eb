// Enforcement on random well-formed traces (read by the real trace reader, implicit start/end
// included) against random disciplines:
// - the Enforcer reports exactly the first violation that Figure 4.15 applied literally does
//   (RefEnforcer: std::set of markings, every variable on every sync op as in Figure 5.2);
// - soundness (Theorem 4.2.2 with Theorem 4.3.12): a variable the enforcer admits is race-free
//   by the brute-force happens-before oracle;
// - the lazy per-group simulation of one-token nets gives the same candidates after every
//   event, and the same violations and explanations, as the eager per-variable one;
// - so do the memoized candidate sets (CandidateAutomaton), the factored ones
//   (FactoredCandidates) and the plain ones, on barrier nets with several tokens too, and with a
//   memo so small that it is collected at every step;
// - past 16 rows (a pool of 17 to 130 workers under [EX(each W)]^m and the like, on locks, a
//   volatile and a barrier whose rounds overlap), the wide groups give the same candidates and
//   violations as explicit sets.
#include "enforce_testlib.hpp"
#include "random_trace.hpp"
#include "volume.hpp"

#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

using namespace sfg;
using namespace sfg::testlib;
using sfg::testing::Collector;
using sfg::testing::HbOracle;
using sfg::testing::random_trace;
using sfg::testing::RandomTraceOptions;

namespace {

struct Totals {
    int traces = 0, admitted = 0, admitted_shared = 0, violated = 0;
};

void run(std::uint64_t seed, int count, const RandomTraceOptions& o, Totals& tot) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < count; ++i) {
        RandomDisciplines gen{rng, o.threads, o.locks, o.volatiles};
        std::vector<std::pair<std::string, Net>> vars;
        for (int x = 0; x < o.vars; ++x)
            vars.emplace_back("x" + std::to_string(x),
                              build_petri_net(gen.pick(2) ? gen.guarded(x) : gen.disc(3)));
        const std::string text = random_trace(rng, o);

        Symbols syms;
        Collector col;
        Enforcer enf;
        RefEnforcer ref;
        for (const auto& [x, n] : vars) {
            enf.add_variable(x, n);
            ref.add_variable(x, n);
        }
        Fanout all;
        all.add(col), all.add(enf), all.add(ref);
        const TraceResult res = read_trace_text(text, "random.std", syms, all);
        INFO(text);
        REQUIRE_MESSAGE(res.ok(), res.error->to_string());
        REQUIRE(col.events.size() <= HbOracle::max_events);
        const auto races = HbOracle(col.events, syms).first_races();
        ++tot.traces;

        for (const auto& var : vars) { // (a structured binding: Clang 14 cannot capture it)
            const auto& x = var.first;
            std::uint64_t mine = 0;
            for (const EnforceViolation& v : enf.violations())
                if (v.var == x)
                    mine = v.event;
            INFO("variable " << x);
            CHECK(mine == ref.first_violation(x));
            const ObjId id = syms.vars.find(x);
            if (mine != 0) {
                ++tot.violated;
                continue;
            }
            ++tot.admitted;
            if (id == no_object)
                continue;
            // Theorem 4.2.2: admitted implies race-free.
            CHECK(races.count(id) == 0);
            std::set<ThreadId> accessors;
            for (const Event& e : col.events)
                if (is_memory(e.op) && e.target == id)
                    accessors.insert(e.thread);
            tot.admitted_shared += accessors.size() > 1;
        }
        // Violations are reported at memory ops, in event order, one per variable.
        for (std::size_t k = 1; k < enf.violations().size(); ++k)
            CHECK(enf.violations()[k - 1].event < enf.violations()[k].event);
        for (const EnforceViolation& v : enf.violations()) {
            const Event& e = col.events[v.event - 1];
            CHECK(is_memory(e.op));
            CHECK(e.op == v.op);
            CHECK(e.thread == v.thread);
            CHECK(syms.vars.name(e.target) == v.var);
            CHECK_FALSE(explain(v).empty());
        }
    }
}

} // namespace

TEST_CASE("random traces (18,000 with --full): enforcer = Figure 4.15 literally; admitted implies "
          "race-free" *
          volume) {
    Totals tot;
    run(11, quarter(3000), {4, 3, 2, 2, 1, 30, 0}, tot);
    run(12, quarter(3000), {5, 3, 2, 2, 1, 60, 95}, tot);
    run(13, quarter(2000), {6, 3, 2, 1, 1, 80, 80}, tot);
    run(14, quarter(2000), {3, 2, 1, 1, 1, 40, 100}, tot);
    // Two or three threads, accesses guarded by their lock: many admitted shared variables.
    run(15, quarter(4000), {2, 2, 1, 1, 0, 30, 100}, tot);
    run(16, quarter(4000), {3, 1, 1, 1, 1, 40, 100}, tot);
    MESSAGE("traces " << tot.traces << ", admitted variables " << tot.admitted
                      << " (accessed by 2+ threads: " << tot.admitted_shared << "), violated "
                      << tot.violated);
    CHECK(tot.traces == quarter(18000));
    CHECK(tot.admitted_shared > quarter(400));
    CHECK(tot.violated > quarter(1000));
}

TEST_CASE(
    "random traces (6,000 with --full): one-token groups = eager candidate sets, event by event") {
    std::mt19937_64 rng(21);
    int compared = 0;
    const RandomTraceOptions opts[] = {
        {4, 3, 2, 2, 1, 40, 90}, {3, 2, 1, 1, 1, 40, 100}, {2, 2, 1, 1, 0, 30, 100}};
    for (int i = 0; i < quarter(6000); ++i) {
        const RandomTraceOptions& o = opts[i % 3];
        RandomDisciplines gen{rng, o.threads, o.locks, o.volatiles};
        Enforcer lazy({.report_all = true}), eager({.report_all = true, .group_one_token = false});
        std::vector<std::string> names;
        for (int x = 0; x < o.vars; ++x) {
            const Net n = build_petri_net(gen.pick(2) ? gen.guarded(x) : gen.disc(3));
            names.push_back("x" + std::to_string(x));
            lazy.add_variable(names.back(), n);
            eager.add_variable(names.back(), n);
        }
        const std::string text = random_trace(rng, o);
        Symbols syms;
        Collector col;
        REQUIRE(read_trace_text(text, "random.std", syms, col).ok());
        INFO(text);
        for (const Event& e : col.events) {
            lazy.on_event(e, syms);
            eager.on_event(e, syms);
            for (const std::string& x : names) {
                INFO("variable " << x << ", after event " << e.number);
                REQUIRE(lazy.candidates(x) == eager.candidates(x));
                ++compared;
            }
        }
        REQUIRE(lazy.all_violations().size() == eager.all_violations().size());
        for (std::size_t k = 0; k < lazy.all_violations().size(); ++k) {
            const EnforceViolation &a = lazy.all_violations()[k], &b = eager.all_violations()[k];
            CHECK(a.event == b.event);
            CHECK(a.var == b.var);
            CHECK(explain(a) == explain(b));
        }
    }
    MESSAGE("candidate sets compared: " << compared);
    CHECK(compared > quarter(100000));
}

namespace {

// [RS(U) ▷^b EX(t)]^b over barrier b0 of every thread, U a random set of two or more threads
// (thesis Figure 4.5): several tokens, candidate sets of up to 2^|U| markings.
Discipline barrier_phases(RandomDisciplines& gen) {
    std::vector<std::string> all;
    for (int t = 0; t < gen.threads; ++t)
        all.push_back("T" + std::to_string(t));
    std::vector<std::string> readers = gen.thread_set(gen.threads);
    if (readers.size() < 2)
        readers = all;
    const Mechanism b = barrier("b0", all);
    return loop(seq(RS(readers), b, EX(gen.thread())), b);
}

} // namespace

TEST_CASE("random traces (4,000 with --full): memoized and factored candidate sets = plain ones, "
          "event by "
          "event, also when the memo is collected at every step" *
          volume) {
    std::mt19937_64 rng(31);
    int compared = 0;
    std::uint64_t collections = 0, small_collections = 0, largest = 0, unfactored = 0,
                  crowded_left = 0;
    const RandomTraceOptions opts[] = {
        {4, 3, 2, 2, 1, 60, 50}, {5, 2, 1, 1, 1, 80, 30}, {3, 2, 1, 1, 1, 40, 100}};
    for (int i = 0; i < quarter(4000); ++i) {
        const RandomTraceOptions& o = opts[i % 3];
        RandomDisciplines gen{rng, o.threads, o.locks, o.volatiles};
        // Every other trace: every variable through CandidateMarkings, one-token ones included.
        const bool grouped = i % 2 == 0;
        const EnforceOptions plain_opts{.report_all = true,
                                        .group_one_token = grouped,
                                        .factor_candidates = false,
                                        .memoize_candidates = false,
                                        .count_candidates = true};
        EnforceOptions memo_opts = plain_opts, small_opts = plain_opts, tiny_opts = plain_opts;
        memo_opts.memoize_candidates = small_opts.memoize_candidates =
            tiny_opts.memoize_candidates = true;
        small_opts.candidate_memo_bytes = 4 << 10; // collected now and then, markings kept
        tiny_opts.candidate_memo_bytes = 1;        // collected after every step that grows the memo
        // Products, leaving them for memoized sets (the default) or for plain ones; and leaving
        // them as soon as a mode has two.
        EnforceOptions factored_opts = memo_opts, factored_plain_opts = plain_opts;
        factored_opts.factor_candidates = factored_plain_opts.factor_candidates = true;
        EnforceOptions crowded_opts = factored_opts;
        crowded_opts.max_factored_products = 1;
        Enforcer plain(plain_opts), memo(memo_opts), small(small_opts), tiny(tiny_opts),
            factored(factored_opts), factored_plain(factored_plain_opts), crowded(crowded_opts);
        const auto all = {&plain, &memo, &small, &tiny, &factored, &factored_plain, &crowded};
        std::vector<std::string> names;
        for (int x = 0; x < o.vars; ++x) {
            const int kind = gen.pick(3);
            const Net n = build_petri_net(kind == 0   ? barrier_phases(gen)
                                          : kind == 1 ? gen.disc(3)
                                                      : gen.guarded(x));
            names.push_back("x" + std::to_string(x));
            for (Enforcer* e : all)
                e->add_variable(names.back(), n);
        }
        // Two traces, with reset() between them: the automata outlive a reset.
        for (int pass = 0; pass < 2; ++pass) {
            const std::string text = random_trace(rng, o);
            Symbols syms;
            Collector col;
            REQUIRE(read_trace_text(text, "random.std", syms, col).ok());
            INFO(text);
            for (Enforcer* e : all)
                e->reset();
            for (const Event& e : col.all) {
                for (Enforcer* enf : all)
                    enf->on_event(e, syms);
                for (const std::string& x : names) {
                    INFO("variable " << x << ", after event " << e.number);
                    const auto want = plain.candidates(x);
                    REQUIRE(memo.candidates(x) == want);
                    REQUIRE(small.candidates(x) == want);
                    REQUIRE(tiny.candidates(x) == want);
                    REQUIRE(factored.candidates(x) == want);
                    REQUIRE(factored_plain.candidates(x) == want);
                    REQUIRE(crowded.candidates(x) == want);
                    ++compared;
                }
            }
            for (const Enforcer* enf :
                 {&memo, &small, &tiny, &factored, &factored_plain, &crowded}) {
                REQUIRE(enf->all_violations().size() == plain.all_violations().size());
                for (std::size_t k = 0; k < plain.all_violations().size(); ++k) {
                    const EnforceViolation &a = enf->all_violations()[k],
                                           &b = plain.all_violations()[k];
                    CHECK(a.event == b.event);
                    CHECK(a.var == b.var);
                    CHECK(a.after_resync == b.after_resync);
                    CHECK(explain(a) == explain(b));
                }
                const Enforcer::Stats &a = enf->stats(), &b = plain.stats();
                CHECK(a.variable_visits == b.variable_visits);
                CHECK(a.candidate_updates == b.candidate_updates);
                CHECK(a.max_candidates == b.max_candidates);
            }
            CHECK(plain.stats().memo_collections == 0);
            CHECK(memo.stats().memo_collections == 0);
            collections += tiny.stats().memo_collections;
            small_collections += small.stats().memo_collections;
            largest = std::max(largest, plain.stats().max_candidates);
            CHECK(factored.stats().unfactored == factored_plain.stats().unfactored);
            unfactored += factored.stats().unfactored;
            crowded_left += crowded.stats().unfactored;
        }
    }
    MESSAGE("candidate sets compared: " << compared << ", collections: " << collections << " and "
                                        << small_collections << ", largest candidate set: "
                                        << largest << ", left their products: " << unfactored
                                        << " and " << crowded_left);
    CHECK(compared > quarter(100000));
    CHECK(collections > quarter(10000));
    CHECK(small_collections > quarter(100));
    CHECK(largest >= 8);
    CHECK(crowded_left > quarter(10));
}

namespace {

// [EX(w) ⊔ ... ]^z over the workers `ws`: what the compiler makes of [EX(each W)]^z, n modes
// and an edge z between every two (built directly: add_edge's set costs n^4 here).
Discipline pool(const std::vector<std::string>& ws, const Mechanism& z) {
    Discipline g;
    for (std::uint32_t i = 0; i < ws.size(); ++i) {
        g.modes.push_back({ModeKind::EX, {ws[i]}});
        g.in.push_back(i);
        g.out.push_back(i);
    }
    for (std::uint32_t a = 0; a < ws.size(); ++a)
        for (std::uint32_t b = 0; b < ws.size(); ++b)
            g.edges.push_back({a, b, z});
    return g;
}

// Workers w0..w(n-1), and some of them (about two in three, at least 17).
std::pair<std::vector<std::string>, std::vector<std::string>> pool_workers(std::mt19937_64& rng,
                                                                           int n) {
    std::vector<std::string> ws, some;
    for (int i = 0; i < n; ++i) {
        ws.push_back("w" + std::to_string(i));
        if (rng() % 3 || some.size() < 17)
            some.push_back(ws.back());
    }
    return {ws, some};
}

// A random pool trace: a few busy workers (so that variables change hands) and now and then any
// other; each takes and releases m0 or m1, writes v, reads it, passes barrier b with other busy
// workers (rounds that overlap), and reads and writes x0..x(k-1), mostly in a critical section.
std::string pool_trace(std::mt19937_64& rng, const std::vector<std::string>& ws, int vars,
                       int length) {
    std::vector<std::string> busy;
    for (int k = 0; k < 6; ++k)
        busy.push_back(ws[rng() % ws.size()]);
    std::string text;
    for (int i = 0; i < length;) {
        const std::string& t = rng() % 8 ? busy[rng() % busy.size()] : ws[rng() % ws.size()];
        const std::string m = rng() % 3 ? "m0" : "m1";
        auto access = [&] {
            const std::string x = "x" + std::to_string(rng() % static_cast<unsigned>(vars));
            text += t + (rng() % 3 ? "|w(" : "|r(") + x + ")\n";
            ++i;
        };
        switch (rng() % 16) {
        case 0: // an access without the lock
            access();
            break;
        case 1:
        case 2: // v's handoff
            text += t + (rng() % 2 ? "|vw(v)\n" : "|vr(v)\n");
            ++i;
            break;
        case 3: { // t and another busy worker arrive, then leave in either order
            const std::string& u = busy[rng() % busy.size()];
            if (u == t)
                break;
            text += t + "|benter(b)\n" + u + "|benter(b)\n";
            text += rng() % 2 ? t + "|bexit(b)\n" + u + "|bexit(b)\n"
                              : u + "|bexit(b)\n" + t + "|bexit(b)\n";
            i += 4;
            break;
        }
        default: // a critical section
            text += t + "|acq(" + m + ")\n";
            for (unsigned k = rng() % 3; k > 0; --k)
                access();
            text += t + "|rel(" + m + ")\n";
            i += 2;
        }
    }
    return text;
}

} // namespace

TEST_CASE("pools of 17 to 130 workers: wide one-token groups = explicit candidate sets, event by "
          "event" *
          volume) {
    std::mt19937_64 rng(41);
    int compared = 0, violations = 0;
    for (const int n : {17, 65, 130}) {
        const auto [ws, some] = pool_workers(rng, n);
        // x0..x5 in one group (so that its live rows are many or few), x6 on m1 over some of the
        // workers, x7 on the volatile v, x8 a phase of w0 before the pool, x9 handed over at
        // barrier b (coloured tokens).
        const int vars = 10;
        const Net on_m0 = build_petri_net(pool(ws, lock("m0")));
        const Net nets[] = {on_m0, build_petri_net(pool(some, lock("m1"))),
                            build_petri_net(pool(ws, vol("v"))),
                            build_petri_net(seq(EX(ws[0]), lock("m1"), pool(ws, lock("m0")))),
                            build_petri_net(pool(some, barrier("b", ws)))};
        Enforcer wide({.report_all = true}), plain({.report_all = true,
                                                    .group_one_token = false,
                                                    .factor_candidates = false,
                                                    .memoize_candidates = false});
        std::vector<std::string> names;
        for (int x = 0; x < vars; ++x) {
            names.push_back("x" + std::to_string(x));
            const Net& net = nets[x < 6 ? 0 : x - 5];
            wide.add_variable(names.back(), net);
            plain.add_variable(names.back(), net);
        }
        for (int pass = 0; pass < 2; ++pass) { // reset() between two traces
            const std::string text = pool_trace(rng, ws, vars, n > 100 ? 100 : 250);
            Symbols syms;
            Collector col;
            REQUIRE(read_trace_text(text, "pool.std", syms, col).ok());
            INFO(text);
            wide.reset();
            plain.reset();
            for (const Event& e : col.all) {
                wide.on_event(e, syms);
                plain.on_event(e, syms);
                // x1..x5 like x0, at their memory ops; x9 (many columns) at those and at b's.
                const bool barrier_op = e.op == Op::barrier_enter || e.op == Op::barrier_exit;
                for (int x = 0; x < vars; ++x) {
                    const bool own = is_memory(e.op) && e.target == syms.vars.find(names[x]);
                    if (((x > 0 && x < 6) || x == 9) && !own && !(x == 9 && barrier_op))
                        continue;
                    INFO(n << " workers, variable " << names[x] << ", after event " << e.number);
                    REQUIRE(wide.candidates(names[x]) == plain.candidates(names[x]));
                    ++compared;
                }
            }
            REQUIRE(wide.all_violations().size() == plain.all_violations().size());
            for (std::size_t k = 0; k < plain.all_violations().size(); ++k) {
                const EnforceViolation &a = wide.all_violations()[k],
                                       &b = plain.all_violations()[k];
                CHECK(a.event == b.event);
                CHECK(a.var == b.var);
                CHECK(explain(a) == explain(b));
            }
            violations += static_cast<int>(plain.all_violations().size());
        }
    }
    MESSAGE("candidate sets compared: " << compared << ", violations: " << violations);
    CHECK(compared > 4000);
    CHECK(violations > 20);
}

namespace {

// The same pool with its n^2 edges as one family (net.hpp): what the compiler makes of
// [EX(each W)]^z past CompileLimits::family_from.
Discipline pool_family(const std::vector<std::string>& ws, const Mechanism& z) {
    Discipline g = pool(ws, z);
    g.edges.clear();
    g.families.push_back({g.out, g.in, z});
    return g;
}

// Candidate markings as sets of place ids, a place of a family's edges (explicit: an edge id at or
// past `first_family_edge`, each net here has one family) under the family's one name.
std::set<std::vector<std::string>> canon(const Net& net, const std::vector<Marking>& ms,
                                         std::size_t first_family_edge) {
    std::set<std::vector<std::string>> out;
    for (const Marking& m : ms) {
        std::vector<std::string> ids;
        for (std::uint32_t p : m) {
            const Place& pl = net.places[p];
            ids.push_back(pl.edge && *pl.edge >= first_family_edge
                              ? std::string(to_string(pl.kind)) + "[f0]"
                              : pl.id);
        }
        std::sort(ids.begin(), ids.end());
        out.insert(ids);
    }
    return out;
}

} // namespace

TEST_CASE("pools of 17 to 130 workers: a family's net = its explicit edges', event by event" *
          volume) {
    std::mt19937_64 rng(43);
    int compared = 0, violations = 0;
    for (const int n : {17, 65, 130}) {
        const auto [ws, some] = pool_workers(rng, n);
        // x0..x5 on m0, x6 on m1 over some workers, x7 on the volatile v, x8 a phase of w0
        // before the pool (an edge into the family's modes), x9 at barrier b (explicit in both).
        const int vars = 10;
        const Discipline ds[] = {
            pool_family(ws, lock("m0")), pool_family(some, lock("m1")), pool_family(ws, vol("v")),
            seq(EX(ws[0]), lock("m1"), pool_family(ws, lock("m0"))), pool(some, barrier("b", ws))};
        std::vector<Net> family_nets, explicit_nets;
        std::vector<std::size_t> first_family_edge;
        for (const Discipline& d : ds) {
            family_nets.push_back(build_petri_net(d));
            explicit_nets.push_back(build_petri_net(expand_families(d)));
            first_family_edge.push_back(d.edges.size());
        }
        CHECK(family_nets[0].places.size() == ws.size() + 2); // Acc places, PostSnd, PreRcv
        Enforcer grouped({.report_all = true}),
            plain({.report_all = true,
                   .group_one_token = false,
                   .factor_candidates = false,
                   .memoize_candidates = false}),
            listed({.report_all = true,
                    .group_one_token = false,
                    .factor_candidates = false,
                    .memoize_candidates = false});
        std::vector<std::string> names;
        auto net_of = [](int x) { return x < 6 ? 0 : x - 5; };
        for (int x = 0; x < vars; ++x) {
            names.push_back("x" + std::to_string(x));
            grouped.add_variable(names.back(), family_nets[net_of(x)]);
            plain.add_variable(names.back(), family_nets[net_of(x)]);
            listed.add_variable(names.back(), explicit_nets[net_of(x)]);
        }
        for (int pass = 0; pass < 2; ++pass) {
            const std::string text = pool_trace(rng, ws, vars, n > 100 ? 100 : 250);
            Symbols syms;
            Collector col;
            REQUIRE(read_trace_text(text, "pool.std", syms, col).ok());
            INFO(text);
            for (Enforcer* e : {&grouped, &plain, &listed})
                e->reset();
            for (const Event& e : col.all) {
                grouped.on_event(e, syms);
                plain.on_event(e, syms);
                listed.on_event(e, syms);
                for (int x = 0; x < vars; ++x) {
                    // x0 after every event; x1..x9 at their own memory ops.
                    if (x > 0 && (!is_memory(e.op) || e.target != syms.vars.find(names[x])))
                        continue;
                    INFO(n << " workers, variable " << names[x] << ", after event " << e.number);
                    const std::size_t k = static_cast<std::size_t>(net_of(x));
                    REQUIRE(grouped.candidates(names[x]) == plain.candidates(names[x]));
                    REQUIRE(
                        canon(family_nets[k], plain.candidates(names[x]), first_family_edge[k]) ==
                        canon(explicit_nets[k], listed.candidates(names[x]), first_family_edge[k]));
                    REQUIRE(grouped.possible_modes(names[x]) == listed.possible_modes(names[x]));
                    ++compared;
                }
            }
            REQUIRE(grouped.all_violations().size() == listed.all_violations().size());
            REQUIRE(plain.all_violations().size() == listed.all_violations().size());
            for (std::size_t k = 0; k < listed.all_violations().size(); ++k) {
                const EnforceViolation &a = grouped.all_violations()[k],
                                       &b = listed.all_violations()[k];
                CHECK(a.event == b.event);
                CHECK(a.var == b.var);
                CHECK(a.possible_modes == b.possible_modes);
                CHECK(a.permitting_modes == b.permitting_modes);
                CHECK(explain(a) == explain(plain.all_violations()[k]));
                // The same first fix, but for its edge's source: a family's PreRcv place does not
                // name the sender (net.hpp), so such a fix names the family's modes.
                REQUIRE(a.fixes.empty() == b.fixes.empty());
                if (!a.fixes.empty()) {
                    CHECK(a.fixes[0].to_mode == b.fixes[0].to_mode);
                    CHECK(a.fixes[0].mechanism == b.fixes[0].mechanism);
                    CHECK(a.fixes[0].senders == b.fixes[0].senders);
                    CHECK(a.fixes[0].rcv_op == b.fixes[0].rcv_op);
                }
            }
            violations += static_cast<int>(listed.all_violations().size());
        }
    }
    MESSAGE("candidate sets compared: " << compared << ", violations: " << violations);
    CHECK(compared > 1500);
    CHECK(violations > 20);
}
