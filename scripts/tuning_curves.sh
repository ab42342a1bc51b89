#!/usr/bin/env bash
# Runs apps/autoscheduler/tuning_curves (best time against trials for the model-guided, genetic and
# random searches, on SGEMM 1024 and a detector convolution) and draws the curves as PNGs.
#
#   scripts/tuning_curves.sh [TRIALS] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
trials="${1:-120}"
out="${2:-build/tuning_curves}"
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake --build "$build_dir" --target tuning_curves
"$build_dir/apps/autoscheduler/tuning_curves" --trials="$trials" --out="$out" | tee "$out.txt"
for case in sgemm conv; do
  scripts/plot_tuning_curve.sh "$out/$case.png" "$case: best time found against trials" \
    "model-guided=$out/${case}_model.csv" "genetic=$out/${case}_genetic.csv" "random=$out/${case}_random.csv"
done
