// The resource policy's building blocks (docs/limits.md): the net's size predicted before it is
// built, the candidate-edge bound checked before any edge is, the streaming JSON writer equal to
// nlohmann's dump(2), and invalid UTF-8 replaced.
#include "support.hpp"

#include "../src/json_stream.hpp"
#include "../src/utf8.hpp"
#include "sfg/compiler/render.hpp"
#include "sfg/compiler/sfg.hpp"
#include "sfg/runtime/core/petri_net.hpp"

#include <filesystem>
#include <random>
#include <sstream>

using namespace sfg;
using namespace sfg::test;

TEST_CASE("petri_net_size predicts |places| + |transitions| of every spec in specs/") {
    int nets = 0;
    for_each_spec([&](const std::string&, const Compiled& c) {
        for (const auto& v : c.spec->variables)
            if (v.sfg) {
                CHECK(petri_net_size(*v.sfg) == v.net->places.size() + v.net->transitions.size());
                ++nets;
            }
    });
    CHECK(nets >= 15);
}

TEST_CASE("compile limits: each bound stops at its own error, all variables together") {
    const std::string spec = "threads a, b; lock m;\n"
                             "var x : [EX(a) | EX(b)]^m;\n" // 2 modes, 4 candidates, 2 + 4*5
                             "var y : [EX(a) | EX(b)]^m;\n";
    auto run = [&](CompileLimits limits) {
        Compiled c;
        SourceFile file("t.sfg", spec);
        c.spec = compile_spec(file, c.diags, limits);
        return c;
    };
    CHECK(run({4, 8, 44}).spec); // exactly enough for both
    SUBCASE("modes") {
        auto c = run({3, 8, 44});
        CHECK_FALSE(c.spec);
        CHECK(c.lines() == std::vector<std::string>{
                               "3:5: error: the discipline of 'y' expands to more than 3 access "
                               "modes (counting the variables before it); raise the limit with "
                               "--max-modes"});
    }
    SUBCASE("candidate edges, at the operator") {
        auto c = run({4, 7, 44});
        CHECK_FALSE(c.spec);
        CHECK(c.lines() == std::vector<std::string>{
                               "3:24: error: the discipline of 'y' needs more than 7 candidate "
                               "edges (counting the variables before it) at this operator; raise "
                               "the limit with --max-edges"});
    }
    SUBCASE("net size") {
        auto c = run({4, 8, 43});
        CHECK_FALSE(c.spec);
        CHECK(c.lines() == std::vector<std::string>{
                               "3:5: error: the Petri net of 'y' brings the places and "
                               "transitions of the nets to 44, more than 43; raise the limit "
                               "with --max-net-size"});
    }
}

TEST_CASE("SfgBuilder refuses a connection past its budget before doing any of it") {
    SfgBuilder b(100, 10);
    SfgBuilder::Fragment all;
    for (int i = 0; i < 4; ++i)
        all = b.disjunction(all, b.base({ModeKind::EX, {"t" + std::to_string(i)}}, {1, i + 1}));
    ConnectReport report;
    EdgeLabel lock;
    lock.mech = {MechKind::lock, "m", "", {}};
    b.loop(all, lock, {2, 7}, report); // 16 candidates > 10
    REQUIRE(b.over_budget());
    CHECK(b.overrun()->what == SfgBuilder::Overrun::What::edges);
    CHECK(b.overrun()->loc == SourceLoc{2, 7});
    CHECK(report.candidates == 0);
    CHECK(boost::num_edges(b.graph()) == 0);
}

TEST_CASE("an operator reports ten dropped edges, then how many more") {
    std::string rs = "RS(a, b)";
    std::string disc = rs;
    for (int i = 1; i < 4; ++i)
        disc += " | " + rs;
    auto c = compile_text("threads a, b; lock m; var x : [" + disc + "]^m;");
    int dropped = 0, more = 0;
    for (const std::string& l : c.lines()) {
        dropped += l.find("is left out: lock 'm'") != std::string::npos;
        more += l.find("6 more edges of this loop are left out") != std::string::npos;
    }
    CHECK(dropped == 1); // ten identical warnings at one place are printed once
    CHECK(more == 1);
}

TEST_CASE("to_valid_utf8 keeps well-formed text and replaces every other byte") {
    CHECK(to_valid_utf8("plain") == "plain");
    CHECK(to_valid_utf8("\xC3\xA9\xE2\x97\x8F\xF0\x9F\x98\x80") ==
          "\xC3\xA9\xE2\x97\x8F\xF0\x9F\x98\x80");
    const std::string fffd = "\xEF\xBF\xBD";
    CHECK(to_valid_utf8("a\xff") == "a" + fffd);
    CHECK(to_valid_utf8("\xC0\xAF") == fffd + fffd);                       // overlong '/'
    CHECK(to_valid_utf8("\xED\xA0\x80") == fffd + fffd + fffd);            // a surrogate
    CHECK(to_valid_utf8("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd); // past U+10FFFF
    CHECK(to_valid_utf8("\xE2\x97") == fffd + fffd);                       // truncated
    CHECK(to_valid_utf8(std::string("\0", 1)) == std::string("\0", 1));
}

namespace {
using json = nlohmann::ordered_json;

json random_value(std::mt19937& rng, int depth) {
    switch (std::uniform_int_distribution<int>(0, depth > 3 ? 3 : 5)(rng)) {
    case 0:
        return nullptr;
    case 1:
        return static_cast<int>(rng() % 1000) - 500;
    case 2:
        return std::string(rng() % 4, static_cast<char>('a' + rng() % 26)) + "\"\\\n\x01\xff";
    case 3:
        return rng() % 2 == 0;
    case 4: {
        json a = json::array();
        for (unsigned i = rng() % 4; i > 0; --i)
            a.push_back(random_value(rng, depth + 1));
        return a;
    }
    default: {
        json o = json::object();
        for (unsigned i = rng() % 4; i > 0; --i)
            o["k" + std::to_string(i)] = random_value(rng, depth + 1);
        return o;
    }
    }
}

// Writes `v` through the stream, containers by hand down to `split` levels, values below.
void stream(JsonStream& js, const json& v, int split) {
    if (split == 0 || !v.is_structured()) {
        js.value(v);
        return;
    }
    if (v.is_array()) {
        js.begin_array();
        for (const json& e : v) {
            js.begin_item();
            stream(js, e, split - 1);
        }
        js.end_array();
    } else {
        js.begin_object();
        for (const auto& [k, e] : v.items()) {
            js.key(k);
            stream(js, e, split - 1);
        }
        js.end_object();
    }
}
} // namespace

TEST_CASE("JsonStream writes exactly dump(2), invalid UTF-8 replaced, at every split depth") {
    std::mt19937 rng(11);
    for (int round = 0; round < 500; ++round) {
        json doc = json::object();
        for (int i = 0; i < 3; ++i)
            doc["m" + std::to_string(i)] = random_value(rng, 0);
        const std::string expected =
            doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
        for (int split = 0; split < 5; ++split) {
            std::ostringstream out;
            JsonStream js(out);
            stream(js, doc, split);
            CAPTURE(round);
            CAPTURE(split);
            REQUIRE(out.str() == expected);
        }
    }
}

TEST_CASE("to_json is valid UTF-8 JSON for a file name that is not") {
    auto c = compile_text("threads t; var x : EX(t);");
    std::string text = to_json("bad\xff.sfg", &*c.spec, c.diags);
    auto j = nlohmann::json::parse(text, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j["file"] == "bad\xEF\xBF\xBD.sfg");
}
