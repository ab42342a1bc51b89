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

python3 - "$results"/*.json <<'EOF'
# Rows are named <workload>/<implementation>[/<size>]; each non-Tessera row is compared with the
# Tessera row of the same workload and size: a peer by Tessera time / peer time (below 1: Tessera
# is faster), the naive C++ loop by naive time / Tessera time (Tessera's speedup).
import json, sys

rows, context = {}, {}
for path in sys.argv[1:]:
    report = json.load(open(path))
    # The programs' own context entries (first compile times, targets) are the ones with a "/".
    context.update({k: v for k, v in report["context"].items() if "/" in k})
    for b in report["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        workload, implementation, *size = b["run_name"].removesuffix("/real_time").split("/")
        rows[(workload, "/".join(size), implementation)] = (b["real_time"], b["time_unit"], b.get("GBps"))

def ratio_to_tessera(workload, size, implementation, time):
    tessera = rows.get((workload, size, "tessera"))
    if implementation == "tessera" or tessera is None:
        return "", ""
    if implementation.startswith("naive"):
        return "", f"{time / tessera[0]:.2f}"
    return f"{tessera[0] / time:.2f}", ""

print(f"\n{'benchmark (median of 5)':<40}{'time':>12}{'GBps':>8}{'tessera/peer':>14}{'naive/tessera':>15}")
tessera_first = lambda row: (row[0], row[1], row[2] != "tessera", row[2])
for (workload, size, implementation), (time, unit, gbps) in sorted(rows.items(), key=lambda r: tessera_first(r[0])):
    name = "/".join(filter(None, [workload, implementation, size]))
    peer, naive = ratio_to_tessera(workload, size, implementation, time)
    rate = f"{gbps:.2f}" if gbps is not None else ""
    print(f"{name:<40}{time:>9.2f} {unit:<2}{rate:>8}{peer:>14}{naive:>15}")
for key, value in sorted(context.items()):
    print(f"{key}: {value}")
EOF
