#!/usr/bin/env bash
# Builds Tessera with AddressSanitizer and UndefinedBehaviorSanitizer into build-sanitize/ (or
# $TESSERA_SANITIZE_BUILD_DIR), at -O1 with debug info and libstdc++'s assertions, and runs the
# correctness tests under them. scripts/test.sh runs it after the Release suite. Extra arguments go
# to ctest, e.g. -R simplify.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TESSERA_SANITIZE_BUILD_DIR:-build-sanitize}"
# The debug prefix map keeps this clone's path out of the debug info, so ccache reuses the objects
# of another clone (CI builds in a fresh one). The benchmarks are not built: timings under ASan mean
# nothing, and what their smoke test checks, the Release suite checks.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g -D_GLIBCXX_ASSERTIONS -fdebug-prefix-map=$PWD=." \
  -DTESSERA_SANITIZE=address,undefined -DTESSERA_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build_dir"
# The randomized schedule test lowers each pipeline many times slower under the sanitizers: here
# it runs the first case of each kind, with nests two levels deep at most (the Release suite runs
# all of its fixed seeds, and the campaign the long form).
export TESSERA_RANDOM_SCHEDULES="${TESSERA_RANDOM_SCHEDULES:-1}"
export TESSERA_RANDOM_SCHEDULE_NEST_COST="${TESSERA_RANDOM_SCHEDULE_NEST_COST:-2}"
# Every test but the install test (labelled install), which checks the package a user installs and
# builds against in Release, not Tessera's code; it is the Release suite's job. The ONNX conformance
# suites (labelled conformance) take too long under the sanitizers; the graph tests, the ONNX loader's
# fuzz run among them, do run.
# The tuning tests that search (autotune_test, graph/tuning_test) compile dozens of candidate
# schedules in worker processes, minutes of work under the sanitizers: the Release suite runs them;
# here the unit tests of their records, plans, features and cost model run, and tutorial 16 tunes.
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" -L '^(unit|correctness|error|graph|tutorial|app|gpu)$' \
  -E '^(correctness/autotune_test|graph/tuning_test):' "$@"
