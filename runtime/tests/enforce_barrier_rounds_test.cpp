// Barrier rounds in enforcement (docs/enforcement.md, "Barrier rounds"): a barrier edge's tokens
// are coloured by the barrier's generation. On random traces of reusable barriers whose rounds
// overlap (a thread leaves round k, accesses, and arrives at round k+1 before another has left
// round k), with disciplines of barrier edges composed with locks, volatiles and forks:
// - every representation (one-token groups off, products, explicit sets, memoized or not, a
//   product limit that makes variables leave their products) reports exactly the first
//   violation that the reference with concrete colours does, and the same candidates after
//   every event;
// - Theorem 4.2.2: a variable the enforcer admits is race-free by the brute-force happens-before
//   oracle;
// - when every thread of b(T) arrives in every generation and rounds do not overlap, the
//   verdicts are those of the uncoloured net.
#include "enforce_testlib.hpp"
#include "random_trace.hpp"

#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

using namespace sfg;
using namespace sfg::testlib;
using sfg::testing::Collector;
using sfg::testing::HbOracle;

namespace {

std::string T(int t) {
    return "T" + std::to_string(t);
}

// A trace of n threads passing barrier b0 `rounds` times, with accesses to x0..x2 (some under
// m0), vw/vr of v0 between rounds; T0 forks the others first (or all are roots) and may join
// them at the end. Departures wait for every arrival of their round, as on a real barrier, so
// a thread may arrive at the next round before another has left this one; with `separated`,
// no thread arrives at round k+1 before every thread has left round k.
std::string barrier_trace(std::mt19937_64& rng, int n, int rounds, bool separated) {
    auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<std::uint64_t>(k)); };
    std::vector<std::vector<std::string>> prog(n);
    for (int t = 0; t < n; ++t) {
        for (int r = 0; r <= rounds; ++r) {
            const int accesses = pick(3);
            for (int a = 0; a < accesses; ++a) {
                const std::string x = "x" + std::to_string(pick(3));
                const std::string op = pick(2) ? "w(" + x + ")" : "r(" + x + ")";
                switch (pick(5)) {
                case 0:
                    prog[t].insert(prog[t].end(), {"acq(m0)", op, "rel(m0)"});
                    break;
                case 1:
                    prog[t].push_back(pick(2) ? "vw(v0)" : "vr(v0)");
                    prog[t].push_back(op);
                    break;
                default:
                    prog[t].push_back(op);
                }
            }
            if (r < rounds)
                prog[t].insert(prog[t].end(), {"benter(b0)", "bexit(b0)"});
        }
    }
    std::string out;
    const bool forked = pick(2) && n > 1;
    if (forked) {
        std::string set;
        for (int t = 1; t < n; ++t)
            set += (t > 1 ? "," : "") + T(t);
        out += "T0|fork(" + set + ")\n";
    }
    std::vector<std::size_t> pc(n, 0);
    std::vector<int> round(n, 0); // rounds a thread has arrived at
    std::vector<int> left(n, 0);  // rounds a thread has left
    std::vector<int> arrived(rounds + 1, 0), departed(rounds + 1, 0);
    int holder = -1;
    for (;;) {
        std::vector<int> ready;
        for (int t = 0; t < n; ++t) {
            if (pc[t] == prog[t].size())
                continue;
            const std::string& op = prog[t][pc[t]];
            if (op == "acq(m0)" && holder != -1)
                continue;
            if (op == "bexit(b0)" && arrived[round[t]] < n)
                continue;
            if (op == "benter(b0)" && separated && round[t] > 0 && departed[round[t]] < n)
                continue;
            ready.push_back(t);
        }
        if (ready.empty())
            break;
        const int t = ready[static_cast<std::size_t>(pick(static_cast<int>(ready.size())))];
        const std::string& op = prog[t][pc[t]++];
        if (op == "acq(m0)")
            holder = t;
        else if (op == "rel(m0)")
            holder = -1;
        else if (op == "benter(b0)")
            ++arrived[++round[t]];
        else if (op == "bexit(b0)")
            ++departed[++left[t]];
        out += T(t) + "|" + op + "\n";
    }
    if (forked && pick(2)) {
        std::string set;
        for (int t = 1; t < n; ++t)
            set += (t > 1 ? "," : "") + T(t);
        out += "T0|join(" + set + ")\n";
    }
    return out;
}

// Disciplines over T0..T(n-1) whose edges are mostly on b0 (all threads), else on m0, v0 or
// T0's fork of the others.
Discipline barrier_discipline(RandomDisciplines& gen, int n) {
    std::vector<std::string> all, others;
    for (int t = 0; t < n; ++t) {
        all.push_back(T(t));
        if (t > 0)
            others.push_back(T(t));
    }
    return gen.disc(3, [&]() -> Mechanism {
        switch (gen.pick(8)) {
        case 0:
            return lock("m0");
        case 1:
            return vol("v0");
        case 2:
            return others.empty() ? barrier("b0", all) : fork("T0", others);
        default:
            return barrier("b0", all);
        }
    });
}

struct Counts {
    int traces = 0, admitted_shared = 0, violated = 0, compared = 0;
};

// Every representation against the coloured reference, event by event; admitted implies
// race-free.
void check_trace(const std::vector<std::pair<std::string, Net>>& vars, const std::string& text,
                 Counts& counts) {
    const std::vector<EnforceOptions> options = {
        {},
        {.group_one_token = false},
        {.factor_candidates = false},
        {.group_one_token = false, .factor_candidates = false, .memoize_candidates = false},
        {.group_one_token = false, .max_factored_products = 1},
    };
    std::vector<std::unique_ptr<Enforcer>> enfs;
    for (const EnforceOptions& o : options)
        enfs.push_back(std::make_unique<Enforcer>(o));
    RefEnforcer ref;
    for (const auto& var : vars) {
        for (auto& e : enfs)
            e->add_variable(var.first, var.second);
        ref.add_variable(var.first, var.second);
    }
    Symbols syms;
    Collector col;
    struct EachEvent : Analysis { // the candidates of every representation after every event
        std::vector<std::unique_ptr<Enforcer>>* enfs;
        const std::vector<std::pair<std::string, Net>>* vars;
        Counts* counts;
        void on_event(const Event& e, const Symbols& s) override {
            for (auto& enf : *enfs)
                enf->on_event(e, s);
            for (const auto& var : *vars) {
                const auto want = (*enfs)[3]->candidates(var.first);
                for (std::size_t k = 0; k < enfs->size(); ++k) {
                    INFO("representation " << k << ", variable " << var.first << ", event "
                                           << e.number);
                    CHECK((*enfs)[k]->candidates(var.first) == want);
                }
                ++counts->compared;
            }
        }
    } each;
    each.enfs = &enfs;
    each.vars = &vars;
    each.counts = &counts;
    Fanout all;
    all.add(col), all.add(each), all.add(ref);
    const TraceResult res = read_trace_text(text, "rounds.std", syms, all);
    INFO(text);
    REQUIRE_MESSAGE(res.ok(), res.error->to_string());
    REQUIRE(col.events.size() <= HbOracle::max_events);
    const auto races = HbOracle(col.events, syms).first_races();
    ++counts.traces;
    for (const auto& var : vars) {
        const std::string& x = var.first;
        INFO("variable " << x);
        const std::uint64_t mine = first_violation_of(*enfs[0], x);
        CHECK(mine == ref.first_violation(x));
        for (auto& e : enfs)
            CHECK(first_violation_of(*e, x) == mine);
        if (mine != 0) {
            ++counts.violated;
            continue;
        }
        const ObjId id = syms.vars.find(x);
        if (id == no_object)
            continue;
        CHECK(races.count(id) == 0); // Theorem 4.2.2
        counts.admitted_shared += accessors_of(col.events, id).size() > 1;
    }
}

// 2-5 threads, 1-4 rounds, three variables with barrier disciplines, and a trace of them.
struct Case {
    std::vector<std::pair<std::string, Net>> vars;
    std::string trace;
};
Case random_case(std::mt19937_64& rng, bool separated) {
    const int n = 2 + static_cast<int>(rng() % 4);
    const int rounds = 1 + static_cast<int>(rng() % 4);
    RandomDisciplines gen{rng, n, 1, 1};
    Case c;
    for (int x = 0; x < 3; ++x)
        c.vars.emplace_back("x" + std::to_string(x), build_petri_net(barrier_discipline(gen, n)));
    c.trace = barrier_trace(rng, n, rounds, separated);
    return c;
}

} // namespace

TEST_CASE("barrier rounds (4,000 with --full): every representation = the coloured reference, "
          "event by event; admitted implies race-free" *
          volume) {
    std::mt19937_64 rng(33);
    Counts counts;
    for (int i = 0; i < quarter(4000); ++i) {
        const Case c = random_case(rng, false);
        check_trace(c.vars, c.trace, counts);
    }
    MESSAGE("traces " << counts.traces << ", admitted variables accessed by 2+ threads "
                      << counts.admitted_shared << ", violated " << counts.violated
                      << ", candidate sets compared " << counts.compared);
    CHECK(counts.admitted_shared > quarter(160));
    CHECK(counts.violated > quarter(1000));
}

TEST_CASE("barrier rounds (4,000 with --full) that do not overlap, every thread arriving in "
          "every generation: the verdicts of the uncoloured net") {
    std::mt19937_64 rng(34);
    int admitted = 0, violated = 0;
    for (int i = 0; i < quarter(4000); ++i) {
        const Case c = random_case(rng, true);
        const auto& vars = c.vars;
        const std::string& text = c.trace;
        Enforcer enf;
        RefEnforcer uncoloured(false);
        for (const auto& var : vars) {
            enf.add_variable(var.first, var.second);
            uncoloured.add_variable(var.first, var.second);
        }
        Symbols syms;
        Fanout all;
        all.add(enf), all.add(uncoloured);
        const TraceResult res = read_trace_text(text, "rounds.std", syms, all);
        INFO(text);
        REQUIRE_MESSAGE(res.ok(), res.error->to_string());
        for (const auto& var : vars) {
            INFO("variable " << var.first);
            const std::uint64_t mine = first_violation_of(enf, var.first);
            CHECK(mine == uncoloured.first_violation(var.first));
            (mine ? violated : admitted) += 1;
        }
    }
    MESSAGE("admitted " << admitted << ", violated " << violated);
    CHECK(admitted > quarter(1000));
    CHECK(violated > quarter(1000));
}
