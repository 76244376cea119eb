// `hb`: happens-before race detection with vector clocks, DJIT+ style (Pozniansky & Schuster):
// per variable, the clock and site of each thread's last read and last write.
#pragma once

#include "sfg/runtime/report.hpp"
#include "sfg/runtime/sync_clocks.hpp"

#include <vector>

namespace sfg {

class HbDetector : public RaceDetector {
public:
    void on_event(const Event& e, const Symbols& syms) override;

private:
    struct Slot {
        Clock clock = 0;
        Site site;
    };
    struct Var {
        bool raced = false;
        std::vector<Slot> reads, writes; // by thread
    };
    void race(Var& v, const Event& e, ThreadId with_thread, Op with_op, const Slot& with);

    SyncClocks clocks_;
    std::vector<Var> vars_;
};

} // namespace sfg
