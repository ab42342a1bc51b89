#!/usr/bin/env bash
# Installs what Tessera needs to build and test on Debian 12, skipping what is already there.
# Safe to run again. Needs root (or sudo).
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache pkg-config
  llvm-19-dev          # code generation and the JIT
  libpng-dev           # image I/O
  doctest-dev          # unit tests
  libbenchmark-dev     # benchmarks
  libhalide14-0-dev    # the peer the benchmarks compare against
  libopenblas-dev      # the matrix-multiply peer (cblas_sgemm)
  libdnnl-dev          # the convolution peer (oneDNN)
  libonnx-dev libprotobuf-dev  # the graph layer's ONNX import
  libonnx-testdata     # ONNX's backend test cases, for the conformance test
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "tessera: all dependencies are installed"
  exit 0
fi

echo "tessera: installing ${missing[*]}"
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -q
$sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
