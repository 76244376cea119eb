#include "sfg/runtime/determinism/analysis_singletrack.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sfg {

namespace {

std::uint64_t object_key(Namespace space, ObjId obj) {
    return (static_cast<std::uint64_t>(space) << 32) | obj;
}

} // namespace

void SingleTrackDetector::leave(std::uint64_t block) {
    auto it = members_.find(block);
    if (it == members_.end() || --it->second)
        return;
    // No thread is in the block any more: CF needs none of its state, and its node gets no more
    // edges.
    members_.erase(it);
    cf_.close(block);
    xs_.close(block);
}

void SingleTrackDetector::fail(const Event& e, std::string message) {
    error_ = StreamError{e.number, e.line, std::move(message)};
}

void SingleTrackDetector::on_event(const Event& e, const Symbols& syms) {
    if (error_)
        return;
    if (e.implicit) {
        if (e.op == Op::thread_end)
            on_thread_end(e.thread);
        return;
    }
    switch (e.op) {
    case Op::begin:
        return on_begin(e, syms);
    case Op::end:
        return on_end(e, syms);
    case Op::fork:
        return on_fork(e, syms);
    case Op::join: {
        const ThreadSets::Set joined = syms.thread_sets[e.target];
        cf_.join(e.thread, joined);
        xs_.join(e.thread, threads_[e.thread].block, joined, e);
        return cycle(e, syms);
    }
    case Op::barrier_enter:
        return on_barrier_enter(e, syms);
    case Op::barrier_exit: {
        const ThreadId t = e.thread;
        const BarrierGenerations::Exit out = generations_.exit(t, e.target);
        cf_.barrier_exit(t, out.generation, out.finished);
        xs_.barrier_exit(t, threads_[t].block, out.generation, out.finished, e);
        return cycle(e, syms);
    }
    default:
        return check(e, syms);
    }
}

// A thread is in its transaction until it ends (a thread forked inside a block also after the
// block's `end`; a block of its own may be left open).
void SingleTrackDetector::on_thread_end(ThreadId t) {
    const ThreadState* th = threads_.find(t);
    const std::uint64_t b = th ? th->block : 0;
    threads_.retire(t); // it has no more events: nothing of its state is needed
    xs_.retire(t);
    if (b)
        leave(b);
}

void SingleTrackDetector::on_begin(const Event& e, const Symbols& syms) {
    const ThreadId t = e.thread;
    ThreadState& th = threads_[t];
    if (th.own_open)
        return fail(e, fmt::format("thread {} begins a deterministic block inside its own "
                                   "block of event {} (blocks do not nest)",
                                   syms.threads.name(t), std::uint64_t{th.own_begin}));
    th.own_open = true;
    th.own_begin = e.number;
    if (th.block) { // forked inside a block: this one is part of it (docs/determinism.md)
        th.flattened = true;
        return;
    }
    th.block = e.number;
    members_[e.number] = 1;
    cf_.begin(t, e.number);
    xs_.begin(t, e.number, e);
}

void SingleTrackDetector::on_end(const Event& e, const Symbols& syms) {
    ThreadState& th = threads_[e.thread];
    if (!th.own_open)
        return fail(e, fmt::format("thread {} ends a deterministic block outside one",
                                   syms.threads.name(e.thread)));
    th.own_open = false;
    if (th.flattened) {
        th.flattened = false;
        return;
    }
    const std::uint64_t b = th.block;
    th.block = 0;
    leave(b);
}

void SingleTrackDetector::on_fork(const Event& e, const Symbols& syms) {
    const ThreadId t = e.thread;
    const ThreadSets::Set children = syms.thread_sets[e.target];
    const std::uint64_t b = threads_[t].block;
    for (ThreadId u : children) { // XS FORK IN: the children join the forker's transaction
        threads_[u].block = b;
        if (b)
            ++members_[b];
    }
    cf_.fork(t, children);
    xs_.fork(t, b, children, e);
    cycle(e, syms);
}

void SingleTrackDetector::on_barrier_enter(const Event& e, const Symbols& syms) {
    const ThreadId t = e.thread;
    const BarrierGenerations::Entry in = generations_.enter(t, e.target);
    if (in.finished) {
        cf_.barrier_forget(in.finished);
        xs_.barrier_forget(in.finished);
    }
    cf_.barrier_enter(t, in.generation);
    xs_.barrier_enter(t, threads_[t].block, in.generation, e);
    cycle(e, syms);
}

void SingleTrackDetector::check(const Event& e, const Symbols& syms) {
    // Reads, writes, lock operations; volatiles are variables here (SingleTrack §5); enq/deq
    // operate on their queue as lock operations do on their lock (docs/determinism.md).
    const OpInfo& op = op_info(e.op);
    const ObjId obj =
        op.operand == Operand::queue_item ? syms.queue_items.queue(e.target) : e.target;
    const std::uint64_t b = threads_[e.thread].block;
    if (b) {
        const auto a =
            op.role == Role::memory || op.mech == MechKind::volatile_
                ? (op.writes ? ConflictFreedom::Access::write : ConflictFreedom::Access::read)
                : ConflictFreedom::Access::write;
        if (std::optional<AccessRef> with = cf_.access(b, a, object_key(op.space, obj), e))
            conflict(e, syms, op.space, obj, *with);
    }
    xs_.access(e.thread, b, op.space, obj, e.op, e);
    cycle(e, syms);
}

void SingleTrackDetector::conflict(const Event& e, const Symbols& syms, Namespace space, ObjId obj,
                                   const AccessRef& with) {
    Finding f;
    f.kind = FindingKind::conflict;
    f.var = syms.names(space).name(obj);
    f.access = AccessRef::of(e);
    f.with = with;
    f.block = threads_[e.thread].block;
    const bool sync =
        space == Namespace::lock || space == Namespace::volatile_ || space == Namespace::queue;
    f.message = fmt::format(
        "the {} by {} (event {}) and the {} by {} (event {}) are in the deterministic block of "
        "event {} and neither is ordered before the other by program order, fork, join or a "
        "barrier{}",
        describe(with.op), syms.threads.name(with.thread), with.event, describe(e.op),
        syms.threads.name(e.thread), e.number, *f.block,
        sync ? fmt::format("; inside a block {} {} orders nothing (SingleTrack, Figure 4)",
                           to_string(space), f.var)
             : "");
    findings_.push_back(std::move(f));
}

void SingleTrackDetector::cycle(const Event& e, const Symbols& syms) {
    if (xs_.cycles().empty())
        return;
    // The edges of one event (a join of several threads) may each close cycles: by block.
    std::vector<TransactionalHbGraph::Cycle> cycles = xs_.cycles();
    std::sort(cycles.begin(), cycles.end(),
              [](const auto& a, const auto& b) { return a.block < b.block; });
    for (const TransactionalHbGraph::Cycle& c : cycles) {
        Finding f;
        f.kind = FindingKind::cycle;
        const OpInfo& op = op_info(e.op);
        if (op.operand == Operand::name)
            f.var = syms.names(op.space).name(e.target);
        else if (op.operand == Operand::queue_item)
            f.var = syms.queues.name(syms.queue_items.queue(e.target));
        f.access = AccessRef::of(e);
        f.block = c.block;
        f.cycle = c.nodes;
        std::string edges;
        for (std::size_t i = 0; i < c.nodes.size(); ++i) {
            const auto& cause = c.causes[i];
            edges += fmt::format("{}{} -> {} ({} {} before event {})", edges.empty() ? "" : ", ",
                                 c.nodes[i], c.nodes[(i + 1) % c.nodes.size()],
                                 cause.path ? "a path from event" : "event", cause.from_event,
                                 cause.to_event);
        }
        f.message = fmt::format("the deterministic block of event {} is on a cycle of "
                                "transactions (a block by its begin event, any other event by "
                                "itself) that no serial order can follow: {}; event {} closes it",
                                c.block, edges, e.number);
        findings_.push_back(std::move(f));
    }
}

} // namespace sfg
