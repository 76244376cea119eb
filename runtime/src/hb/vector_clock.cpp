#include "sfg/runtime/hb/vector_clock.hpp"
#include "core/avx2_clone.hpp"

#include <algorithm>

namespace sfg {

namespace {
// c = max(c, s) over n components, n a multiple of lanes: a fixed-size body, which the compiler
// turns into vector operations (a loop of unknown length stays scalar at -O2). SFG_SIMD
// (docs/architecture.md): an AVX2 clone beside the default one, chosen at load time (SSE2 has no
// unsigned 32-bit maximum).
SFG_AVX2_CLONE
void join_max(Clock* __restrict c, const Clock* __restrict s, std::size_t n) {
    constexpr std::size_t lanes = VectorClock::lanes;
    for (std::size_t i = 0; i < n; i += lanes, c += lanes, s += lanes)
        for (std::size_t k = 0; k < lanes; ++k)
            c[k] = std::max(c[k], s[k]);
}
} // namespace

void VectorClock::acquire(const VectorClock& sync) {
    if (&sync == this)
        return;
    grow(sync.c_.size());
    join_max(c_.data(), sync.c_.data(), sync.c_.size());
}

void VectorClock::acquire(std::span<const Clock> sync) {
    grow(sync.size());
    for (std::size_t i = 0; i < sync.size(); ++i)
        c_[i] = std::max(c_[i], sync[i]);
}

} // namespace sfg
