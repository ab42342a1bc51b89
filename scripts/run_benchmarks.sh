#!/usr/bin/env bash
# Builds the benchmarks in Release into build/ (or $TESSERA_BUILD_DIR), runs each program five
# times over, keeps Google Benchmark's JSON in <build>/benchmark_results/, and prints the medians
# with ratios to Tessera. Extra arguments go to every program, e.g. --benchmark_filter=run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build_dir" --target benchmarks

results="$build_dir/benchmark_results"
mkdir -p "$results"
for program in "$build_dir"/tests/performance/*_benchmark; do
  echo "running $(basename "$program")..."
  "$program" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_format=json --benchmark_out="$results/$(basename "$program").json" "$@" >/dev/null
done

python3 - "$results"/*.json <<'PY'
# Rows are named <workload>/<implementation>[/<size>]. Each other row is compared with the Tessera
# row of the same workload and size, by wall-clock medians: a peer by Tessera time / peer time
# (below 1: Tessera is faster), a naive C++ loop by naive time / Tessera time (Tessera's speedup).
# CPU time is shown too: on a busy machine it is the steadier of the two.
import json, sys

rows, context = [], {}
for path in sys.argv[1:]:
    report = json.load(open(path))
    # The programs' own entries (first compile times, targets) are the ones with a "/".
    context.update({k: v for k, v in report["context"].items() if "/" in k})
    for b in report["benchmarks"]:
        if b.get("aggregate_name") == "median":
            workload, implementation, *size = b["run_name"].removesuffix("/real_time").split("/")
            rows.append(dict(b, workload=workload, implementation=implementation, size="/".join(size)))

def group(r): return (r["workload"], int(r["size"]) if r["size"].isdigit() else 0)
tessera = {group(r): r["real_time"] for r in rows if r["implementation"] == "tessera"}

print(f"\n{'benchmark (median of 5)':<36}{'time':>12}{'cpu':>12}{'GBps':>7}{'tessera/peer':>14}{'naive/tessera':>15}")
for r in sorted(rows, key=lambda r: (group(r), r["implementation"] != "tessera", r["implementation"])):
    name = "/".join(filter(None, [r["workload"], r["implementation"], r["size"]]))
    peer = naive = ""
    if r["implementation"] != "tessera" and group(r) in tessera:
        if r["implementation"].startswith("naive"):
            naive = f"{r['real_time'] / tessera[group(r)]:.2f}"
        else:
            peer = f"{tessera[group(r)] / r['real_time']:.2f}"
    rate = f"{r['GBps']:.2f}" if "GBps" in r else ""
    unit = r["time_unit"]
    print(f"{name:<36}{r['real_time']:>9.2f} {unit:<2}{r['cpu_time']:>9.2f} {unit:<2}{rate:>7}{peer:>14}{naive:>15}")
for key, value in sorted(context.items()):
    print(f"{key}: {value}")
PY
