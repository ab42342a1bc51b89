#!/usr/bin/env bash
# The GPU's checks, for a machine with an NVIDIA GPU and its driver: builds what they need (Release,
# into build/ or $TESSERA_BUILD_DIR), then runs every GPU test on the device (the gpu/ tests and the
# randomized GPU schedules, their results compared with emulation's bits), the GPU peers'
# self-test (device copies and cuBLAS, checked against the host), and the GPU benchmarks (blur,
# SGEMM, row sum beside device copies and cuBLAS), whose table of medians and ratios it prints.
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
programs="gpu_gpu_schedule_test gpu_gpu_apps_test correctness_random_schedule_test gpu_peers_selftest gpu_benchmark"

# Runs the checks with the programs in $1.
run_checks() {
  local bin="$1" status=0
  export TESSERA_GPU_DEVICE_TESTS=1
  echo "== GPU schedules on the device"
  "$bin/gpu_gpu_schedule_test" || status=$?
  [ "$status" -eq 77 ] && exit 77
  "$bin/gpu_gpu_apps_test" || status=1
  echo "== ${TESSERA_GPU_RANDOM_CASES:-100} random GPU schedules on the device"
  TESSERA_RANDOM_SCHEDULES="${TESSERA_GPU_RANDOM_CASES:-100}" TESSERA_RANDOM_SCHEDULE_SEED="${TESSERA_GPU_RANDOM_SEED:-6000}" \
    "$bin/correctness_random_schedule_test" -tc="random pipelines under random GPU schedules*" || status=1
  echo "== the GPU peers: device copies and cuBLAS"
  "$bin/gpu_peers_selftest" || status=1
  echo "== the GPU benchmarks (medians of 5 interleaved repetitions)"
  local json
  json="$(mktemp)"
  "$bin/gpu_benchmark" --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_out="$json" --benchmark_out_format=json || status=1
  print_table "$json"
  return "$status"
}

# The medians, and each Tessera GPU row's speed relative to the other rows of its workload and size.
print_table() {
  python3 - "$1" <<'PY'
import json, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median": continue
    workload, implementation, size = b["run_name"].split("/")[:3]
    rate = {k: v for k, v in b.items() if k in ("GBps", "GFLOPS")}
    rows.setdefault((workload, size), {})[implementation] = (b["real_time"], b["time_unit"], rate)
for (workload, size), implementations in rows.items():
    ours = implementations.get("tessera_gpu")
    for name, (time, unit, rate) in implementations.items():
        rates = " ".join(f"{k} {v:.1f}" for k, v in rate.items())
        ratio = f"  tessera_gpu is {time / ours[0]:.2f}x its speed" if ours and name != "tessera_gpu" else ""
        print(f"{workload}/{name}/{size}: {time:.3f} {unit} {rates}{ratio}")
PY
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
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_BENCHMARKS=ON >/dev/null
# shellcheck disable=SC2086
cmake --build "$build_dir" --target $programs
bins=("$build_dir/tests/gpu_gpu_schedule_test" "$build_dir/tests/gpu_gpu_apps_test"
      "$build_dir/tests/correctness_random_schedule_test" "$build_dir/apps/gpu/gpu_peers_selftest"
      "$build_dir/apps/gpu/gpu_benchmark")

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
