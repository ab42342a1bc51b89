#!/usr/bin/env bash
# Runs every case of Debian's ONNX backend test data (libonnx-testdata) through tessera-onnx and
# writes the report by operator to tests/graph/onnx_conformance.md. Build first (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TESSERA_BUILD_DIR:-build}"
data=/usr/share/libonnx-testdata/data
"$build_dir/tools/tessera-onnx" test "$data/node" "$data/pytorch-converted" "$data/simple" \
  --report tests/graph/onnx_conformance.md | tail -1
