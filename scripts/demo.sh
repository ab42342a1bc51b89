#!/usr/bin/env bash
# Installs what is missing, builds, and runs the blur demo on the bundled image.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_dependencies.sh
./scripts/build.sh
build_dir="${TESSERA_BUILD_DIR:-build}"
"$build_dir/apps/blur/blur_demo" apps/images/gray16.png "$build_dir/blurred.png"
