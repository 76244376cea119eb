// `fasttrack`: FastTrack (Flanagan & Freund, PLDI'09). A variable keeps the epoch of its last
// write and, while its reads are totally ordered, the epoch of its last read; concurrent reads
// promote it to a read vector clock, and the next write demotes it again.
#pragma once

#include "sfg/runtime/hb/sync_clocks.hpp"
#include "sfg/runtime/race/race_detector.hpp"
#include "sfg/runtime/report.hpp"

#include <vector>

namespace sfg {

class FastTrackDetector : public RaceDetector {
public:
    void on_event(const Event& e, const Symbols& syms) override;

private:
    static constexpr std::uint32_t none = ~std::uint32_t{0};
    // An access: its epoch (clock and slot, sync_clocks.hpp) and its thread, for reports.
    struct Epoch {
        Clock clock = 0; // 0: none
        std::uint32_t slot = 0;
        ThreadId thread = 0;
        Site site;
    };
    struct Slot {
        Clock clock = 0;
        ThreadId thread = 0;
        Site site;
    };
    struct Var {
        Epoch write;
        Epoch read;                  // valid while shared == none
        std::uint32_t shared = none; // index into shared_ when read-shared
        bool raced = false;
    };
    void race(Var& v, const Event& e, ThreadId with_thread, Op with_op, const Site& with);
    // The latest read of a read vector clock that is not ordered before `now`, if any.
    const Slot* latest_racing_read(const std::vector<Slot>& reads, const VectorClock& now,
                                   std::uint32_t me) const;

    SyncClocks clocks_;
    std::vector<Var> vars_;
    std::vector<std::vector<Slot>> shared_; // read vector clocks, by slot
    std::vector<std::uint32_t> free_;       // unused entries of shared_
};

} // namespace sfg
