// The enforcer's per-mechanism index (runtime/src/enforce/sync_index.hpp): every lookup gives the
// subscriptions of its key, in the order subscribed, in each of its three layouts — a direct table
// of every (mechanism, thread, role), direct rows only for the mechanisms with many keys (a pool's
// lock among a thousand workers' forks), and searched keys alone.
#include "enforce/sync_index.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace sfg::enforce {

namespace {

struct Layout {
    std::size_t mechanisms, threads, dense_mechanisms, sparse_keys;
};

void check_layout(const Layout& l, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    SyncIndex index;
    std::map<std::uint64_t, std::vector<std::uint32_t>> want; // key -> targets, in order
    std::uint32_t next = 0;
    const auto add = [&](std::size_t m, std::size_t t, Role role) {
        const std::uint64_t key = sync_key(MechIx::at(m), NetThread::at(t), role);
        const std::uint32_t target = next++ % 1000;
        index.subscribe(key, Subscription::of(VarIx(target), 0));
        want[key].push_back(target);
    };
    for (std::size_t m = 0; m < l.mechanisms; ++m) {
        if (m < l.dense_mechanisms) { // a key for every thread and role
            for (std::size_t t = 0; t < l.threads; ++t)
                for (Role role : {Role::snd, Role::rcv})
                    add(m, t, role);
            continue;
        }
        for (std::size_t k = 0; k < l.sparse_keys; ++k)
            add(m, rng() % l.threads, rng() % 2 ? Role::snd : Role::rcv);
    }
    index.freeze(l.mechanisms, l.threads);
    std::size_t found = 0;
    for (std::size_t m = 0; m < l.mechanisms; ++m)
        for (std::size_t t = 0; t < l.threads; ++t)
            for (Role role : {Role::snd, Role::rcv}) {
                const auto subs = index.find(MechIx::at(m), NetThread::at(t), role);
                const auto it = want.find(sync_key(MechIx::at(m), NetThread::at(t), role));
                std::vector<std::uint32_t> got;
                for (const Subscription& s : subs)
                    got.push_back(s.var().v);
                const std::vector<std::uint32_t> expected =
                    it == want.end() ? std::vector<std::uint32_t>{} : it->second;
                if (got != expected) {
                    INFO("mechanism " << m << ", thread " << t);
                    CHECK(got == expected);
                    return;
                }
                found += !got.empty();
            }
    CHECK(found == want.size());
}

} // namespace

TEST_CASE("sync index: every layout gives each key's subscriptions") {
    // 8 x 2*64 entries: one table of every key.
    check_layout({8, 64, 2, 3}, 1);
    // 300 x 2*1100 entries, 2,800 keys: too large and sparse for one table; the first two
    // mechanisms (every thread's key) get rows, the others are searched.
    check_layout({300, 1100, 2, 2}, 2);
    // 300 x 2*1100 entries and no mechanism dense enough for a row: every key searched.
    check_layout({300, 1100, 0, 3}, 3);
}

} // namespace sfg::enforce
