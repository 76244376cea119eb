// The live runtime in doctest suites (docs/enforcers.md, "Test frameworks"): a session whose
// findings fail the test case that caused them, when the session ends, on the test's own thread
// (never from an instrumented operation); and SFG_EXPECT_FINDING for negative tests.
//
//     TEST_CASE("deposits") {
//         sfg::doctest_session s(bank::spec());
//         ...                                   // threads joined before s ends
//     }
#pragma once

#include "sfg/sfg.hpp"

#include <doctest/doctest.h>

#include <string>

namespace sfg {

class doctest_session : public session {
public:
    // Findings are collected (not printed): the test reports them. SFG_OPTIONS still applies.
    // A finding is reported at `where`, the line that opened the session.
    explicit doctest_session(const spec& s, session_options o = collected(),
                             source_location where = source_location::current())
        : session(s, std::move(o)), where_(where) {}
    explicit doctest_session(session_options o = collected(),
                             source_location where = source_location::current())
        : session(std::move(o)), where_(where) {}
    ~doctest_session() {
        close();
        for (const finding& f : unexpected_findings()) {
            const std::string msg = "sfg: " + f.kind + " on " + f.var + "\n" + f.message;
            ADD_FAIL_CHECK_AT(where_.file_name(), static_cast<int>(where_.line()), msg);
        }
    }
    static session_options collected() {
        session_options o;
        o.policy = on_finding::collect;
        return o;
    }

private:
    source_location where_;
};

} // namespace sfg

// Runs the statements (which must join the threads they start) and checks that the open session
// found a `kind` finding ("violation", "race", "warning", "misuse") on `var` meanwhile; those
// findings are expected and fail nothing. A finding_error they throw is caught.
#define SFG_EXPECT_FINDING(kind, var, ...)                                                         \
    do {                                                                                           \
        ::sfg::session* sfg_session_ = ::sfg::session::current();                                  \
        REQUIRE_MESSAGE(sfg_session_, "SFG_EXPECT_FINDING needs an open sfg::session");            \
        const std::size_t sfg_mark_ = sfg_session_->mark();                                        \
        try {                                                                                      \
            __VA_ARGS__;                                                                           \
        } catch (const ::sfg::finding_error&) {                                                    \
        }                                                                                          \
        CHECK_MESSAGE(sfg_session_->expect(sfg_mark_, kind, var),                                  \
                      (std::string("expected a ") + kind + " finding on " + var));                 \
    } while (false)
