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
    // A ▷ or [·] whose |O| x |I| candidate edges are more than this many and all valid through a
    // lock or a volatile, between modes of one thread each (a pool's [EX(each W)]^m past 64
    // workers), keeps them as one rule, an EdgeFamily (net.hpp, docs/language.md): it costs
    // |O| + |I| of the budgets above, not |O| x |I|.
    std::size_t family_from = 4096;
};

} // namespace sfg
