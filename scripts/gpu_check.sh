#!/usr/bin/env bash
# The GPU's checks, for a machine with an NVIDIA GPU and its driver: builds what they need (Release,
# into build/ or $TESSERA_BUILD_DIR), then runs every GPU test on the device (the gpu/ tests and the
# randomized GPU schedules, their results compared with emulation's bits) and the GPU peers'
# self-test (device copies and cuBLAS, checked against the host).
#
#   scripts/gpu_check.sh                 on a machine with the build's dependencies
#                                        (scripts/install_dependencies.sh)
#   scripts/gpu_check.sh --bundle FILE   builds here, then packs those programs, the libraries they
#                                        load (LLVM's among them) and CUDA's libdevice into FILE, a
#                                        .tar.xz, for a GPU machine that has none of this build's
#                                        dependencies: there, `tar xf FILE && gpu_bundle/gpu_check.sh`
#                                        runs the same checks.
#
# TESSERA_GPU_RANDOM_CASES (default 100) sets how many random GPU schedules run on the device.
# Exits with 1 if any check fails, and with 77 if there is no CUDA device.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
programs="gpu_gpu_schedule_test correctness_random_schedule_test gpu_peers_selftest"

# Runs the checks with the programs in $1.
run_checks() {
  local bin="$1" status=0
  export TESSERA_GPU_DEVICE_TESTS=1
  echo "== GPU schedules on the device"
  "$bin/gpu_gpu_schedule_test" || status=$?
  [ "$status" -eq 77 ] && exit 77
  echo "== ${TESSERA_GPU_RANDOM_CASES:-100} random GPU schedules on the device"
  TESSERA_RANDOM_SCHEDULES="${TESSERA_GPU_RANDOM_CASES:-100}" TESSERA_RANDOM_SCHEDULE_SEED="${TESSERA_GPU_RANDOM_SEED:-6000}" \
    "$bin/correctness_random_schedule_test" -tc="random pipelines under random GPU schedules*" || status=1
  echo "== the GPU peers: device copies and cuBLAS"
  "$bin/gpu_peers_selftest" || status=1
  return "$status"
}

# Inside a bundle: the programs are beside this script.
if [ -d "$here/bin" ] && [ -d "$here/lib" ]; then
  export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -f "$here/lib/libdevice.10.bc" ] && [ -z "${TESSERA_LIBDEVICE:-}" ] && export TESSERA_LIBDEVICE="$here/lib/libdevice.10.bc"
  run_checks "$here/bin"
  exit $?
fi

cd "$here/.."
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# shellcheck disable=SC2086
cmake --build "$build_dir" --target $programs
bins=("$build_dir/tests/gpu_gpu_schedule_test" "$build_dir/tests/correctness_random_schedule_test"
      "$build_dir/apps/gpu/gpu_peers_selftest")

if [ "${1:-}" != "--bundle" ]; then
  mkdir -p "$build_dir/gpu_check_bin"
  cp "${bins[@]}" "$build_dir/gpu_check_bin/"
  run_checks "$build_dir/gpu_check_bin"
  exit $?
fi

bundle_file="${2:?--bundle needs the file to write}"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/gpu_bundle/bin" "$stage/gpu_bundle/lib"
cp "${bins[@]}" "$stage/gpu_bundle/bin/"
cp "$0" "$stage/gpu_bundle/gpu_check.sh"
# Every library the programs load but the C library's own and the driver, which the GPU machine has.
for program in "${bins[@]}"; do
  ldd "$program" | awk '/=> \// {print $3}'
done | sort -u | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux-x86-64|libcuda)\.so' |
  while read -r library; do cp -L "$library" "$stage/gpu_bundle/lib/"; done
libdevice=$(grep -o 'TESSERA_LIBDEVICE:FILEPATH=.*' "$build_dir/CMakeCache.txt" | cut -d= -f2)
[ -f "$libdevice" ] && cp "$libdevice" "$stage/gpu_bundle/lib/"
tar -C "$stage" -cJf "$bundle_file" gpu_bundle
echo "wrote $bundle_file ($(du -h "$bundle_file" | cut -f1)): on the GPU machine, tar xf it and run gpu_bundle/gpu_check.sh"
