// `eraser`: the lockset discipline of Savage et al. (Eraser, TOCS'97 §2): every shared variable
// is protected by one lock. States Virgin -> Exclusive(t) -> Shared (read by others: locks are
// refined, nothing reported) -> Shared-Modified (written while shared: reported when the candidate
// set C(v) becomes empty). A violation of a discipline, not a race: reported as a warning, once
// per variable. It knows nothing of fork/join, volatiles or barriers (its false alarms).
#pragma once

#include "sfg/runtime/hb/lock_holders.hpp"
#include "sfg/runtime/race/eraser_rules.hpp"
#include "sfg/runtime/report.hpp"

#include <vector>

namespace sfg {

struct LocksetWarning {
    ObjId var = no_object;
    AccessRef access;              // the access that emptied C(v)
    std::optional<AccessRef> with; // the last earlier access by another thread
    std::vector<ObjId> candidates; // C(v) just before the access
    std::vector<ObjId> held;       // the locks the accessing thread held
    bool first_shared = false;     // the access made the variable shared (C(v) was all locks)
};

class EraserDetector : public Analysis {
public:
    void on_event(const Event& e, const Symbols& syms) override;
    // In event order.
    const std::vector<LocksetWarning>& warnings() const { return warnings_; }

private:
    struct Last {
        ThreadId thread = no_object;
        Op op = Op::read;
        Site site;
    };
    struct Var : EraserVar {
        Last last, last_other; // last access; last one by another thread than `last`
    };

    std::vector<Var> vars_;
    LockHolders locks_;
    std::vector<ObjId> held_; // the accessing thread's locks, sorted
    std::vector<LocksetWarning> warnings_;
};

std::vector<Finding> to_findings(const std::vector<LocksetWarning>& warnings, const Symbols& syms);

} // namespace sfg
