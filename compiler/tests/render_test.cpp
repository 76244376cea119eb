// Writers: DOT output must not depend on where the allocator put things.
#include "support.hpp"

#include "sfg/compiler/render.hpp"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

using namespace sfg;
using namespace sfg::test;

TEST_CASE("DOT lists variables in spec order even on a fragmented heap") {
    // cgraph's default object IDs are the addresses of interned names, and agwrite orders
    // subgraphs by ID: once free lists hand out blocks in shuffled order, so did the DOT.
    std::string spec = "threads t;\n";
    for (int i = 0; i < 40; ++i)
        spec += "var x" + std::to_string(i) + " : EX(t);\n";
    auto c = compile_text(spec);
    REQUIRE_FALSE(c.diags.has_errors());
    std::mt19937 rng(7);
    for (int round = 0; round < 5; ++round) {
        // Shuffle the free lists of the small size classes the interned names come from.
        std::vector<void*> blocks;
        for (int i = 0; i < 4000; ++i)
            blocks.push_back(std::malloc(16 + static_cast<std::size_t>(i % 5) * 16));
        std::shuffle(blocks.begin(), blocks.end(), rng);
        for (void* b : blocks)
            std::free(b);
        std::string dot = to_dot(*c.spec, View::both);
        std::size_t at = 0;
        for (int i = 0; i < 40; ++i) {
            CAPTURE(round);
            CAPTURE(i);
            std::size_t next = dot.find("label=\"var x" + std::to_string(i) + "\"", at);
            REQUIRE(next != std::string::npos);
            at = next;
        }
    }
}
