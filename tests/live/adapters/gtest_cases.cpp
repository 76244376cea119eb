// The GoogleTest adapter (sfg/gtest.hpp): run by check_adapter.sh, which expects exactly the
// tests named Fails* to fail, with sfg's report, and the others to pass.
#include "bank_cases.hpp"

#include <sfg/gtest.hpp>

TEST(Bank, PassesWithLock) { // passes: the bank account with its lock
    sfg::gtest_session s(bank::spec());
    EXPECT_EQ(bank_cases::run(true), 100);
}

TEST(Bank, FailsWithoutLock) { // fails: the bank account without withdraw's lock
    sfg::gtest_session s(bank::spec());
    bank_cases::run(false);
}

TEST(Bank, PassesExpected) { // passes: the missing lock, expected
    sfg::gtest_session s(bank::spec());
    SFG_EXPECT_FINDING("violation", "balance", {
        // hb and goldilocks report it too: each expectation marks its own kind.
        SFG_EXPECT_FINDING("race", "balance", bank_cases::run(false));
    });
}

TEST(Bank, FailsExpectedMissing) { // fails: an expected finding that does not come
    sfg::gtest_session s(bank::spec());
    SFG_EXPECT_FINDING("violation", "balance", bank_cases::run(true));
}

TEST(Bank, PassesThrowError) { // passes: throw_error inside the expectation
    sfg::session_options o = sfg::gtest_session::collected();
    o.policy = sfg::on_finding::throw_error;
    o.analyses = "enforce";
    sfg::gtest_session s(bank::spec(), o);
    SFG_EXPECT_FINDING("violation", "balance", bank_cases::write_after_fork());
}

TEST(Explore, PassesWithLock) { // passes: every schedule of the account with its lock
    const sfg::explore_report r =
        sfg::check_explore(bank::spec(), [] { bank_cases::explored(true); });
    EXPECT_TRUE(r.complete);
}

TEST(Explore, FailsWithoutLock) { // fails: every schedule of the account without withdraw's lock
    sfg::check_explore(bank::spec(), [] { bank_cases::explored(false); });
}

TEST(Explore, PassesExpected) { // passes: the violation some schedule shows, expected
    sfg::expect_explore(
        bank::spec(), "violation", "balance", [] { bank_cases::explored(false, false); },
        bank_cases::enforce_only());
}
