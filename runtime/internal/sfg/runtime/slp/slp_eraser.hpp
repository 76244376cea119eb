// `eraser` on an SLP without expanding it (docs/compressed.md): the same warnings as
// EraserDetector (analysis_eraser.hpp) on the expanded trace. Each chunk gets the lockset
// summary of the SLP paper (§4, Eq. 10-14, with the digest's fixes): its open acquires and open
// releases per (thread, lock) and, per (variable, thread), the locks held at every access of the
// chunk (RealLocks, App. E; Eraser's dummy locks are its Virgin/Exclusive/Shared states here).
// The trace is then walked left to right over the grammar, a whole chunk at a time when the
// summary shows that no variable changes state or gets a warning inside it, into the chunk
// otherwise: at most a few descents per variable.
#pragma once

#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/slp/slp.hpp"

#include <string>
#include <utility>
#include <vector>

namespace sfg {

// The warnings of `eraser` on the trace of a well-formed SLP, in event order.
std::vector<LocksetWarning> slp_eraser_warnings(const Slp& slp, const Symbols& syms);

// A rule's lockset summary, for tests against the paper's examples: open acquires and releases
// as "thread,lock", and the locks held at every access of each "thread,variable".
struct SlpLocksetDump {
    std::vector<std::string> open_acq, open_rel;
    std::vector<std::pair<std::string, std::vector<std::string>>> locksets;
};
SlpLocksetDump slp_lockset_dump(const Slp& slp, const Symbols& syms, std::uint32_t rule);

} // namespace sfg
