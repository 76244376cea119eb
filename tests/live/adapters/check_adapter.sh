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
[ "$status" -ne 0 ] || fail "the suite passed, but two of its cases must fail"
grep -q "sfg: violation on balance" <<<"$out" || fail "no violation report on balance"
grep -q "ERROR: discipline of balance violated (enforce)" <<<"$out" ||
    fail "the report is not sfgc trace's"
grep -q "expected a violation finding on balance" <<<"$out" || fail "no failed expectation"
case $framework in
doctest)
    grep -Eq "test cases: *5 \| *3 passed \| *2 failed" <<<"$out" || fail "not 3 passed, 2 failed"
    [ "$(grep -c '^TEST CASE:  fails:' <<<"$out")" -ge 2 ] || fail "a 'fails:' case did not fail"
    grep -q '^TEST CASE:  passes:' <<<"$out" && fail "a 'passes:' case failed"
    ;;
gtest)
    grep -q '^\[  PASSED  \] 3 tests' <<<"$out" || fail "not 3 passed"
    grep -q '^\[  FAILED  \] Bank.FailsWithoutLock$' <<<"$out" || fail "FailsWithoutLock did not fail"
    grep -q '^\[  FAILED  \] Bank.FailsExpectedMissing$' <<<"$out" ||
        fail "FailsExpectedMissing did not fail"
    ;;
esac
echo "check_adapter ($framework): as expected"
