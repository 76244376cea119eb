// The programs both framework adapters' suites run (doctest_cases.cpp, gtest_cases.cpp).
#pragma once

#include "bank.sfg.hpp"

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

} // namespace bank_cases
