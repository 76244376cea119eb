// Where phases end and what is said when none can be ordered (docs/infer.md, "How it decides").
#include "infer_testlib.hpp"

using sfg::infer::testing::infer_texts;
using sfg::infer::testing::lines;

TEST_CASE("a barrier that some of a phase's threads never pass does not end the phase") {
    // t1 and t3 meet at c between t1's reads; t2, the other reader, never passes c, so c orders
    // nothing between the readers: one RS phase, not two that no mechanism joins.
    const auto r = infer_texts({lines("t0|fork(t1,t2,t3) t1|r(x) t2|r(x) t1|benter(c) t3|benter(c) "
                                      "t1|bexit(c) t3|bexit(c) t1|r(x) t2|r(x)")});
    INFO(r.spec);
    CHECK_FALSE(r.check);
    CHECK(r.disc.at("x") == "RS(t1, t2)");
    // A barrier both pass still ends it (the particles' rounds, thesis Figure 3.4).
    const auto both = infer_texts({lines("t0|fork(t1,t2) t1|r(x) t2|r(x) t1|benter(c) t2|benter(c) "
                                         "t1|bexit(c) t2|bexit(c) t1|w(x)")});
    INFO(both.spec);
    CHECK_FALSE(both.check);
    CHECK(both.disc.at("x") == "RS(t1, t2) ▷^c EX(t1)");
}

TEST_CASE("no discipline: the reason is the most specific level's") {
    // Forked one at a time, the readers are not one fork's RS(t1, t2), and with a phase a
    // thread the boundary nothing orders is between the two readers.
    const auto r = infer_texts({lines("t0|w(x) t0|fork(t1) t0|fork(t2) t1|r(x) t2|r(x)")});
    INFO(r.spec);
    CHECK_FALSE(r.check);
    CHECK(r.disc.at("x").empty());
    CHECK(r.reason.at("x") == "no single mechanism orders the accesses of EX(t1) (last at event "
                              "4) before those of EX(t2) (first at event 5) in t0.std");
}

TEST_CASE("a variable one thread only reads is RS(t); a read-only phase of a written one is EX") {
    // RS(t0) permits t0's reads, EX(t0) its writes too: the trace asks for none.
    const auto r = infer_texts({lines("t0|r(c) t0|r(c) t0|w(x) t0|fork(t1) t1|r(x)")});
    INFO(r.spec);
    CHECK_FALSE(r.check);
    CHECK(r.disc.at("c") == "RS(t0)");
    CHECK(r.disc.at("x") == "EX(t0) ▷^fork EX(t1)"); // x is written: t1's reads stay EX(t1)
}
