// The live runtime in GoogleTest suites (docs/enforcers.md, "Test frameworks"): a session whose
// findings fail the test that caused them, when the session ends, on the test's own thread
// (never from an instrumented operation: googletest's reporting must not run inside them); and
// SFG_EXPECT_FINDING for negative tests.
//
//     TEST(Bank, Deposits) {
//         sfg::gtest_session s(bank::spec());
//         ...                                   // threads joined before s ends
//     }
#pragma once

#include "sfg/sfg.hpp"

#include <gtest/gtest.h>

namespace sfg {

class gtest_session : public session {
public:
    // Findings are collected (not printed): the test reports them. SFG_OPTIONS still applies.
    // A finding is reported at `where`, the line that opened the session.
    explicit gtest_session(const spec& s, session_options o = collected(),
                           source_location where = source_location::current())
        : session(s, std::move(o)), where_(where) {}
    explicit gtest_session(session_options o = collected(),
                           source_location where = source_location::current())
        : session(std::move(o)), where_(where) {}
    ~gtest_session() {
        close();
        for (const finding& f : unexpected_findings()) {
            const std::string msg = "sfg: " + f.kind + " on " + f.var + "\n" + f.message;
            ADD_FAILURE_AT(where_.file_name(), static_cast<int>(where_.line())) << msg;
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
        if (!sfg_session_) {                                                                       \
            ADD_FAILURE() << "SFG_EXPECT_FINDING needs an open sfg::session";                      \
            break;                                                                                 \
        }                                                                                          \
        const std::size_t sfg_mark_ = sfg_session_->mark();                                        \
        try {                                                                                      \
            __VA_ARGS__;                                                                           \
        } catch (const ::sfg::finding_error&) {                                                    \
        }                                                                                          \
        EXPECT_TRUE(sfg_session_->expect(sfg_mark_, kind, var))                                    \
            << "expected a " << kind << " finding on " << var;                                     \
    } while (false)
