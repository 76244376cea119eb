// The live session's state (docs/enforcers.md), private to runtime/src/live: its options and
// names, the well-formedness checker and the analyses its events go through, the trace being
// recorded, and its findings (session_impl.cpp). How events reach it: record.cpp; the queue of a
// session whose findings may wait: event_queue.hpp.
#pragma once

#include "event_buffer.hpp"
#include "event_ring.hpp"
#include "spec_impl.hpp"

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace/well_formed.hpp"
#include "sfg/sfg.hpp"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sfg::detail {

// Everything below is touched under global().lock only, but for what a split batch's second
// group reads holding names_lock shared: `second` and its analyses, `buffered`'s events of that
// batch, `syms`.
struct SessionImpl {
    SessionImpl(std::uint64_t serial, const spec* s, session_options o);

    // A closed session of a run of sfg::explore serves the next run (session.cpp keeps one):
    // whether it can be opened again with `s` and `o` (the same spec, the same options once the
    // environment's are applied, no trace file), and then, reset(), as if made anew.
    bool serves(const spec* s, session_options o) const;
    void reset(std::uint64_t serial);

    // The object's id in this session, interned (and its name checked) on first use.
    ObjId resolve(const object& o, ThreadId t);
    // The Symbols::queue_items id of an enq or deq of variable `item` on queue `q`, both resolved.
    ObjId resolve_item(const object& q, const object& item, ThreadId t);
    // A misuse when `name` is the spec's name of another kind of object, or cannot be written
    // in a trace.
    void check_name(const std::string& name, Namespace kind, ThreadId t);
    ObjId location(const char* file, std::uint32_t line, std::uint32_t column);
    // Whether events go through the checker thread (EventQueue).
    bool queued() const {
        return !explored &&
               (options.policy == on_finding::log || options.policy == on_finding::collect);
    }
    // A run of sfg::explore: one thread runs at a time, so events go through the session as
    // they happen (no checker thread), and its findings are collected.
    bool explored = false;
    // The checker's work on a batch (checker_thread.cpp): the events, then the findings they
    // caused.
    void check(const std::vector<QueuedEvent>& events);
    // An event with no location (fork, join) by thread t of this session: appended for the
    // checker thread, or pushed (record.cpp).
    bool event(ThreadId t, Op op, ObjId target, const std::string& object);
    // The name of the object of an event, for a misuse report.
    std::string object_name(Op op, ObjId target) const;
    // One explicit event through the well-formedness checker to the analyses; an ill-formed one
    // is a misuse of `object` (empty: the event's object). Collects the new findings.
    // `value`: the Symbols::values id a vr/vw carries, or no_object.
    bool push(ThreadId t, Op op, ObjId target, ObjId loc, const std::string& object,
              ObjId value = no_object);
    // One event into the well-formedness checker (false: ill-formed, refused). A `begin` or
    // `end` is checked against the thread's open block first (deliver_block).
    bool deliver(ThreadId t, Op op, ObjId target, ObjId loc, ObjId value = no_object) {
        if (op_info(op).role == Role::block) [[unlikely]]
            return deliver_block(t, op, loc);
        return stream->push(t, op, target, loc, 0, value);
    }
    // SingleTrack's blocks do not nest (docs/determinism.md): a `begin` inside the thread's open
    // block, or an `end` outside one, is refused as ill-formed, as `sfgc trace --analysis
    // singletrack` refuses it, so that the trace stays replayable and no analysis stops on it.
    bool deliver_block(ThreadId t, Op op, ObjId loc);
    // The misuse of an ill-formed event that push refused, held until collect() reaches the
    // findings about the events before it (a queued event's batch is collected later).
    void push_failed(ThreadId t, Op op, ObjId target, const std::string& object);
    // Takes the analyses' new findings about the events up to number `up_to`, and the held
    // misuses after them, in event order.
    void collect(std::uint64_t up_to = ~std::uint64_t{0});
    void add(finding f);
    // Once per (object, what). t: the thread (no_object: a thread sfg does not know).
    void add_misuse(const std::string& object, ThreadId t, const std::string& what,
                    Op op = Op::read, bool has_op = false);
    std::optional<finding> make_misuse(const std::string& object, ThreadId t,
                                       const std::string& what, Op op, bool has_op);
    // What the operation that caused the fresh findings must throw (throw_error), after
    // aborting (abort); forgets them.
    std::optional<finding> take_fresh();
    void finish();

    std::uint64_t serial;
    session_options options;
    std::optional<spec> spec_;
    Symbols syms;
    ThreadId main_thread = 0;
    std::vector<std::unique_ptr<RunningAnalysis>> analyses;
    std::vector<std::size_t> seen; // findings of each analysis already collected
    Fanout fanout;
    // With a checker thread and two sinks or more, the checker's batches are split
    // (docs/enforcers.md, "How it works"): the well-formed events of a batch are buffered,
    // `first` (the first sink) runs over them, and `second` (the others) runs over them later,
    // on any thread, while the next batch is checked into the other buffer (the sinks share
    // nothing but the names, guarded by names_lock).
    EventBuffer buffered;
    Fanout first, second;
    bool split = false;
    // Runs both groups over the events being buffered, then forgets them (with no batch pending
    // in the EventQueue: the session has no checker thread running).
    void analyse_buffered();
    // The sinks (the analyses, then the trace writer), the well-formedness checker over them and
    // the main thread's name: the end of the constructor's work and of reset()'s.
    void wire();
    // Names are added under EventLock and this lock, held exclusively; the second group of a
    // split batch reads them holding it shared, without EventLock.
    std::shared_mutex names_lock;
    std::unique_lock<std::shared_mutex> adding_names() { return std::unique_lock(names_lock); }
    std::ofstream trace_file;
    std::unique_ptr<TextTraceWriter> writer;
    std::unique_ptr<WellFormedStream> stream;
    // Each thread's open deterministic block: the number of its `begin` (0: none).
    std::vector<std::uint64_t> open_blocks;
    // Why deliver_block refused the last event it refused, until push_failed reports it.
    std::string block_error;
    std::vector<finding> findings;
    std::vector<bool> expected; // by finding
    // Misuses of refused events, each with the number of the last event delivered before it,
    // until collect() reaches it.
    std::vector<std::pair<std::uint64_t, finding>> held_misuses;
    bool closed = false;
    std::vector<finding> fresh; // collected since the last take_fresh()
    std::set<std::string> misuses;
    // Source locations by call site: (file name pointer, line, column), hashed. A call site's
    // file name is one string literal, so equal pointers mean equal files (different pointers
    // with one text only cost a second entry with the same interned id).
    struct SiteHash {
        std::size_t
        operator()(const std::tuple<const void*, std::uint32_t, std::uint32_t>& k) const {
            const auto p = reinterpret_cast<std::uintptr_t>(std::get<0>(k));
            return static_cast<std::size_t>(
                (p ^ (std::uint64_t{std::get<1>(k)} << 32 | std::get<2>(k))) *
                0x9e3779b97f4a7c15ull);
        }
    };
    std::unordered_map<std::tuple<const void*, std::uint32_t, std::uint32_t>, ObjId, SiteHash>
        locations;
};

// Every sfg::finding is made here: the kind as FindingKind spells it (report.hpp), the op as the op
// table does (op.hpp), none for a finding about no event.
finding make_finding(FindingKind kind, std::string_view analysis, std::string var,
                     std::string thread, std::optional<Op> op, std::string message);

// An object used with no session: reported on standard error once.
std::optional<finding> orphan(const object& o, const char* what);

} // namespace sfg::detail
