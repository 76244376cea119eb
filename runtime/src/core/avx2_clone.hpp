// SFG_AVX2_CLONE before a function (SFG_SIMD, docs/architecture.md): GCC compiles it twice, for
// AVX2 and for the baseline, and picks one at load time (`target_clones`). Without SFG_SIMD, off
// x86-64, or in a sanitizer build, it is nothing: the one baseline version.
#pragma once

#if SFG_SIMD && defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) &&      \
    !defined(__SANITIZE_THREAD__)
#define SFG_AVX2_CLONE [[gnu::target_clones("avx2", "default")]]
#else
#define SFG_AVX2_CLONE
#endif
