// Eraser's state machine for one variable (Savage et al., TOCS'97 §2): Virgin -> Exclusive(t) ->
// Shared / Shared-Modified, with the candidate set C(v) refined at every shared access. One
// definition for the detector on events (analysis_eraser.cpp) and on SLP grammars
// (slp_eraser.cpp).
#pragma once

#include "sfg/runtime/event.hpp"

#include <algorithm>
#include <span>
#include <vector>

namespace sfg {

struct EraserVar {
    enum class State : std::uint8_t { virgin, exclusive, shared, shared_modified };
    State state = State::virgin;
    bool warned = false;
    ThreadId owner = no_object;
    std::vector<ObjId> candidates; // C(v), sorted

    // What one access did.
    struct Step {
        bool warn = false;         // C(v) just became empty in Shared-Modified: report it (once)
        bool first_shared = false; // the access made the variable shared (C(v) was all locks)
        std::vector<ObjId> before; // C(v) before the access, when it shrank
    };
    // An access by t, a write or a read, holding the locks `held` (sorted).
    Step access(ThreadId t, bool write, std::span<const ObjId> held) {
        Step s;
        switch (state) {
        case State::virgin:
            state = State::exclusive;
            owner = t;
            break;
        case State::exclusive:
            if (t == owner)
                break;
            // First access by a second thread: C(v) starts as the locks held now.
            candidates.assign(held.begin(), held.end());
            state = write ? State::shared_modified : State::shared;
            s.first_shared = true;
            break;
        case State::shared:
        case State::shared_modified: {
            // C(v) := C(v) ∩ locks_held(t); copied only when it shrinks (it only shrinks).
            auto not_held = [&](ObjId m) {
                return !std::binary_search(held.begin(), held.end(), m);
            };
            if (std::any_of(candidates.begin(), candidates.end(), not_held)) {
                s.before = candidates;
                candidates.erase(std::remove_if(candidates.begin(), candidates.end(), not_held),
                                 candidates.end());
            }
            if (write)
                state = State::shared_modified;
            break;
        }
        }
        if (state == State::shared_modified && candidates.empty() && !warned) {
            warned = true;
            s.warn = true;
        }
        return s;
    }
};

} // namespace sfg
