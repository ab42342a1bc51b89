#!/usr/bin/env bash
# Runs apps/autoscheduler/tuning_curves (best time against trials for the model-guided, genetic and
# random searches, from random starts, on SGEMM 1024 and a detector convolution, under each seed)
# and draws the first seed's re-measured curves as PNGs.
#
#   scripts/tuning_curves.sh [TRIALS] [SEEDS] [OUT_DIR]      e.g. scripts/tuning_curves.sh 40 1,2,3
set -euo pipefail
cd "$(dirname "$0")/.."
trials="${1:-60}"
seeds="${2:-1,2,3}"
out="${3:-build/tuning_curves}"
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake --build "$build_dir" --target tuning_curves
"$build_dir/apps/autoscheduler/tuning_curves" --trials="$trials" --seeds="$seeds" --out="$out" | tee "$out.txt"
first="${seeds%%,*}"
for case in sgemm conv; do
  scripts/plot_tuning_curve.sh "$out/$case.png" "$case: best time found against trials (seed $first, re-measured)" \
    "model-guided=$out/${case}_model_seed$first.csv" "genetic=$out/${case}_genetic_seed$first.csv" \
    "random=$out/${case}_random_seed$first.csv"
done
