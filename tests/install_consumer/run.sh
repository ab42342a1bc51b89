#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then configures, builds and runs the consumer
# project against it, the way a user would.
#   run.sh <tessera build dir> <scratch dir>
set -euo pipefail
build_dir="$1"
scratch="$2"
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" > /dev/null
cmake -S "$(dirname "$0")" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
cmake --build "$scratch/build" > /dev/null
"$scratch/build/consumer"
"$scratch/build/graph_consumer"
"$scratch/prefix/bin/tessera-onnx" --help > /dev/null
