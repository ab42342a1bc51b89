#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then configures, builds and runs the consumer
# project, whose build runs its generator, against it, the way a user would.
#   run.sh <tessera build dir> <scratch dir>
set -euo pipefail
build_dir="$1"
scratch="$2"
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" > /dev/null
# Quiet unless something fails, then everything that step printed.
quietly() {
  if ! "$@" > "$scratch/log" 2>&1; then
    cat "$scratch/log"
    exit 1
  fi
}
quietly cmake -S "$(dirname "$0")" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix"
quietly cmake --build "$scratch/build" -j 1
"$scratch/build/consumer"
