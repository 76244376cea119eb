#include "sfg/runtime/net.hpp"

#include <doctest/doctest.h>

using namespace sfg;

TEST_CASE("mechanism labels are canonical") {
    CHECK(Mechanism{MechKind::lock, "m", "", {}}.label() == "m");
    CHECK(Mechanism{MechKind::fork, "", "t0", {"t1", "t2"}}.label() == "fork(t0->t1,t2)");
    CHECK(Mechanism{MechKind::join, "", "t0", {"t1", "t2"}}.label() == "join(t1,t2->t0)");
    CHECK(AccessMode{ModeKind::RS, {"a", "b"}}.label() == "RS(a,b)");
}

TEST_CASE("elementary firing rule: pre marked, post unmarked") {
    Net n;
    n.places = {{"p0", PlaceKind::Acc, "t", 0, std::nullopt},
                {"p1", PlaceKind::PostSnd, "t", std::nullopt, 0}};
    n.transitions = {{"snd", TransitionKind::snd, "t", 0, {0}, {1}}};
    CHECK(n.enabled({0}, 0));
    CHECK_FALSE(n.enabled({1}, 0));
    CHECK_FALSE(n.enabled({0, 1}, 0)); // post-set occupied
    CHECK(n.fire({0}, 0) == Marking{1});
}

TEST_CASE("chapter 5 labels: LOCK_m(T), v==K and queues") {
    CHECK(AccessMode{ModeKind::LOCK, {"t0", "t1"}, "m"}.label() == "LOCK_m(t0,t1)");
    CHECK(Mechanism{MechKind::volatile_, "v", "", {}, 1}.label() == "v==1");
    CHECK(Mechanism{MechKind::volatile_, "v", "", {}, -42}.label() == "v==-42");
    CHECK(Mechanism{MechKind::volatile_, "v", "", {}}.label() == "v");
    CHECK(Mechanism{MechKind::volatile_, "v", "", {}, 0} !=
          Mechanism{MechKind::volatile_, "v", "", {}});
    CHECK(Mechanism{MechKind::queue, "q", "", {}}.label() == "q");
    CHECK(std::string(to_string(MechKind::queue)) == "queue");
}
