// What the test-framework adapters share (sfg/doctest.hpp, sfg/gtest.hpp; docs/enforcers.md,
// "Test frameworks"): a session that reports its unexpected findings through the framework when
// it ends, on the test's own thread, and the body of SFG_EXPECT_FINDING.
#pragma once

#include "sfg/sfg.hpp"

#include <string>
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
} // namespace detail

} // namespace sfg
