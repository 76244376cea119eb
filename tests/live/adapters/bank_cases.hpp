// The programs both framework adapters' suites run (doctest_cases.cpp, gtest_cases.cpp).
#pragma once

#include "bank.sfg.hpp"

#include <sfg/explore.hpp>

#include <mutex>

namespace bank_cases {

// Figure 2.3 (withdraw_locks) or Figure 2.1 (withdraw forgets the lock).
inline int run(bool withdraw_locks) {
    sfg::mutex m("m");
    sfg::shared<int> balance("balance", 0);
    balance.store(100);
    {
        sfg::thread deposit("deposit", [&] {
            for (int i = 0; i < 20; ++i) {
                std::lock_guard g(m);
                balance.store(balance.load() + 10);
            }
        });
        sfg::thread withdraw("withdraw", [&] {
            for (int i = 0; i < 20; ++i) {
                std::unique_lock g(m, std::defer_lock);
                if (withdraw_locks)
                    g.lock();
                balance.store(balance.load() - 10);
            }
        });
    }
    return balance.load();
}

// A write by main after forking deposit, which writes too: a violation, thrown under throw_error
// in main or in deposit (deposit's comes back from join).
inline void write_after_fork() {
    sfg::shared<int> balance("balance", 0);
    balance.store(1); // main, EX(main): fine
    sfg::thread t("deposit", [&] { balance.store(2); });
    balance.store(3); // main again, after the fork
    t.join();
}

// Figure 2.3 or 2.1 with one deposit and one withdrawal, small enough to run on every schedule
// under sfg::explore; `checked`: the final balance is checked (a lost update is a finding).
inline void explored(bool withdraw_locks, bool checked = true) {
    sfg::mutex m("m");
    sfg::shared<int> balance("balance", 100);
    sfg::thread deposit("deposit", [&] {
        std::lock_guard g(m);
        balance.store(balance.load() + 10);
    });
    sfg::thread withdraw("withdraw", [&] {
        std::unique_lock g(m, std::defer_lock);
        if (withdraw_locks)
            g.lock();
        balance.store(balance.load() - 10);
    });
    deposit.join();
    withdraw.join();
    if (checked)
        sfg::check(balance.load() == 100, "the balance is back to 100");
}

// The exploration of explored(false, false) with the discipline only: its one finding is the
// violation.
inline sfg::explore_options enforce_only() {
    sfg::explore_options o;
    o.analyses = "enforce";
    return o;
}

} // namespace bank_cases
