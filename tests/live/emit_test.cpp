// Generated headers (sfgc --emit-cpp, docs/enforcers.md): the nets the live runtime builds from
// them are the nets `sfgc --json` describes, and the declared names are the spec's.
#include "live/spec_impl.hpp"

#include "sfg/compiler/compile.hpp"

#include "bank.sfg.hpp"
#include "bank_extended.sfg.hpp"
#include "barrier.sfg.hpp"
#include "fig3_15.sfg.hpp"
#include "handshake.sfg.hpp"
#include "init_then_read.sfg.hpp"
#include "particles.sfg.hpp"
#include "pool65.sfg.hpp"
#include "support.hpp"
#include "volatile_flag.sfg.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace {

sfg::CompiledSpec compile(const std::string& stem, std::string* text_out = nullptr,
                          const std::string& dir = "specs/thesis/") {
    const std::string path = std::string(SFG_SOURCE_DIR) + "/" + dir + stem + ".sfg";
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (text_out)
        *text_out = text.str();
    sfg::SourceFile source(path, text.str());
    sfg::Diagnostics diags;
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(source, diags);
    REQUIRE(spec);
    return *spec;
}

void check_same_net(const sfg::Net& a, const sfg::Net& b) {
    REQUIRE(a.modes.size() == b.modes.size());
    for (std::size_t i = 0; i < a.modes.size(); ++i)
        CHECK(a.modes[i].label() == b.modes[i].label());
    REQUIRE(a.edges.size() == b.edges.size());
    for (std::size_t i = 0; i < a.edges.size(); ++i) {
        CHECK(a.edges[i].from == b.edges[i].from);
        CHECK(a.edges[i].to == b.edges[i].to);
        CHECK(a.edges[i].mech == b.edges[i].mech);
    }
    REQUIRE(a.families.size() == b.families.size());
    for (std::size_t i = 0; i < a.families.size(); ++i) {
        CHECK(a.families[i].from == b.families[i].from);
        CHECK(a.families[i].to == b.families[i].to);
        CHECK(a.families[i].mech == b.families[i].mech);
    }
    REQUIRE(a.places.size() == b.places.size());
    for (std::size_t i = 0; i < a.places.size(); ++i) {
        CHECK(a.places[i].id == b.places[i].id);
        CHECK(a.places[i].kind == b.places[i].kind);
        CHECK(a.places[i].thread == b.places[i].thread);
        CHECK(a.places[i].mode == b.places[i].mode);
        CHECK(a.places[i].edge == b.places[i].edge);
    }
    REQUIRE(a.transitions.size() == b.transitions.size());
    for (std::size_t i = 0; i < a.transitions.size(); ++i) {
        CHECK(a.transitions[i].id == b.transitions[i].id);
        CHECK(a.transitions[i].kind == b.transitions[i].kind);
        CHECK(a.transitions[i].pre == b.transitions[i].pre);
        CHECK(a.transitions[i].post == b.transitions[i].post);
    }
    CHECK(a.initial_markings == b.initial_markings);
}

void check_spec(const std::string& stem, const sfg::spec& live, std::uint64_t header_hash,
                const std::string& dir = "specs/thesis/") {
    CAPTURE(stem);
    std::string text;
    const sfg::CompiledSpec compiled = compile(stem, &text, dir);
    CHECK(live.file() == stem + ".sfg");
    CHECK(live.hash() == sfg::spec_hash(text));
    CHECK(header_hash == live.hash());
    CHECK(live.threads() == compiled.threads);
    std::vector<std::string> vars;
    for (const auto& v : compiled.variables)
        vars.push_back(v.name);
    CHECK(live.variables() == vars);
    const auto& nets = live.impl().nets;
    std::size_t k = 0;
    for (const auto& v : compiled.variables) {
        if (!v.net)
            continue;
        REQUIRE(k < nets.size());
        CHECK(nets[k].first == v.name);
        check_same_net(nets[k].second, *v.net);
        ++k;
    }
    CHECK(k == nets.size());
}

} // namespace

TEST_CASE("the runtime's nets from each generated header are the compiler's") {
    check_spec("bank", bank::spec(), bank::spec_hash);
    check_spec("bank_extended", bank_extended::spec(), bank_extended::spec_hash);
    check_spec("barrier", barrier::spec(), barrier::spec_hash);
    check_spec("fig3_15", fig3_15::spec(), fig3_15::spec_hash);
    check_spec("handshake", handshake::spec(), handshake::spec_hash);
    check_spec("init_then_read", init_then_read::spec(), init_then_read::spec_hash);
    check_spec("particles", particles::spec(), particles::spec_hash);
    check_spec("volatile_flag", volatile_flag::spec(), volatile_flag::spec_hash);
}

TEST_CASE("a pool of 65 workers: one edge family in the header, enforced by a session") {
    check_spec("pool65", pool65::spec(), pool65::spec_hash, "tests/live/");
    REQUIRE(pool65::spec().impl().nets.size() == 1);
    CHECK(pool65::spec().impl().nets[0].second.families.size() == 1);
    // Each worker updates x under m; with `unlocked`, w7 waits until the 64 others are done,
    // then writes x without m: x was released by another worker, so that is a violation.
    for (const bool unlocked : {false, true}) {
        CAPTURE(unlocked);
        sfg::session s(pool65::spec(), sfg::testing::collecting("enforce"));
        sfg::mutex m("m");
        sfg::shared<long> x("x", 0);
        std::atomic<int> done{0};
        sfg::thread_group workers;
        for (int i = 0; i < 65; ++i)
            workers.add("w" + std::to_string(i), [&, i] {
                if (unlocked && i == 7) {
                    while (done.load() < 64)
                        std::this_thread::yield();
                    x.store(x.load() + 1);
                    return;
                }
                {
                    std::lock_guard g(m);
                    x.store(x.load() + 1);
                }
                ++done;
            });
        workers.start();
        workers.join();
        const auto fs = s.findings();
        if (!unlocked) {
            CHECK(fs.empty());
            continue;
        }
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].kind == "violation");
        CHECK(fs[0].var == "x");
        CHECK(fs[0].thread == "w7");
        CHECK(fs[0].message.find("w7 must acq(m) before reading x") != std::string::npos);
    }
}

TEST_CASE("names by kind") {
    const sfg::spec& s = fig3_15::spec();
    CHECK(s.locks() == std::vector<std::string>{"m", "n"});
    CHECK(s.volatiles() == std::vector<std::string>{"v"});
    CHECK(s.barriers().empty());
    CHECK(particles::spec().barriers() == std::vector<std::string>{"b"});
}

TEST_CASE("inconsistent spec data is an exception, not undefined behaviour") {
    sfg::spec_data::spec d = bank::sfg_spec_data::data;
    d.name_count = 2; // names beyond the table
    CHECK_THROWS_AS(sfg::spec{d}, std::invalid_argument);
    d = bank::sfg_spec_data::data;
    d.list_count = 3;
    CHECK_THROWS_AS(sfg::spec{d}, std::invalid_argument);
    d = bank::sfg_spec_data::data;
    sfg::spec_data::variable v = d.variables[0];
    v.modes.count = 100;
    d.variables = &v;
    CHECK_THROWS_AS(sfg::spec{d}, std::invalid_argument);
}
