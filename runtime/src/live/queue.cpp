// sfg::queue (thesis §5.1, q(o); docs/enforcers.md): a FIFO of objects on a std::mutex and a
// std::condition_variable, which ThreadSanitizer sees as the program's own synchronization and
// sfg records nothing of. enq(q,o) is recorded before o can be taken, deq(q,o) after it was: so
// enq takes a smaller ticket than the deq that takes o out (the FIFO's lock orders the two), and
// the trace never has a deq before its enq.
#include "queue_item.hpp"
#include "schedule.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>

namespace sfg::detail {

struct QueueImpl {
    explicit QueueImpl(std::string name) : obj(std::move(name), Namespace::queue) {}
    object obj;
    QueueItemCache items_seen;
    std::mutex lock;
    std::condition_variable ready;
    std::deque<std::pair<void*, const object*>> fifo; // each object and its sfg object
};

std::unique_ptr<QueueImpl, void (*)(QueueImpl*)> make_queue(std::string name) {
    return {new QueueImpl(std::move(name)), [](QueueImpl* q) { delete q; }};
}

std::optional<finding> queue_push(QueueImpl& q, void* item, const object& o) {
    Point p;
    p.op = Op::enqueue;
    p.obj = &q.obj;
    std::optional<finding> f;
    if (schedule(p) == Scheduled::run)
        f = record_queue_event(q.obj, o, Op::enqueue, q.items_seen);
    {
        std::lock_guard l(q.lock);
        q.fifo.emplace_back(item, &o);
    }
    q.ready.notify_one();
    return f;
}

std::optional<finding> queue_pop(QueueImpl& q, bool wait, void*& item) {
    // Under sfg::explore a pop is scheduled only when the FIFO has an object (or it does not
    // wait), so the wait below never waits.
    Point p;
    p.op = Op::dequeue;
    p.obj = &q.obj;
    p.attempt = !wait;
    const bool recorded = schedule(p) == Scheduled::run;
    std::pair<void*, const object*> taken;
    {
        std::unique_lock l(q.lock);
        if (wait)
            q.ready.wait(l, [&] { return !q.fifo.empty(); });
        if (q.fifo.empty()) {
            item = nullptr;
            return std::nullopt;
        }
        taken = q.fifo.front();
        q.fifo.pop_front();
    }
    item = taken.first;
    if (!recorded)
        return std::nullopt;
    return record_queue_event(q.obj, *taken.second, Op::dequeue, q.items_seen);
}

} // namespace sfg::detail
