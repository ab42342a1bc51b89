#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with ctest; then builds again with
# AddressSanitizer and UndefinedBehaviorSanitizer and runs the correctness tests under them
# (scripts/test_sanitizers.sh; TESSERA_SKIP_SANITIZERS=1 skips that part).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_dependencies.sh
./scripts/build.sh
build_dir="${TESSERA_BUILD_DIR:-build}"
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
if [ "${TESSERA_SKIP_SANITIZERS:-0}" != 1 ]; then
  ./scripts/test_sanitizers.sh
fi
