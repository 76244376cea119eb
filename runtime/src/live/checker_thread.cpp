// The checker thread of a session whose policy lets findings wait (log, collect;
// docs/enforcers.md, "How it works"): the program's threads append their events, in the order
// that is the linearization, to one queue; this thread takes them in batches and runs the
// analyses, so that their cost is not paid inside the program's critical sections.
#include "session_impl.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>

namespace sfg::detail {

namespace {

// Events waiting at most: 2 MB. A thread that would pass it waits for the checker.
constexpr std::size_t queue_capacity = std::size_t{1} << 16;
// The checker wakes for this many events, or after a millisecond: waking it for each event
// would cost the program a system call each time.
constexpr std::size_t batch_size = 4096;
constexpr std::chrono::milliseconds batch_wait{1};

} // namespace

event_queue& queue() {
    static auto* q = new event_queue; // never destroyed: threads may outlive static destructors
    return *q;
}

void event_queue::open(session_impl* s) {
    hidden_scope hidden;
    std::lock_guard l(lock_);
    serial_ = s->serial;
    appended_ = checked_ = 0;
    idle_ = stopping_ = hurry_ = false;
    events_.clear();
    checker_ = std::thread([this, s] { run(s); });
}

bool event_queue::append(std::uint64_t serial, const queued_event* e, void (*access)(void*),
                         void* context, bool may_wait) {
    hidden_scope hidden;
    std::unique_lock l(lock_);
    if (serial == 0 || serial_ != serial)
        return false;
    pending_queue& p = pending;
    if (!p.items.empty() && p.serial != serial)
        drop_pending();
    const std::size_t more = p.items.size() + (e ? 1 : 0);
    while (may_wait && serial_ == serial && !events_.empty() &&
           events_.size() + more > queue_capacity)
        room_.wait(l);
    if (serial_ != serial)
        return false;
    events_.insert(events_.end(), p.items.begin(), p.items.end());
    appended_ += p.items.size(); // counted now: the access may throw
    p.items.clear();
    if (access) // atomically with the event: a vw is appended before any vr that reads it
        access(context);
    if (e) {
        events_.push_back(*e);
        ++appended_;
    }
    if (idle_ && events_.size() >= batch_size) {
        idle_ = false;
        work_.notify_one();
    }
    return true;
}

void event_queue::drain(std::uint64_t serial) {
    if (!append(serial, nullptr, nullptr, nullptr))
        return;
    hidden_scope hidden;
    std::unique_lock l(lock_);
    const std::uint64_t target = appended_;
    if (checked_ < target) {
        hurry_ = true;
        work_.notify_one();
    }
    while (serial_ == serial && checked_ < target)
        room_.wait(l);
}

void event_queue::close() {
    {
        hidden_scope hidden;
        std::lock_guard l(lock_);
        serial_ = 0;
        stopping_ = hurry_ = true;
        work_.notify_one();
        room_.notify_all();
    }
    if (checker_.joinable())
        checker_.join(); // it checks what is left first
}

void event_queue::run(session_impl* s) {
    hidden_scope hidden;
    std::vector<queued_event> batch;
    for (;;) {
        {
            std::unique_lock l(lock_);
            while (!stopping_ && !hurry_ && events_.size() < batch_size) {
                idle_ = true;
                if (work_.wait_for(l, batch_wait) == std::cv_status::timeout && !events_.empty())
                    break;
            }
            idle_ = hurry_ = false;
            if (events_.empty()) {
                if (stopping_)
                    return; // every event is checked
                continue;
            }
            batch.swap(events_);
            room_.notify_all();
        }
        {
            event_lock lock;
            s->check(batch);
        }
        {
            std::lock_guard l(lock_);
            checked_ += batch.size();
            room_.notify_all();
        }
        batch.clear();
    }
}

void session_impl::check(const std::vector<queued_event>& events) {
    // The last call sites seen, so that a loop's accesses skip the session's table.
    struct site {
        const char* file = nullptr;
        std::uint32_t line = 0, column = 0;
        std::uint64_t serial = 0;
        ObjId id = no_object;
    };
    thread_local std::array<site, 64> sites;
    static const std::string no_name; // push names the event's object if it is ill-formed
    for (const queued_event& e : events) {
        ObjId loc = no_object;
        if (e.file) {
            site& c =
                sites[(reinterpret_cast<std::uintptr_t>(e.file) >> 3 ^ e.line * 31u ^ e.column) %
                      sites.size()];
            if (c.file != e.file || c.line != e.line || c.column != e.column || c.serial != serial)
                c = {e.file, e.line, e.column, serial, location(e.file, e.line, e.column)};
            loc = c.id;
        }
        push(e.thread, e.op, e.target, loc, no_name, false);
    }
    collect();
    fresh.clear(); // nothing is thrown under log and collect
}

bool session_impl::event(ThreadId t, Op op, ObjId target, const std::string& object) {
    if (!queued())
        return push(t, op, target, no_object, object);
    const queued_event e{nullptr, 0, 0, target, t, op};
    // The caller holds event_lock, which the checker needs to make room: no waiting for it.
    return queue().append(serial, &e, nullptr, nullptr, false);
}

std::string session_impl::object_name(Op op, ObjId target) const {
    const OpInfo& info = op_table[static_cast<std::size_t>(op)];
    if (info.operand == Operand::name)
        return syms.names(info.space).name(target);
    if (info.operand == Operand::thread_set) {
        std::vector<std::string> names;
        for (ThreadId t : syms.thread_sets[target])
            names.push_back(syms.threads.name(t));
        return fmt::format("{}", fmt::join(names, ","));
    }
    return {};
}

} // namespace sfg::detail
