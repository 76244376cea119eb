// Recording sfg::queue's events (thesis §5.1, q(o); docs/enforcers.md), private to
// runtime/src/live: enq(q,o) and deq(q,o) name a (queue, variable) pair, Symbols::queue_items.
#pragma once

#include "sfg/runtime/event.hpp"
#include "sfg/sfg.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace sfg::detail {

// The Symbols::queue_items ids of the pairs a queue has recorded, by variable id, in session
// `serial`: so that an enq or deq of a known pair takes no global lock.
struct QueueItemCache {
    std::mutex lock; // hidden from ThreadSanitizer
    std::uint64_t serial = 0;
    std::vector<ObjId> by_var;
};

// Records op (enqueue or dequeue) of `item`, a shared variable, on queue `q` by the calling
// thread; returns what the operation must throw, as record_event (record.cpp).
std::optional<finding> record_queue_event(const object& q, const object& item, Op op,
                                          QueueItemCache& cache);

} // namespace sfg::detail
