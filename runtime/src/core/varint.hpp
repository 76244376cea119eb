// LEB128 unsigned varints, the integers of the binary trace format and of SLP files
// (docs/traces.md, docs/compressed.md): 7 bits a byte, low first, the high bit set on all but the
// last.
#pragma once

#include <cstdint>
#include <string>

namespace sfg {

inline void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

// Signed integers (the values of vr/vw) as zigzag varints: 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
inline std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ (v < 0 ? ~std::uint64_t{0} : 0);
}
inline std::int64_t unzigzag(std::uint64_t u) {
    return static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

} // namespace sfg
