// The resource policy of the compiler (docs/limits.md): a short spec can denote a huge graph
// (named disciplines expand to copies, ▷ and [·] connect every out-mode to every in-mode), so
// every quantity that grows with the expansion is bounded, checked before the memory is spent,
// and a bound that is hit is an error naming the option that raises it.
#pragma once

#include <cstddef>

namespace sfg {

struct CompileLimits {
    // Access modes of all variables' SFGs together (sfgc --max-modes).
    std::size_t modes = 200000;
    // Candidate edges o -> i that ▷ and [·] consider, valid or not, in all (sfgc --max-edges).
    std::size_t edges = 1000000;
    // Places plus transitions of all Petri nets together (sfgc --max-net-size).
    std::size_t net_size = 2000000;
};

} // namespace sfg
