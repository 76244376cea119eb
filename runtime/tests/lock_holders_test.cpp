// LockHolders: the one lock state of well-formedness, the lockset analyses and the checker.
#include "sfg/runtime/hb/lock_holders.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace sfg;

TEST_CASE("lock holders: holder, acquisition line and held locks innermost last") {
    LockHolders l;
    CHECK(l.holder(3) == no_object);
    l.acquire(1, 3, 10);
    l.acquire(1, 0, 11);
    l.acquire(2, 5, 12);
    CHECK(l.holder(3) == 1);
    CHECK(l.since(0) == 11);
    CHECK(std::vector<ObjId>(l.held(1).begin(), l.held(1).end()) == std::vector<ObjId>{3, 0});
    l.release(3); // not the innermost: locks need not be released in order
    CHECK(l.holder(3) == no_object);
    CHECK(l.since(3) == 0);
    CHECK(std::vector<ObjId>(l.held(1).begin(), l.held(1).end()) == std::vector<ObjId>{0});
    l.release(3); // a free lock stays free
    CHECK(l.held(7).empty());
}

TEST_CASE("lock holders: holders only, equal whatever the lines (a model checker's state)") {
    LockHolders a(LockHolders::Detail::holders), b(LockHolders::Detail::holders);
    a.resize_locks(2), b.resize_locks(2);
    a.acquire(0, 1, 5);
    b.acquire(0, 1, 9);
    CHECK(a == b);
    CHECK(a.held(0).empty());
    b.release(1);
    CHECK(!(a == b));
    CHECK(b.holders() == std::vector<ThreadId>{no_object, no_object});
}
