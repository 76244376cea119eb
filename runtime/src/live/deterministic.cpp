// sfg::deterministic (docs/enforcers.md, docs/determinism.md): a deterministic block's `begin` and
// `end` in the calling thread, recorded like any other event (a ticket of its own under log and
// collect), for the `singletrack` analysis. Blocks do not nest (SingleTrack's `deterministic`
// methods): the session refuses a `begin` inside the thread's open block, or an `end` outside
// one, as a misuse (SessionImpl::deliver_block); the scope object keeps its own begin and end
// paired, so that a nested block ends nothing.
#include "event_lock.hpp"
#include "event_queue.hpp"
#include "global_state.hpp"
#include "schedule.hpp"
#include "session_impl.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace sfg::detail {

namespace {

// The session (its serial) in which the calling thread's open sfg::deterministic began; 0: none.
constinit thread_local std::uint64_t open_block = 0;

constexpr const char* block_name = "deterministic"; // the misused object of a block's misuse

std::uint64_t pack(std::uint64_t serial, ThreadId t) {
    return serial << 32 | t;
}

// An object used with no session, or a misuse by the calling thread: as orphan() and misuse()
// report them for named objects.
std::optional<finding> block_misuse(const std::string& what) {
    drain_before_misuse();
    EventLock lock;
    SessionImpl* s = global().current;
    if (!s) {
        if (global().orphans.insert(block_name).second) {
            std::fputs("sfg: misuse: deterministic block used with no open sfg::session\n", stderr);
            std::fflush(stderr);
        }
        return std::nullopt;
    }
    s->add_misuse(block_name, this_thread.serial == s->serial ? this_thread.id : no_object, what);
    return s->take_fresh();
}

// Records op (begin or end) by the calling thread. `recorded`: the session took the event (it may
// still refuse it as ill-formed, in event order).
std::optional<finding> record_block(Op op, const sfg::source_location* where, bool& recorded) {
    recorded = false;
    Point p; // under sfg::explore, a scheduling point (an end's never throws: end_block's noexcept)
    p.op = op;
    p.quiet = op == Op::end;
    if (where) {
        p.file = where->file_name();
        p.line = where->line();
    }
    if (schedule(p) == Scheduled::silent)
        return std::nullopt;
    if (const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
        serial != 0 && this_thread.serial == serial) {
        const QueuedEvent e{where ? where->file_name() : nullptr,
                            where ? where->line() : 0,
                            where ? where->column() : 0,
                            no_object,
                            this_thread.id,
                            op};
        if (queue().append(serial, &e, nullptr, nullptr, nullptr) == AppendResult::appended) {
            recorded = true;
            return std::nullopt;
        }
        // The session has closed meanwhile: reported below.
    }
    {
        EventLock lock;
        SessionImpl* s = global().current;
        if (s && this_thread.serial == s->serial) {
            forget_stale_ring(s->serial);
            recorded = s->push(
                this_thread.id, op, no_object,
                where ? s->location(where->file_name(), where->line(), where->column()) : no_object,
                block_name);
            return s->take_fresh();
        }
    }
    return block_misuse(fmt::format("deterministic block {} by a thread not started through "
                                    "sfg::thread or sfg::thread_group (nor the session's main "
                                    "thread)",
                                    op == Op::begin ? "begun" : "ended"));
}

} // namespace

std::uint64_t begin_block(const sfg::source_location& where) {
    const ThreadRecord me = this_thread;
    // A block inside the thread's open one: recorded, so that the session reports the ill-formed
    // begin in event order (as sfgc trace would), but this object ends nothing: the open block
    // stays open until its own object ends it.
    const bool nested = me.serial != 0 && open_block == me.serial;
    bool recorded = false;
    if (std::optional<finding> f = record_block(Op::begin, &where, recorded))
        throw finding_error(std::move(*f)); // throw_error: the begin was refused (nested)
    if (!recorded || nested)
        return 0;
    open_block = me.serial;
    return pack(me.serial, me.id);
}

void end_block(std::uint64_t block) noexcept {
    if (block == 0)
        return;
    const std::uint64_t serial = block >> 32;
    const auto opener = static_cast<ThreadId>(block);
    std::optional<finding> f;
    try {
        if (this_thread.serial == serial && this_thread.id != opener) {
            // Another thread of the session (the object was handed over): its end would close
            // that thread's block, if any. The opener's block stays open until it ends.
            std::string owner, ender;
            {
                EventLock lock;
                if (SessionImpl* s = global().current; s && s->serial == serial) {
                    owner = s->syms.threads.name(opener);
                    ender = s->syms.threads.name(this_thread.id);
                }
            }
            f = block_misuse(fmt::format("deterministic block of thread {} ended by thread {} "
                                         "(a block ends in the thread that began it)",
                                         owner, ender));
        } else {
            if (this_thread.serial == serial)
                open_block = 0;
            // Also when the session has closed since the begin: with no session the end is
            // reported as used with none; in another session, it ends no block there (a misuse).
            bool recorded = false;
            f = record_block(Op::end, nullptr, recorded);
        }
    } catch (const std::exception& e) { // std::bad_alloc: a destructor cannot let it out
        std::fprintf(stderr, "sfg: deterministic block: %s\n", e.what());
    }
    // Under throw_error: a destructor does not throw; what it would have thrown is printed.
    if (f)
        std::fputs(f->message.c_str(), stderr);
}

} // namespace sfg::detail
