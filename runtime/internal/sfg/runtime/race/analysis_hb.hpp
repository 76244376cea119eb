// `hb`: happens-before race detection with vector clocks, DJIT+ style (Pozniansky & Schuster):
// per variable, the clock and site of each thread's last read and last write.
#pragma once

#include "sfg/runtime/hb/sync_clocks.hpp"
#include "sfg/runtime/race/race_detector.hpp"
#include "sfg/runtime/report.hpp"

#include <vector>

namespace sfg {

class HbDetector : public RaceDetector {
public:
    void on_event(const Event& e, const Symbols& syms) override;

private:
    // A thread's last access, kept under the thread's slot (sync_clocks.hpp), with the thread.
    struct Slot {
        Clock clock = 0;
        ThreadId thread = no_object;
        Site site;
    };
    struct Var {
        bool raced = false;
        // A shortcut past the O(threads) scans when nothing races, as FastTrack's epochs: every
        // write recorded is ordered before the last one (last_writer's, else a race was
        // reported), and so is every read recorded before it; with reads_chained, every read
        // recorded since is ordered before the last of them (last_reader's). Ordered before
        // those, an access is ordered before all.
        bool reads_chained = true;
        std::uint32_t last_writer = no_object, last_reader = no_object; // slots; none since the
                                                                        // last write
        std::vector<Slot> reads, writes;                                // by slot
    };
    void race(Var& v, const Event& e, Op with_op, const Slot& with);

    SyncClocks clocks_;
    std::vector<Var> vars_;
};

} // namespace sfg
