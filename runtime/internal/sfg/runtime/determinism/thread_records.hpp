// Per-thread records that follow the threads alive, not every thread that ever existed
// (docs/traces.md, "Cost"): a thread's record is made on its first use and given back when the
// thread retires (its end), for a later thread to take. What stays per thread that ever existed
// is its index, 4 bytes. For state that is the default again once a thread has ended, so that
// retiring loses nothing.
#pragma once

#include "sfg/runtime/event.hpp"

#include <cstdint>
#include <vector>

namespace sfg {

template <class Record>
class ThreadRecords {
public:
    // t's record, a default one made if t has none.
    Record& operator[](ThreadId t) {
        if (t < index_.size() && index_[t])
            return records_[index_[t] - 1];
        return make(t);
    }
    // t's record, if it has one.
    Record* find(ThreadId t) {
        return t < index_.size() && index_[t] ? &records_[index_[t] - 1] : nullptr;
    }
    // t ended: its record goes back, reset, for another thread.
    void retire(ThreadId t) {
        if (t >= index_.size() || !index_[t])
            return;
        records_[index_[t] - 1] = Record{};
        free_.push_back(index_[t]);
        index_[t] = 0;
    }
    // Records in use or free: the threads alive at once, at most.
    std::size_t capacity() const { return records_.size(); }

private:
    Record& make(ThreadId t) {
        if (index_.size() <= t)
            index_.resize(t + 1, 0);
        if (free_.empty()) {
            records_.emplace_back();
            index_[t] = static_cast<std::uint32_t>(records_.size());
        } else {
            index_[t] = free_.back();
            free_.pop_back();
        }
        return records_[index_[t] - 1];
    }

    std::vector<std::uint32_t> index_; // by thread: 1 + its record's position, 0: none
    std::vector<Record> records_;
    std::vector<std::uint32_t> free_; // positions + 1 of records given back
};

} // namespace sfg
