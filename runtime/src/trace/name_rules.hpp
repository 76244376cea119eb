// The rules for names (docs/traces.md, "Text format"; trace.hpp): what a valid name of each
// namespace is. Every reader of names checks them here (text, binary, SLP and ZipTrack readers,
// the live runtime's names), so that every name can be written as text and none can forge a line
// of a report.
#pragma once

#include "sfg/runtime/op.hpp"

#include <string_view>

namespace sfg::text_trace {

inline bool is_space(char c) {
    return c == ' ' || c == '\t';
}

// Names are any bytes but white space, control characters and the separators `|(),`.
struct NameChars {
    bool ok[256] = {};
    constexpr NameChars() {
        for (int c = 0x21; c < 256; ++c)
            ok[c] = c != 0x7f && c != '|' && c != '(' && c != ')' && c != ',';
    }
};
inline constexpr NameChars name_chars;
inline bool is_name_char(char c) {
    return name_chars.ok[static_cast<unsigned char>(c)];
}

// A name is one or more name characters.
inline bool is_valid_name(std::string_view s) {
    if (s.empty())
        return false;
    for (char c : s)
        if (!is_name_char(c))
            return false;
    return true;
}
// A location is text without control characters other than tab, neither empty nor starting or
// ending with a blank.
inline bool is_valid_location(std::string_view s) {
    if (s.empty() || is_space(s.front()) || is_space(s.back()))
        return false;
    for (char c : s)
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
            return false;
    return true;
}

// A valid name of namespace `space`. A thread's name starts its line, where `#` starts a comment
// instead; a volatile's name has no '=': vr(v=K) / vw(v=K) carry a value after one.
inline bool is_valid_name(Namespace space, std::string_view s) {
    switch (space) {
    case Namespace::location:
        return is_valid_location(s);
    case Namespace::thread:
        return is_valid_name(s) && s.front() != '#';
    case Namespace::volatile_:
        return is_valid_name(s) && s.find('=') == std::string_view::npos;
    default:
        return is_valid_name(s);
    }
}

} // namespace sfg::text_trace
