// What the test-framework adapters share (sfg/doctest.hpp, sfg/gtest.hpp; docs/enforcers.md,
// "Test frameworks"): a session that reports its unexpected findings through the framework when
// it ends, on the test's own thread, the body of SFG_EXPECT_FINDING, and explorations whose
// findings fail the test (docs/explore.md, "In a test suite").
#pragma once

#include "sfg/explore.hpp"
#include "sfg/sfg.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace sfg {

// Report(where, message) fails the current test at `where`.
template <class Report>
class basic_test_session : public session {
public:
    // Findings are collected (not printed): the test reports them. SFG_OPTIONS still applies.
    // A finding is reported at `where`, the line that opened the session.
    explicit basic_test_session(const spec& s, session_options o = collected(),
                                source_location where = source_location::current())
        : session(s, std::move(o)), where_(where) {}
    explicit basic_test_session(session_options o = collected(),
                                source_location where = source_location::current())
        : session(std::move(o)), where_(where) {}
    ~basic_test_session() {
        close();
        for (const finding& f : unexpected_findings())
            Report{}(where_, "sfg: " + f.kind + " on " + f.var + "\n" + f.message);
    }
    static session_options collected() {
        session_options o;
        o.policy = on_finding::collect;
        return o;
    }

private:
    source_location where_;
};

namespace detail {
// SFG_EXPECT_FINDING: runs `statements` (a finding_error they throw is caught) and marks the
// open session's `kind` findings on `var` since then as expected. Returns what went wrong, or
// an empty string.
template <class F>
std::string expect_finding(const char* kind, const char* var, F&& statements) {
#if defined(SFG_DISABLE) // nothing is checked: the statements run, and pass
    (void)kind, (void)var;
    std::forward<F>(statements)();
    return {};
#else
    session* s = session::current();
    if (!s)
        return "SFG_EXPECT_FINDING needs an open sfg::session";
    const std::size_t mark = s->mark();
    try {
        std::forward<F>(statements)();
    } catch (const finding_error&) {
    }
    return s->expect(mark, kind, var) ? std::string()
                                      : std::string("expected a ") + kind + " finding on " + var;
#endif
}

// What an exploration must fail its test with: any finding when `kind` is empty; else none of
// that kind (on `var`, when not empty), or any other. Empty: nothing to fail.
inline std::string explore_failure(const explore_report& r, std::string_view kind,
                                   std::string_view var) {
    if (kind.empty())
        return r.findings.empty() ? std::string() : r.to_string();
    bool expected = false, other = false;
    for (const explore_finding& f : r.findings) {
        const bool match = f.kind == kind && (var.empty() || f.var == var);
        expected = expected || match;
        other = other || !match;
    }
    if (!expected)
        return "sfg::explore: expected a " + std::string(kind) + " finding" +
               (var.empty() ? std::string() : " on " + std::string(var)) + "\n" + r.to_string();
    return other ? "sfg::explore: findings besides the expected one\n" + r.to_string()
                 : std::string();
}

// check_explore and expect_explore of the adapters: explores, and fails the test at `where`.
template <class Report>
explore_report explore_in_test(const spec* s, std::function<void()> body, explore_options o,
                               std::string_view kind, std::string_view var,
                               const source_location& where) {
    explore_report r =
        s ? explore(*s, std::move(body), std::move(o)) : explore(std::move(body), std::move(o));
    if (const std::string failure = explore_failure(r, kind, var); !failure.empty())
        Report{}(where, failure);
    return r;
}

} // namespace detail

// Declares check_explore and expect_explore for a test framework's Report (sfg/doctest.hpp,
// sfg/gtest.hpp): the first fails the test with the report when a run had a finding; the second
// unless some run had a `kind` finding on `var` (any variable when empty), and when any other.
#define SFG_DETAIL_EXPLORE_IN_TEST(Report)                                                         \
    inline explore_report check_explore(std::function<void()> body, explore_options o = {},        \
                                        source_location where = source_location::current()) {      \
        return detail::explore_in_test<Report>(nullptr, std::move(body), std::move(o), "", "",     \
                                               where);                                             \
    }                                                                                              \
    inline explore_report check_explore(const spec& s, std::function<void()> body,                 \
                                        explore_options o = {},                                    \
                                        source_location where = source_location::current()) {      \
        return detail::explore_in_test<Report>(&s, std::move(body), std::move(o), "", "", where);  \
    }                                                                                              \
    inline explore_report expect_explore(std::string_view kind, std::string_view var,              \
                                         std::function<void()> body, explore_options o = {},       \
                                         source_location where = source_location::current()) {     \
        return detail::explore_in_test<Report>(nullptr, std::move(body), std::move(o), kind, var,  \
                                               where);                                             \
    }                                                                                              \
    inline explore_report expect_explore(                                                          \
        const spec& s, std::string_view kind, std::string_view var, std::function<void()> body,    \
        explore_options o = {}, source_location where = source_location::current()) {              \
        return detail::explore_in_test<Report>(&s, std::move(body), std::move(o), kind, var,       \
                                               where);                                             \
    }

} // namespace sfg
