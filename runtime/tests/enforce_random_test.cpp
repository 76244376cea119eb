// Enforcement on random well-formed traces (read by the real trace reader, implicit start/end
// included) against random disciplines:
// - the Enforcer reports exactly the first violation that Figure 4.15 applied literally does
//   (RefEnforcer: std::set of markings, every variable on every sync op as in Figure 5.2);
// - soundness (Theorem 4.2.2 with Theorem 4.3.12): a variable the enforcer admits is race-free
//   by the brute-force happens-before oracle;
// - the lazy per-group simulation of one-token nets gives the same candidates after every
//   event, and the same violations and explanations, as the eager per-variable one.
#include "enforce_testlib.hpp"
#include "random_trace.hpp"

#include "sfg/runtime/enforce.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

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

TEST_CASE("random traces (18,000): enforcer = Figure 4.15 literally; admitted implies race-free") {
    Totals tot;
    run(11, 3000, {4, 3, 2, 2, 1, 30, 0}, tot);
    run(12, 3000, {5, 3, 2, 2, 1, 60, 95}, tot);
    run(13, 2000, {6, 3, 2, 1, 1, 80, 80}, tot);
    run(14, 2000, {3, 2, 1, 1, 1, 40, 100}, tot);
    // Two or three threads, accesses guarded by their lock: many admitted shared variables.
    run(15, 4000, {2, 2, 1, 1, 0, 30, 100}, tot);
    run(16, 4000, {3, 1, 1, 1, 1, 40, 100}, tot);
    MESSAGE("traces " << tot.traces << ", admitted variables " << tot.admitted
                      << " (accessed by 2+ threads: " << tot.admitted_shared << "), violated "
                      << tot.violated);
    CHECK(tot.traces == 18000);
    CHECK(tot.admitted_shared > 400);
    CHECK(tot.violated > 1000);
}

TEST_CASE("random traces (6,000): one-token groups = eager candidate sets, event by event") {
    std::mt19937_64 rng(21);
    int compared = 0;
    const RandomTraceOptions opts[] = {
        {4, 3, 2, 2, 1, 40, 90}, {3, 2, 1, 1, 1, 40, 100}, {2, 2, 1, 1, 0, 30, 100}};
    for (int i = 0; i < 6000; ++i) {
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
    CHECK(compared > 100000);
}
