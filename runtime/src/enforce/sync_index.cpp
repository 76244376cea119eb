#include "sync_index.hpp"

#include <algorithm>

namespace sfg::enforce {

void SyncIndex::freeze(std::size_t mechanisms, std::size_t threads) {
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const Pending& a, const Pending& b) { return a.key < b.key; });
    subs_.clear();
    keys_.clear();
    key_begin_.assign(mechanisms + 1, 0);
    for (std::size_t i = 0; i < pending_.size();) {
        const auto begin = static_cast<std::uint32_t>(subs_.size());
        std::size_t j = i;
        for (; j < pending_.size() && pending_[j].key == pending_[i].key; ++j)
            subs_.push_back(pending_[j].sub);
        const auto mech = static_cast<std::size_t>(pending_[i].key >> 32);
        ++key_begin_[mech + 1];
        keys_.push_back({static_cast<std::uint32_t>(pending_[i].key), begin,
                         static_cast<std::uint32_t>(subs_.size())});
        i = j;
    }
    for (std::size_t m = 0; m < mechanisms; ++m)
        key_begin_[m + 1] += key_begin_[m];
    // A direct table (mechanism, thread, role) -> key when it is small: a sync op then costs one
    // load instead of a binary search. Past half the L2 cache only if at least one entry in 64 is
    // a key: a pool of 1,024 workers forked one by one has 1,024 fork mechanisms, each with keys
    // for two threads, whose table (16 MB) would miss at every lookup (bench/README.md, "thread
    // pools").
    // Otherwise a row only for each mechanism with a key for at least one entry in 64 of its row
    // (the pool's lock, with a key for every worker and role), within the same 2^22 entries; the
    // others' few keys are searched.
    stride_ = 2 * threads;
    dense_.clear();
    rows_.clear();
    const std::size_t entries = mechanisms * stride_;
    const auto fill = [&](std::size_t m, std::size_t row) {
        for (std::uint32_t k = key_begin_[m]; k < key_begin_[m + 1]; ++k)
            dense_[row * stride_ + keys_[k].thread_role] = {keys_[k].sub_begin, keys_[k].sub_end};
    };
    if (entries <= (std::size_t{1} << 18) ||
        (entries <= (std::size_t{1} << 22) && entries <= 64 * keys_.size())) {
        dense_.assign(entries, {});
        for (std::size_t m = 0; m < mechanisms; ++m)
            fill(m, m);
    } else {
        rows_.assign(mechanisms, no_row);
        std::uint32_t n = 0;
        for (std::size_t m = 0; m < mechanisms; ++m)
            if (64 * (key_begin_[m + 1] - key_begin_[m]) >= stride_ &&
                (std::size_t{n} + 1) * stride_ <= (std::size_t{1} << 22))
                rows_[m] = n++;
        dense_.assign(std::size_t{n} * stride_, {});
        for (std::size_t m = 0; m < mechanisms; ++m)
            if (rows_[m] != no_row)
                fill(m, rows_[m]);
    }
    dirty_ = false;
}

std::span<const Subscription> SyncIndex::find_sparse(MechIx mech, NetThread t, Role role) const {
    const auto want = static_cast<std::uint32_t>(sync_key(mech, t, role));
    const auto first = keys_.begin() + key_begin_[mech.ix()],
               last = keys_.begin() + key_begin_[mech.ix() + 1];
    auto it = std::lower_bound(first, last, want,
                               [](const Key& k, std::uint32_t w) { return k.thread_role < w; });
    if (it == last || it->thread_role != want)
        return {};
    return {subs_.data() + it->sub_begin, subs_.data() + it->sub_end};
}

} // namespace sfg::enforce
