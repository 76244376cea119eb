#!/usr/bin/env bash
# check_adapter.sh doctest|gtest BINARY: the adapter's suite must fail exactly its "fails" cases,
# each with sfg's report, and pass the others.
set -uo pipefail
framework=$1 bin=$2
out=$("$bin" 2>&1)
status=$?
fail() {
    echo "check_adapter ($framework): FAIL: $*"
    echo "--- output:"
    echo "$out"
    exit 1
}
[ "$status" -ne 0 ] || fail "the suite passed, but three of its cases must fail"
grep -q "sfg: violation on balance" <<<"$out" || fail "no violation report on balance"
grep -q "ERROR: discipline of balance violated (enforce)" <<<"$out" ||
    fail "the report is not sfgc trace's"
grep -q "expected a violation finding on balance" <<<"$out" || fail "no failed expectation"
grep -q "sfg::explore: .* executions, .* classes, complete; [1-9][0-9]* finding" <<<"$out" ||
    fail "no exploration report"
grep -q "check failed: the balance is back to 100" <<<"$out" || fail "no lost update explored"
case $framework in
doctest)
    grep -Eq "test cases: *8 \| *5 passed \| *3 failed" <<<"$out" || fail "not 5 passed, 3 failed"
    [ "$(grep -c '^TEST CASE:  fails:' <<<"$out")" -ge 3 ] || fail "a 'fails:' case did not fail"
    grep -q '^TEST CASE:  passes:' <<<"$out" && fail "a 'passes:' case failed"
    ;;
gtest)
    grep -q '^\[  PASSED  \] 5 tests' <<<"$out" || fail "not 5 passed"
    grep -q '^\[  FAILED  \] Bank.FailsWithoutLock$' <<<"$out" || fail "FailsWithoutLock did not fail"
    grep -q '^\[  FAILED  \] Bank.FailsExpectedMissing$' <<<"$out" ||
        fail "FailsExpectedMissing did not fail"
    grep -q '^\[  FAILED  \] Explore.FailsWithoutLock$' <<<"$out" ||
        fail "Explore.FailsWithoutLock did not fail"
    ;;
esac
echo "check_adapter ($framework): as expected"
