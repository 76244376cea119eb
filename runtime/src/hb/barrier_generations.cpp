#include "sfg/runtime/hb/barrier_generations.hpp"

#include <algorithm>

namespace sfg {

bool BarrierGenerations::leave(ObjId b, Generation g) {
    std::vector<State>& live = live_[b];
    auto it =
        std::find_if(live.begin(), live.end(), [g](const State& s) { return s.generation == g; });
    if (it == live.end())
        return false;
    if (--it->inside != 0 || !it->closed)
        return false;
    *it = live.back();
    live.pop_back();
    --live_count_;
    return true;
}

BarrierGenerations::Entry BarrierGenerations::enter(ThreadId t, ObjId barrier) {
    Entry out;
    if (threads_.size() <= t)
        threads_.resize(t + 1);
    // Arriving again without a departure gives up the earlier arrival's wait (a trace may hold
    // benter(b) benter(b) bexit(b)): the earlier generation no longer waits for this thread.
    if (Inside& was = threads_[t]; was.generation != 0 && leave(was.barrier, was.generation))
        out.finished = was.generation;
    if (open_.size() <= barrier) {
        open_.resize(barrier + 1, 0);
        live_.resize(barrier + 1);
    }
    std::vector<State>& live = live_[barrier];
    if (open_[barrier] == 0) {
        open_[barrier] = ++next_;
        live.push_back({next_, 0, false});
        ++live_count_;
    }
    const Generation g = open_[barrier];
    ++std::find_if(live.begin(), live.end(), [g](const State& s) {
          return s.generation == g;
      })->inside;
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
        for (State& s : live_[barrier])
            s.closed = s.closed || s.generation == g;
        out.closes = true;
    }
    out.finished = leave(barrier, g);
    return out;
}

} // namespace sfg
