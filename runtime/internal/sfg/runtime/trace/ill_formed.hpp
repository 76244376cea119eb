// What an ill-formed event breaks (docs/traces.md, "Well-formedness"), worded once for the
// stream's checker (well_formed.cpp), the grammar's (slp_well_formed.cpp) and the model checker's
// failures (checker/src/interpreter.cpp, docs/programs.md "Failures"). `line`: where the earlier
// event involved is (0: not known, as on a grammar or in a program's state).
#pragma once

#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace sfg::ill_formed {

inline std::string at_line(std::uint32_t line) {
    return line ? fmt::format(" at line {}", line) : std::string();
}

inline std::string after_join(std::string_view t, std::uint32_t line) {
    return fmt::format("event of thread {} after it was joined{}", t, at_line(line));
}
inline std::string acquire_own(std::string_view t, std::string_view m, std::uint32_t line) {
    return fmt::format("thread {} acquires lock {}, which it already holds ({}locks are not "
                       "re-entrant)",
                       t, m, line ? fmt::format("since line {}; ", line) : "");
}
inline std::string acquire_held(std::string_view t, std::string_view m, std::string_view holder,
                                std::uint32_t line) {
    return fmt::format("thread {} acquires lock {}, which is held by thread {}{}", t, m, holder,
                       at_line(line));
}
inline std::string release_free(std::string_view t, std::string_view m) {
    return fmt::format("thread {} releases lock {}, which is not held", t, m);
}
inline std::string release_held(std::string_view t, std::string_view m, std::string_view holder,
                                std::uint32_t line) {
    return fmt::format("thread {} releases lock {}, which is held by thread {}{}", t, m, holder,
                       at_line(line));
}
inline std::string exit_not_entered(std::string_view t, std::string_view b) {
    return fmt::format("thread {} exits barrier {} without entering it just before", t, b);
}
inline std::string fork_self(std::string_view t) {
    return fmt::format("thread {} forks itself", t);
}
inline std::string fork_forked(std::string_view t, std::string_view u, std::uint32_t line) {
    return fmt::format("thread {} forks thread {}, which was already forked{}", t, u,
                       at_line(line));
}
inline std::string fork_started(std::string_view t, std::string_view u, std::uint32_t line) {
    return fmt::format("thread {} forks thread {}, which already has events (first{})", t, u,
                       at_line(line));
}
inline std::string fork_ended(std::string_view t, std::string_view u, std::uint32_t line) {
    return fmt::format("thread {} forks thread {}, which has already ended{}", t, u, at_line(line));
}
inline std::string join_self(std::string_view t) {
    return fmt::format("thread {} joins itself", t);
}
// A program's join left waiting for a thread that no fork started (docs/programs.md; a trace
// has no such event: a join is in it only once it happened).
inline std::string join_unforked(std::string_view t, std::string_view u) {
    return fmt::format("thread {} joins thread {}, which is never forked", t, u);
}
inline std::string dequeue_absent(std::string_view t, std::string_view q, std::string_view o) {
    return fmt::format("thread {} takes {} out of queue {}, which holds no {} put in before", t, o,
                       q, o);
}

} // namespace sfg::ill_formed
