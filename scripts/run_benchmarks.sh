#!/usr/bin/env bash
# Builds the benchmarks in Release into build/ (or $TESSERA_BUILD_DIR), runs each program five
# times over, keeps Google Benchmark's JSON in <build>/benchmark_results/, and prints the medians
# with the ratio of Tessera to its peers and the speed-up over plain C++. The programs are those of
# tests/performance/ and apps/*/. Extra arguments go to every program, e.g. --benchmark_filter=run;
# options of one program go through the environment (TESSERA_BLUR_SIZE=640x480 for the blur).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build_dir" --target benchmarks

results="$build_dir/benchmark_results"
mkdir -p "$results"
# A program that fails (a row whose pipeline threw, outputs that disagree) does not stop the others:
# the table is printed from what ran, failed rows marked, and the script then exits with status 1.
status=0
for program in "$build_dir"/tests/performance/*_benchmark "$build_dir"/apps/*/*_benchmark; do
  [ -x "$program" ] || continue
  echo "running $(basename "$program")..."
  report="$results/$(basename "$program").json"
  rm -f "$report"
  if ! "$program" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
      --benchmark_format=json --benchmark_out="$report" "$@" >/dev/null; then
    echo "$(basename "$program") FAILED (see above)"
    status=1
  fi
done

python3 - "$results"/*.json <<'PY'
# Rows are named <workload>/<implementation>[/<size>], and rows of one size are compared by
# wall-clock medians:
#   tessera/peer: on a peer's row (Halide, ...), Tessera's time / the peer's time for the same
#     workload, so below 1 Tessera is faster;
#   x naive: on every other row, the naive C++ time / this row's time, the speed-up over plain C++.
#     The naive row is that of the same workload or, failing that, of the workload the name extends
#     (blur/naive_cpp serves blur_tiled, blur_root, ...).
# CPU time is shown too: on a busy machine it is the steadier of the two (for a program that runs
# on a thread pool it is the calling thread's alone).
import json, sys

rows, context, failed = [], {}, {}
for path in sys.argv[1:]:
    try:
        report = json.load(open(path))
    except (OSError, ValueError):
        continue  # a program that failed before writing its report
    # The programs' own entries (compile times, targets, sizes) are the ones with a "/".
    context.update({k: v for k, v in report["context"].items() if "/" in k})
    for b in report["benchmarks"]:
        if b.get("error_occurred"):
            failed[b["run_name"].removesuffix("/real_time")] = b.get("error_message", "")
        elif b.get("aggregate_name") == "median":
            workload, implementation, *size = b["run_name"].removesuffix("/real_time").split("/")
            rows.append(dict(b, workload=workload, implementation=implementation, size="/".join(size)))

def group(r): return (r["workload"], int(r["size"]) if r["size"].isdigit() else 0)
def is_naive(r): return r["implementation"].startswith("naive")
tessera = {group(r): r["real_time"] for r in rows if r["implementation"] == "tessera"}
naive = {group(r): r["real_time"] for r in rows if is_naive(r)}

def naive_time(r):
    workload, size = group(r)
    while True:
        if (workload, size) in naive: return naive[(workload, size)]
        if "_" not in workload: return None
        workload = workload.rsplit("_", 1)[0]

print(f"\n{'benchmark (median of 5)':<36}{'time':>12}{'cpu':>12}{'GBps':>8}{'tessera/peer':>14}{'x naive':>9}")
for r in sorted(rows, key=lambda r: (group(r), r["implementation"] != "tessera", r["implementation"])):
    name = "/".join(filter(None, [r["workload"], r["implementation"], r["size"]]))
    peer = speedup = ""
    if r["implementation"] != "tessera" and not is_naive(r) and group(r) in tessera:
        peer = f"{tessera[group(r)] / r['real_time']:.2f}"
    if not is_naive(r) and naive_time(r) is not None:
        speedup = f"{naive_time(r) / r['real_time']:.2f}"
    rate = f"{r['GBps']:.2f}" if "GBps" in r else ""
    unit = r["time_unit"]
    print(f"{name:<36}{r['real_time']:>9.2f} {unit:<2}{r['cpu_time']:>9.2f} {unit:<2}{rate:>8}{peer:>14}{speedup:>9}")
for name, message in sorted(failed.items()):
    print(f"{name:<36}FAILED: {message}")
for key, value in sorted(context.items()):
    print(f"{key}: {value}")
PY
exit $status
