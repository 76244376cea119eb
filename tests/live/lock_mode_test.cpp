// Lock-held modes LOCK_m(T) in the live runtime (thesis §5.2, docs/enforcers.md): the generated
// header carries each LOCK mode's lock, and a thread that touches the variable without holding
// it is a violation on every run, whatever the schedule.
#include "live/spec_impl.hpp"
#include "support.hpp"

#include "sfg/compiler/compile.hpp"

#include "fig5_1_locked.sfg.hpp"
#include "guarded_phase.sfg.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

using namespace sfg::testing;

namespace {

// specs/extensions/guarded_phase.sfg: r : EX(main) ▷^fork LOCK(m: w1, w2) ▷^join EX(main).
// The workers add to r while holding m; with `w2_locks` false w2 does it without m.
int run_phase(bool w2_locks, int rounds) {
    sfg::mutex m("m");
    sfg::shared<int> r("r", 0);
    r = 1;
    sfg::thread_group workers;
    workers.add("w1", [&] {
        for (int i = 0; i < rounds; ++i) {
            std::lock_guard g(m);
            r.store(r.load() + 1);
        }
    });
    workers.add("w2", [&] {
        for (int i = 0; i < rounds; ++i) {
            if (w2_locks) {
                std::lock_guard g(m);
                r.store(r.load() + 1);
            } else {
                r.store(r.load() + 1); // the missing lock
            }
        }
    });
    workers.start();
    workers.join();
    return r;
}

} // namespace

TEST_CASE("live LOCK(m: w1, w2) in a fork/join phase: the workers under m, no finding") {
    for (int run = 0; run < 20; ++run) {
        sfg::session s(guarded_phase::spec(), collecting());
        CHECK(run_phase(true, 50) == 101);
        CHECK(seen(s.findings()).empty());
    }
}

TEST_CASE("live LOCK(m: w1, w2): w2 without m is a violation on every run") {
    for (int run = 0; run < 20; ++run) {
        CAPTURE(run);
        sfg::session s(guarded_phase::spec(), collecting("enforce"));
        run_phase(false, 20);
        const auto fs = s.findings();
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].kind == "violation");
        CHECK(fs[0].var == "r");
        CHECK(fs[0].thread == "w2");
        CHECK(fs[0].message.find("LOCK_m(w1,w2) needs w2 to hold m") != std::string::npos);
    }
}

// Figure 5.1's order of accesses, each after a critical section of m but none inside one.
TEST_CASE("live Figure 5.1: ordered by m conforms, LOCK(m: t0, t1, t2) does not") {
    sfg::session s(fig5_1_locked::spec(), collecting("enforce,hb"));
    sfg::mutex m("m");
    sfg::shared<int> x("x", 0), ordered("ordered", 0);
    sfg::thread_group g;
    g.add("t0", [&] {
        x = 1;
        ordered = 1;
        m.lock();
        m.unlock();
    });
    g.start();
    g.join();
    const auto fs = s.findings();
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].var == "x");
    CHECK(fs[0].thread == "t0");
    CHECK(fs[0].message.find("LOCK_m(t0,t1,t2) needs t0 to hold m") != std::string::npos);
}

TEST_CASE("the runtime's LOCK modes from a generated header are the compiler's, lock included") {
    for (const auto& [stem_, live] : {std::pair{"guarded_phase", guarded_phase::spec()},
                                      {"fig5_1_locked", fig5_1_locked::spec()}}) {
        const char* stem = stem_; // CAPTURE is a lambda: no structured binding in it (Clang 14)
        CAPTURE(stem);
        const std::string path = std::string(SFG_SOURCE_DIR) + "/specs/extensions/" + stem + ".sfg";
        std::ifstream in(path, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        sfg::SourceFile source(path, text.str());
        sfg::Diagnostics diags;
        const std::optional<sfg::CompiledSpec> compiled = sfg::compile_spec(source, diags);
        REQUIRE(compiled);
        const auto& nets = live.impl().nets;
        std::size_t k = 0, locked = 0;
        for (const auto& v : compiled->variables) {
            if (!v.net)
                continue;
            REQUIRE(k < nets.size());
            CHECK(nets[k].first == v.name);
            const sfg::Net& a = nets[k++].second;
            REQUIRE(a.modes.size() == v.net->modes.size());
            for (std::size_t i = 0; i < a.modes.size(); ++i) {
                CHECK(a.modes[i].kind == v.net->modes[i].kind);
                CHECK(a.modes[i].lock == v.net->modes[i].lock);
                CHECK(a.modes[i].label() == v.net->modes[i].label());
                locked += a.modes[i].kind == sfg::ModeKind::LOCK;
            }
            CHECK(a.places.size() == v.net->places.size());
            CHECK(a.transitions.size() == v.net->transitions.size());
        }
        CHECK(k == nets.size());
        CHECK(locked > 0);
    }
}

// A queue edge (thesis §5.1) names its queue: a fork edge retyped by hand names none.
TEST_CASE("spec data with a queue edge that names no queue is refused, naming it") {
    sfg::spec_data::spec d = guarded_phase::sfg_spec_data::data;
    std::vector<sfg::spec_data::edge> edges(d.edges, d.edges + d.edge_count);
    edges[0].kind = sfg::MechKind::queue;
    d.edges = edges.data();
    CHECK_THROWS_WITH_AS(sfg::spec{d},
                         "sfg::spec: inconsistent spec data (a queue edge that names no queue)",
                         std::invalid_argument);
}
