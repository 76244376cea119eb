// The explorer's model of the sfg objects (docs/explore.md, "How it works"), private to
// runtime/src/explore: which lock each thread holds, how far each barrier's generations are, how
// many objects each queue has, each condition variable's waiters and notifications. It says
// whether a step may be taken now, and is copied at every node of the search, so that DPOR can
// ask whether a step could have been taken earlier (dpor.hpp).
#pragma once

#include "explore/dependence.hpp"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace sfg::explore_detail {

class Model {
public:
    // Whether e's thread may take e now (its object lets it: a free lock, a closed generation,
    // an object in the queue, a notification and a free lock). Joins are not the model's: the
    // controller knows which threads have ended.
    bool enabled(const Event& e) const;
    // e is taken. For an attempt (try_lock, try_pop), whether it succeeds.
    bool apply(const Event& e);
    // The barrier generation an arrival or departure belongs to if taken now (1, 2, ...; 0 for
    // other steps): an arrival joins the open generation, a departure leaves its own. Numbered
    // per barrier, so that steps of different rounds commute (dependence.hpp).
    std::uint32_t generation(const Event& e) const;
    // The lock's holder, if any.
    std::optional<std::uint32_t> holder(std::uint32_t lock) const;
    // Whether t waits on condition variable c with no notification for it yet.
    bool unnotified(std::uint32_t t, std::uint32_t c) const { return token_for(t, c) < 0; }

private:
    struct Barrier {
        std::uint32_t count = 0, arrived = 0;
        std::uint64_t generation = 0;
    };
    struct Cond {
        std::uint32_t seq = 0;
        std::vector<std::uint32_t> tokens; // increasing: the model checker's lazy notifications
        std::uint32_t waiting = 0;         // threads between their wait and their wake
    };
    int token_for(std::uint32_t t, std::uint32_t c) const;

    std::map<std::uint32_t, std::uint32_t> holder_; // lock -> thread
    std::map<std::uint32_t, Barrier> barriers_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> arrived_in_; // (thread, b)
    std::map<std::uint32_t, std::uint64_t> queue_length_;
    std::map<std::uint32_t, Cond> conds_;
    std::map<std::uint32_t, std::uint32_t> since_; // thread -> the seq it began waiting at
};

} // namespace sfg::explore_detail
