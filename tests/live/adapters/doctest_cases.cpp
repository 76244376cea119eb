// The doctest adapter (sfg/doctest.hpp): run by check_adapter.sh, which expects exactly the
// test cases named "fails: ..." to fail, with sfg's report, and the others to pass.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "bank_cases.hpp"

#include <sfg/doctest.hpp>

TEST_CASE("passes: the bank account with its lock") {
    sfg::doctest_session s(bank::spec());
    CHECK(bank_cases::run(true) == 100);
}

TEST_CASE("fails: the bank account without withdraw's lock") {
    sfg::doctest_session s(bank::spec());
    bank_cases::run(false);
}

TEST_CASE("passes: the missing lock, expected") {
    sfg::doctest_session s(bank::spec());
    SFG_EXPECT_FINDING("violation", "balance", {
        // hb and goldilocks report it too: each expectation marks its own kind.
        SFG_EXPECT_FINDING("race", "balance", bank_cases::run(false));
    });
}

TEST_CASE("fails: an expected finding that does not come") {
    sfg::doctest_session s(bank::spec());
    SFG_EXPECT_FINDING("violation", "balance", bank_cases::run(true));
}

TEST_CASE("passes: throw_error inside the expectation") {
    sfg::session_options o = sfg::doctest_session::collected();
    o.policy = sfg::on_finding::throw_error;
    o.analyses = "enforce";
    sfg::doctest_session s(bank::spec(), o);
    SFG_EXPECT_FINDING("violation", "balance", bank_cases::write_after_fork());
}

TEST_CASE("passes: every schedule of the account with its lock") {
    const sfg::explore_report r =
        sfg::check_explore(bank::spec(), [] { bank_cases::explored(true); });
    CHECK(r.complete);
}

TEST_CASE("fails: every schedule of the account without withdraw's lock") {
    sfg::check_explore(bank::spec(), [] { bank_cases::explored(false); });
}

TEST_CASE("passes: the violation some schedule shows, expected") {
    sfg::expect_explore(
        bank::spec(), "violation", "balance", [] { bank_cases::explored(false, false); },
        bank_cases::enforce_only());
}
