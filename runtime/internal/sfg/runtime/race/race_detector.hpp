// The base of the sound and precise race detectors (docs/traces.md, "Analyses"); users read their
// races as findings (analyses.hpp).
#pragma once

#include "sfg/runtime/event.hpp"
#include "sfg/runtime/report.hpp"

#include <vector>

namespace sfg {

// A sound and precise race detector (hb, fasttrack, goldilocks): one race per variable.
class RaceDetector : public Analysis {
public:
    // In order of `access.event`.
    const std::vector<Race>& races() const { return races_; }

protected:
    std::vector<Race> races_;
};

} // namespace sfg
