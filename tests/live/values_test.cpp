// Value labels in the live runtime (thesis §5.1, vflag; docs/enforcers.md): an integral
// sfg::volatile_var records the value each load returns and each store writes, and the
// handshake [EX(Thread0) ▷^(v == 1) EX(Thread1)]^(v == 0) is enforced on them.
#include "live/spec_impl.hpp"
#include "support.hpp"

#include "sfg/compiler/compile.hpp"

#include "vflag.sfg.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace sfg::testing;

namespace {

// Thread0 and Thread1 take turns on x, each waiting for the value of v meant for it.
void handshake(int rounds) {
    sfg::volatile_var<int> v("v", 0);
    sfg::shared<int> x("x", 0);
    sfg::thread t0("Thread0", [&] {
        for (int i = 0; i < rounds; ++i) {
            while (v.load() != 0) {
            }
            x = x + 1;
            v.store(1);
        }
    });
    sfg::thread t1("Thread1", [&] {
        for (int i = 0; i < rounds; ++i) {
            while (v.load() != 1) {
            }
            x = x * 2;
            v.store(0);
        }
    });
    t0.join();
    t1.join();
}

// Thread0 hands x over with v = 1 but takes it back on v == 2, a value no edge carries: its
// second write is ordered after Thread1's (no race) and still violates the handshake.
void wrong_value() {
    sfg::volatile_var<long long> v("v", 0);
    sfg::shared<int> x("x", 0);
    sfg::thread t0("Thread0", [&] {
        x = 1;
        v.store(1);
        while (v.load() != 2) {
        }
        x = 3;
    });
    sfg::thread t1("Thread1", [&] {
        while (v.load() != 1) {
        }
        x = 2;
        v.store(2);
    });
    t0.join();
    t1.join();
}

} // namespace

TEST_CASE("live vflag handshake: values recorded, every run conforms") {
    for (sfg::on_finding policy : {sfg::on_finding::collect, sfg::on_finding::throw_error}) {
        for (int run = 0; run < 10; ++run) {
            CAPTURE(run);
            sfg::session_options o = collecting("enforce,hb,fasttrack");
            o.policy = policy;
            sfg::session s(vflag::spec(), o);
            handshake(50);
            s.close();
            CHECK(seen(s.findings()).empty());
        }
    }
}

TEST_CASE("live vflag: taking x back on the wrong value is a violation on every run") {
    for (sfg::on_finding policy : {sfg::on_finding::collect, sfg::on_finding::log}) {
        for (int run = 0; run < 10; ++run) {
            CAPTURE(run);
            sfg::session_options o = collecting("enforce,hb");
            o.policy = policy;
            sfg::session s(vflag::spec(), o);
            wrong_value();
            s.close();
            const auto fs = s.findings();
            REQUIRE(fs.size() == 1);
            CHECK(fs[0].kind == "violation");
            CHECK(fs[0].var == "x");
            CHECK(fs[0].thread == "Thread0");
            CHECK(fs[0].message.find("vr(v=0)") != std::string::npos);
        }
    }
}

TEST_CASE("live vflag: the recorded trace carries the values") {
    const auto path = scratch() / "vflag_values.std";
    {
        sfg::session_options o = collecting("enforce");
        o.trace_path = path.string();
        sfg::session s(vflag::spec(), o);
        handshake(2);
    }
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("Thread0|vw(v=1)") != std::string::npos);
    CHECK(text.str().find("Thread1|vr(v=1)") != std::string::npos);
    CHECK(text.str().find("Thread1|vw(v=0)") != std::string::npos);
}

TEST_CASE("the runtime's value edges from a generated header are the compiler's, value included") {
    const std::string path = std::string(SFG_SOURCE_DIR) + "/specs/extensions/vflag.sfg";
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    sfg::SourceFile source(path, text.str());
    sfg::Diagnostics diags;
    const std::optional<sfg::CompiledSpec> compiled = sfg::compile_spec(source, diags);
    REQUIRE(compiled);
    const auto& nets = vflag::spec().impl().nets;
    REQUIRE(nets.size() == 1);
    const sfg::Net& a = nets[0].second;
    const sfg::Net& b = *compiled->variables[0].net;
    REQUIRE(a.edges.size() == b.edges.size());
    for (std::size_t i = 0; i < a.edges.size(); ++i) {
        CHECK(a.edges[i].mech == b.edges[i].mech);
        CHECK(a.edges[i].mech.value.has_value());
    }
    CHECK(a.places.size() == b.places.size());
    CHECK(a.transitions.size() == b.transitions.size());
}

TEST_CASE("spec data with a value on an edge that is not a volatile's is refused") {
    sfg::spec_data::spec d = vflag::sfg_spec_data::data;
    std::vector<sfg::spec_data::edge> edges(d.edges, d.edges + d.edge_count);
    edges[0].kind = sfg::MechKind::lock;
    d.edges = edges.data();
    CHECK_THROWS_AS(sfg::spec{d}, std::invalid_argument);
}
