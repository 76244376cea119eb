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

#include "sfg/test_session.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sfg {

struct gtest_report {
    void operator()(const source_location& where, const std::string& message) const {
        ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line())) << message;
    }
};
using gtest_session = basic_test_session<gtest_report>;

// Explorations in tests (docs/explore.md, "In a test suite"):
//     sfg::check_explore(body);                        // fails the test with the report
//     sfg::expect_explore("deadlock", "", body);       // fails it unless that is all it finds
SFG_DETAIL_EXPLORE_IN_TEST(gtest_report)

} // namespace sfg

// Runs the statements (which must join the threads they start) and checks that the open session
// found a `kind` finding ("violation", "race", "warning", "misuse") on `var` meanwhile; those
// findings are expected and fail nothing. A finding_error they throw is caught.
#define SFG_EXPECT_FINDING(kind, var, ...)                                                         \
    do {                                                                                           \
        const std::string sfg_error_ =                                                             \
            ::sfg::detail::expect_finding(kind, var, [&] { __VA_ARGS__; });                        \
        EXPECT_TRUE(sfg_error_.empty()) << sfg_error_;                                             \
    } while (false)
