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

} // namespace sfg
