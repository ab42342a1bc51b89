#!/usr/bin/env bash
# Regenerates the learned cost model that ships inside the library (data/cost_model.ubj): measures
# random pipelines under random schedules on this machine (cost_model_trainer, in build/), trains
# gradient-boosted trees with a pairwise rank loss on them, and reports the rank correlation
# (Kendall's tau) of predicted and measured times on pipelines held out of the training.
#
#   scripts/train_cost_model.sh [PIPELINES [SCHEDULES [SEED]]]
#
# Run it with nothing else running: the measurements are its data. Rebuild afterwards (cmake
# embeds the model in the library); the datasets stay in build/cost_model/ for retraining.
set -euo pipefail
cd "$(dirname "$0")/.."
pipelines="${1:-24}"
schedules="${2:-16}"
seed="${3:-1}"
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake --build "$build_dir" --target cost_model_trainer
mkdir -p "$build_dir/cost_model"
dataset="$build_dir/cost_model/dataset_seed${seed}.csv"
"$build_dir/apps/autoscheduler/cost_model_trainer" --pipelines="$pipelines" --schedules="$schedules" \
  --seed="$seed" --dataset="$dataset"
# Every dataset measured so far on this machine trains the model.
datasets=$(ls "$build_dir"/cost_model/dataset_seed*.csv | paste -sd, -)
mkdir -p data
"$build_dir/apps/autoscheduler/cost_model_trainer" --train="$datasets" --depth=2 --rounds=60 --model=data/cost_model.ubj
cmake "$build_dir" >/dev/null
