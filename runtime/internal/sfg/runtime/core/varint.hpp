// LEB128 unsigned varints, the integers of the binary trace format and of SLP files
// (docs/traces.md, docs/compressed.md): 7 bits a byte, low first, the high bit set on all but the
// last.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace sfg {

inline void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

// The same into buf at n, n moved past it (at most 10 bytes): for writers that fill a buffer of
// their own rather than append to a string a byte at a time (sfgc infer's logs).
inline void put_varint(unsigned char* buf, std::size_t& n, std::uint64_t v) {
    while (v >= 0x80) {
        buf[n++] = static_cast<unsigned char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    buf[n++] = static_cast<unsigned char>(v);
}

// Why a varint could not be read: the bytes end inside it, or it does not fit its type.
enum class VarintStatus : std::uint8_t { ok, truncated, out_of_range };

// The varint at p[pos] of p[0, n) into v (std::uint32_t or std::uint64_t), pos moved past it;
// the one reader of every varint in our files (pos may have moved on an error). The bit the
// type cannot hold makes a varint out of range, as do more bytes than it needs.
template <class T>
VarintStatus get_varint_bytewise(const unsigned char* p, std::size_t n, std::size_t& pos, T& v) {
    static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>);
    constexpr int bits = std::numeric_limits<T>::digits;
    constexpr int last = (bits - 1) / 7 * 7; // the shift of the last byte a T can take
    v = 0;
    for (int shift = 0;; shift += 7) {
        if (pos >= n)
            return VarintStatus::truncated;
        const unsigned b = p[pos++];
        if (shift == last && (b >> (bits - last)) != 0)
            return VarintStatus::out_of_range;
        v |= static_cast<T>(b & 0x7f) << shift;
        if (!(b & 0x80))
            return VarintStatus::ok;
    }
}

// The same, for the hot loops: varints of up to four bytes (ids and rule references) without a
// call or a bounds check a byte when four bytes are left; the rest byte by byte.
template <class T>
inline VarintStatus get_varint(const unsigned char* p, std::size_t n, std::size_t& pos, T& v) {
    if (n - pos >= 4) [[likely]] { // a loop of constant count: unrolled
        T x = 0;
        for (unsigned i = 0; i < 4; ++i) {
            const unsigned b = p[pos + i];
            x |= static_cast<T>(b & 0x7f) << (7 * i);
            if (b < 0x80) {
                v = x;
                pos += i + 1;
                return VarintStatus::ok;
            }
        }
    }
    return get_varint_bytewise(p, n, pos, v);
}

// Signed integers (the values of vr/vw) as zigzag varints: 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
inline std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ (v < 0 ? ~std::uint64_t{0} : 0);
}
inline std::int64_t unzigzag(std::uint64_t u) {
    return static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

} // namespace sfg
