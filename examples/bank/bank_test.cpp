// The bank account's tests: the correct program passes; the broken one fails with sfg's finding
// on every run (here expected with SFG_EXPECT_FINDING, so the suite passes when sfg finds it).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "account.hpp"
#include "bank.sfg.hpp"

#include <sfg/doctest.hpp>

namespace {

int run(bool forget_lock) {
    account a(100); // main, in EX(main)
    {
        sfg::thread deposit("deposit", [&] {
            for (int i = 0; i < 100; ++i)
                a.deposit(10);
        });
        sfg::thread withdraw("withdraw", [&] {
            for (int i = 0; i < 100; ++i)
                forget_lock ? a.withdraw_unlocked(10) : a.withdraw(10);
        });
    } // both joined: back to EX(main)
    return a.balance();
}

} // namespace

TEST_CASE("deposits and withdrawals under the lock (Figure 2.3)") {
    sfg::doctest_session s(bank::spec());
    CHECK(run(false) == 100);
}

TEST_CASE("withdraw without the lock (Figure 2.1): a violation and a race, every run") {
    for (int i = 0; i < 10; ++i) {
        sfg::doctest_session s(bank::spec());
        SFG_EXPECT_FINDING("violation", "balance",
                           SFG_EXPECT_FINDING("race", "balance", run(true)));
    }
}
