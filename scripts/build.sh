#!/usr/bin/env bash
# Configures and builds Tessera in Release into build/ (or $TESSERA_BUILD_DIR), with ccache.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build_dir"
