// Text written for other tools (DOT) must be valid UTF-8, but file names are any bytes.
#pragma once

#include <string>
#include <string_view>

namespace sfg {

// `s` with every byte that does not start a well-formed UTF-8 sequence (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF) replaced by U+FFFD, as nlohmann::json's
// error_handler_t::replace does for the JSON writers.
inline std::string to_valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = byte(i);
        std::size_t len = c < 0x80                 ? 1
                          : c >= 0xC2 && c <= 0xDF ? 2
                          : c >= 0xE0 && c <= 0xEF ? 3
                          : c >= 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
        bool ok = len != 0 && i + len <= s.size();
        for (std::size_t k = 1; ok && k < len; ++k) {
            unsigned char lo = 0x80, hi = 0xBF;
            if (k == 1) { // the second byte narrows the range (overlongs, surrogates, > U+10FFFF)
                lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
                hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
            }
            ok = byte(i + k) >= lo && byte(i + k) <= hi;
        }
        if (ok) {
            out.append(s.substr(i, len));
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

} // namespace sfg
