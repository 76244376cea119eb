#include "sfg/runtime/hb/barrier_generations.hpp"

namespace sfg {

bool BarrierGenerations::leave(Generation g) {
    auto it = inside_.find(g);
    if (it == inside_.end())
        return false;
    if (--it->second.inside != 0 || !it->second.closed)
        return false;
    inside_.erase(it);
    return true;
}

BarrierGenerations::Entry BarrierGenerations::enter(ThreadId t, ObjId barrier) {
    Entry out;
    if (threads_.size() <= t)
        threads_.resize(t + 1);
    // Arriving again without a departure gives up the earlier arrival's wait (a trace may hold
    // benter(b) benter(b) bexit(b)): the earlier generation no longer waits for this thread.
    if (Inside& was = threads_[t]; was.generation != 0 && leave(was.generation))
        out.finished = was.generation;
    if (open_.size() <= barrier)
        open_.resize(barrier + 1, 0);
    if (open_[barrier] == 0) {
        open_[barrier] = ++next_;
        inside_.emplace(next_, State{});
    }
    const Generation g = open_[barrier];
    ++inside_[g].inside;
    threads_[t] = {barrier, g};
    out.generation = g;
    return out;
}

BarrierGenerations::Exit BarrierGenerations::exit(ThreadId t, ObjId barrier) {
    Exit out;
    if (t >= threads_.size() || threads_[t].generation == 0 || threads_[t].barrier != barrier)
        return out; // not inside b: an ill-formed stream that well-formedness refuses
    const Generation g = threads_[t].generation;
    threads_[t] = {};
    out.generation = g;
    // The first departure closes the generation: later arrivals open the next one.
    if (open_[barrier] == g) {
        open_[barrier] = 0;
        inside_[g].closed = true;
        out.closes = true;
    }
    out.finished = leave(g);
    return out;
}

} // namespace sfg
