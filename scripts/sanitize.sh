#!/bin/sh
# Runs every C++ test under AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer:
# configures BUILD (default build-asan: Debug, -DRHOFLOW_SANITIZE=ON), builds it and runs ctest
# there, then prints the wall and CPU time of the build and of the tests (docs/verification.md,
# "Sanitizers"). The Python module is not built there (docs/python.md), so its tests are not run.
#
#   scripts/sanitize.sh [BUILD [CTEST_ARGS...]]     e.g. nice -n 19 scripts/sanitize.sh
#   JOBS=2 (build and ctest jobs)   TIMEOUT=1800 (seconds per test that sets none itself)
#
# Any sanitizer report fails its test: ASan and UBSan stop the process (halt_on_error), leaks
# are checked at every exit except in the MPI cases (tests/CMakeLists.txt says why). Exit status:
# ctest's (0 when every test passed). POSIX sh, no network.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-asan}
[ $# -gt 0 ] && shift
jobs=${JOBS:-2}
launcher=""
command -v ccache >/dev/null 2>&1 && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"

log=$build/sanitize.log
cpu() {  # user + system seconds of this shell's finished children: the second line of `times`
  times > "$build/.times"  # a builtin with a redirection runs in this shell, not a subshell
  sed -n 2p "$build/.times" | awk '{ n = 0; for (i = 1; i <= 2; ++i) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } printf "%.0f", n }'
}

mkdir -p "$build"
t0=$(date +%s); cpu > "$build/.c0"
# shellcheck disable=SC2086
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DRHOFLOW_SANITIZE=ON $launcher
cmake --build "$build" -j "$jobs"
t1=$(date +%s); cpu > "$build/.c1"

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS
rm -f "$build/.rc"
# (set -e ends a pipeline's group at a failing command: the status is caught, not tested)
{ st=0; ctest --test-dir "$build" -j "$jobs" --timeout "${TIMEOUT:-1800}" --output-on-failure "$@" 2>&1 || st=$?; echo "$st" > "$build/.rc"; } | tee "$log"
rc=$(cat "$build/.rc")
t2=$(date +%s); cpu > "$build/.c2"
c0=$(cat "$build/.c0"); c1=$(cat "$build/.c1"); c2=$(cat "$build/.c2")

echo "sanitize: the slowest tests (wall seconds, shared by $jobs jobs):"
sed -n 's/^ *[0-9]*\/[0-9]* *Test *#[0-9]*: \(.*[^ .]\) \.\.*.* \([0-9.][0-9.]*\) sec$/\2 \1/p' "$log" | sort -rn | head -15
echo "sanitize: build $((t1 - t0)) s wall, $((c1 - c0)) s CPU; tests $((t2 - t1)) s wall, $((c2 - c1)) s CPU; ctest exit $rc (log: $log)"
exit "$rc"
