// The code under test: a bank account whose balance is guarded by a lock, written with sfg's
// types so that its tests check the discipline of bank.sfg.
#pragma once

#include <sfg/sfg.hpp>

#include <mutex>

class account {
public:
    explicit account(int opening) { balance_.store(opening); }
    void deposit(int amount) {
        std::lock_guard g(m_);
        balance_.store(balance_.load() + amount);
    }
    void withdraw(int amount) {
        std::lock_guard g(m_);
        balance_.store(balance_.load() - amount);
    }
    // Figure 2.1's mistake: the lock forgotten.
    void withdraw_unlocked(int amount) { balance_.store(balance_.load() - amount); }
    int balance() const { return balance_.load(); }

private:
    sfg::mutex m_{"m"};
    sfg::shared<int> balance_{"balance", 0};
};
