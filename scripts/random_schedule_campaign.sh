#!/usr/bin/env bash
# The long form of the randomized schedule test: CASES random pipelines under random schedules
# (default 20000), spread over the test's seven kinds of pipeline and schedule (the sixth: GPU
# schedules, run in emulation; the seventh: the automatic scheduler's) and over JOBS processes (default: one per core), each case checked
# against the default schedule and plain C++, in the normal and the checked mode. Builds the test first (into build/, or $TESSERA_BUILD_DIR).
#
#   scripts/random_schedule_campaign.sh [CASES] [FIRST_SEED] [JOBS]
#
# Seeds of kind k run from FIRST_SEED + k * 1000000 (default FIRST_SEED 100000), so campaigns with
# other first seeds test other cases: a campaign can be run in parts, each with its own first seed.
# Prints a line per failing case (its seed and kind: rerun it as the failure's report says) and
# closes with the cases run, the failures and the wall time. The logs of every chunk stay in
# build/random_schedule_campaign/seed<FIRST_SEED>/, beside the copy of the test program that ran
# (so rebuilding during a campaign changes nothing) and the commit it was built from.
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-20000}"
first_seed="${2:-100000}"
jobs="${3:-$(nproc)}"
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake --build "$build_dir" --target correctness_random_schedule_test >/dev/null
logs="$PWD/$build_dir/random_schedule_campaign/seed$first_seed"
rm -rf "$logs"
mkdir -p "$logs"
test_program="$logs/correctness_random_schedule_test"
cp "$build_dir/tests/correctness_random_schedule_test" "$test_program"
git describe --always --dirty >"$logs/commit" 2>/dev/null || true

# doctest's filters (a comma would separate two).
kinds=(
  "random stencil pipelines give the same bits*"
  "random pipelines with reductions give the same bits*"
  "random pipelines over tiny regions give the same bits*"
  "random pipelines with every Func placed inside its consumers*"
  "random pipelines under tiled schedules*"
  "random pipelines under random GPU schedules*"
  "random pipelines scheduled by the automatic scheduler*"
)
chunk=50
per_kind=$(((cases + ${#kinds[@]} - 1) / ${#kinds[@]}))

# One line per chunk: kind index, first seed, number of cases. The kinds take turns, so that a
# campaign stopped part way has tested each about as much.
chunks() {
  for ((done = 0; done < per_kind; done += chunk)); do
    for k in "${!kinds[@]}"; do
      n=$((per_kind - done < chunk ? per_kind - done : chunk))
      echo "$k $((first_seed + k * 1000000 + done)) $n"
    done
  done
}

# A run of cases that passes this (a case that does not finish compiling) is stopped; the case it
# was at counts as a failure, and the chunk goes on from the next seed.
chunk_timeout="${TESSERA_CAMPAIGN_CHUNK_TIMEOUT:-900}"
export test_program logs chunk_timeout
start=$(date +%s)
# Bash cannot export arrays: each worker receives its kind's name as an argument instead.
chunks | while read -r k seed n; do printf '%s\t%s\t%s\t%s\n' "$k" "$seed" "$n" "${kinds[$k]}"; done |
  xargs -P "$jobs" -d '\n' -n 1 bash -c '
    IFS=$'"'"'\t'"'"' read -r k seed n kind <<<"$0"
    log="$logs/kind$k-seed$seed.log"
    end=$((seed + n))
    : >"$log"
    while [ "$seed" -lt "$end" ]; do
      part="$log.part"
      status=0
      TESSERA_RANDOM_SCHEDULE_PROGRESS=1 TESSERA_RANDOM_SCHEDULES=$((end - seed)) TESSERA_RANDOM_SCHEDULE_SEED="$seed" \
        timeout "$chunk_timeout" stdbuf -oL "$test_program" -tc="$kind" >"$part" 2>&1 || status=$?
      cat "$part" >>"$log"
      if [ "$status" -ne 124 ]; then rm -f "$part"; break; fi
      stuck=$(grep -o "starting seed [0-9]*" "$part" | tail -n 1 | awk "{print \$3}")
      stuck=${stuck:-$seed}
      failed=$(grep -c "ERROR: seed" "$part" || true)
      rm -f "$part"
      echo "MESSAGE: $((stuck - seed - failed)) of $((stuck - seed + 1)) cases from seed $seed passed" >>"$log"
      echo "ERROR: seed $stuck (kind $k): did not finish within $chunk_timeout s" >>"$log"
      seed=$((stuck + 1))
    done'
end=$(date +%s)

passed=0
run=0
while read -r p total; do
  passed=$((passed + p))
  run=$((run + total))
done < <(grep -ho "MESSAGE: [0-9]* of [0-9]* cases" "$logs"/*.log | awk '{print $2, $4}')
failures=$(grep -h "ERROR: seed" "$logs"/*.log | sed 's/^.*ERROR: //' | cut -c1-300 || true)
expected=$((per_kind * ${#kinds[@]}))
[ -n "$failures" ] && printf '%s\n' "$failures"
echo "cases run: $run of $expected; passed: $passed; failed: $((run - passed)); wall time: $((end - start)) s; jobs: $jobs"
[ "$run" -eq "$expected" ] && [ "$passed" -eq "$run" ]
