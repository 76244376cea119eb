// The enforcer's strong index types (runtime/src/enforce/indices.hpp): none() is distinct from
// every index a table can hold, a net's -1 converts to it, and order is the numbering's.
#include "enforce/indices.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

using namespace sfg::enforce;

TEST_CASE("enforce indices: none, conversion from a net's int, order") {
    CHECK_FALSE(PlaceIx().valid());
    CHECK(PlaceIx() == PlaceIx::none());
    CHECK(ModeIx::at(-1) == ModeIx::none()); // Place::mode, Place::edge: -1 is none
    CHECK(ModeIx::at(0).valid());
    CHECK(ModeIx::at(std::size_t{7}).ix() == 7);
    std::vector<NetThread> ts{NetThread(3), NetThread(0), NetThread(2)};
    std::sort(ts.begin(), ts.end());
    CHECK(ts == std::vector<NetThread>{NetThread(0), NetThread(2), NetThread(3)});
    CHECK(NetThread(5) < NetThread::none());
}

TEST_CASE("enforce indices: IndexVec is indexed by its own index type") {
    IndexVec<VarIx, int> v;
    CHECK(v.next_index() == VarIx(0));
    v.push_back(10);
    v.push_back(20);
    CHECK(v.next_index() == VarIx(2));
    CHECK(v[VarIx(1)] == 20);
    int sum = 0;
    for (VarIx i : v.indices())
        sum += v[i];
    CHECK(sum == 30);
}
