#!/usr/bin/env bash
# Builds the benchmarks in Release into build/ (or $TESSERA_BUILD_DIR), runs each program five
# times over (the repetitions of its rows interleaved in random order, so that a noisy spell of a
# shared machine falls on Tessera and its peers alike rather than on whichever row ran then), keeps Google Benchmark's JSON in <build>/benchmark_results/, and prints the medians
# with the ratio of Tessera to its peers, the speed-up over plain C++ and, where a program reports
# them, the rate in GFLOP/s and the percentage of this CPU's measured FMA peak. The programs are
# those of tests/performance/ and apps/*/. Extra arguments go to every program, e.g.
# --benchmark_filter=run; options of one program go through the environment (TESSERA_BLUR_SIZE=640x480
# for the blur).
#
# The programs of per_thread_count below take --threads=T and run one thread count per process,
# since some peers fix theirs when they are loaded (oneDNN on OpenMP): each is run once for every
# count of TESSERA_BENCHMARK_THREADS (default: "1 <cores>"), and its rows name their count
# (threads:T).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TESSERA_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build_dir" --target benchmarks

per_thread_count=" matmul_benchmark conv_layer_benchmark low_precision_benchmark ocr_benchmark "
cores=$(nproc)
thread_counts="${TESSERA_BENCHMARK_THREADS:-$( [ "$cores" -gt 1 ] && echo "1 $cores" || echo 1 )}"

results="$build_dir/benchmark_results"
mkdir -p "$results"
rm -f "$results"/*.json
# A program that fails (a row whose pipeline threw, outputs that disagree) does not stop the others:
# the table is printed from what ran, failed rows marked, and the script then exits with status 1.
status=0
run() {  # run <program> <report name> [program options...]
  local program=$1 report="$results/$2.json"
  shift 2
  echo "running $(basename "$program") $*..."
  if ! "$program" "$@" --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
      --benchmark_report_aggregates_only=true \
      --benchmark_format=json --benchmark_out="$report" "${extra_args[@]}" >/dev/null; then
    echo "$(basename "$program") $* FAILED (see above)"
    status=1
  fi
}
extra_args=("$@")
for program in "$build_dir"/tests/performance/*_benchmark "$build_dir"/apps/*/*_benchmark; do
  [ -x "$program" ] || continue
  name=$(basename "$program")
  if [[ "$per_thread_count" == *" $name "* ]]; then
    for threads in $thread_counts; do
      run "$program" "$name.threads$threads" --threads="$threads"
    done
  else
    run "$program" "$name"
  fi
done

python3 - "$results"/*.json <<'PY'
# Rows are named <workload>/<implementation>[/<size>][/threads:<T>], and the rows of one workload,
# size and thread count form a group, compared by wall-clock medians:
#   tessera/peer: Tessera's time in the group / this row's time, so below 1 Tessera is faster.
#     Tessera's time is that of the row named tessera or, failing that, of the fastest row named
#     tessera_<variant> (the conv layer's tessera_nchw and tessera_nchwc), marked "ref"; every other
#     row but the naive ones is compared with it.
#   x naive: the naive C++ time / this row's time, the speed-up over plain C++. The naive row is
#     that of the same workload and size, on whatever thread count it ran (plain C++ runs on one),
#     or, failing that, of the workload the name extends (blur/naive_cpp serves blur_tiled, ...).
#   GFLOPS (GOPS for integer products) and %peak, when a program reports them: the rate, and the rate as a percentage of the
#     FMA peak the program measured on its thread count in the same run (peak_gflops/threads:T).
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
        name = b["run_name"].removesuffix("/real_time")
        if b.get("error_occurred"):
            failed[name] = b.get("error_message", "")
        elif b.get("aggregate_name") == "median":
            workload, implementation, *rest = name.split("/")
            threads = next((p for p in rest if p.startswith("threads:")), "")
            size = "/".join(p for p in rest if p != threads)
            rows.append(dict(b, name=name, workload=workload, implementation=implementation, size=size,
                             threads=threads))

def size_key(size): return (int(size), "") if size.isdigit() else (0, size)
def group(r): return (r["workload"], size_key(r["size"]), r["threads"])
def is_naive(r): return r["implementation"].startswith("naive")

# Tessera's reference row of each group.
reference = {}
for r in rows:
    g, impl = group(r), r["implementation"]
    if impl == "tessera" or (impl.startswith("tessera_") and reference.get(g, {}).get("implementation") != "tessera"
                             and r["real_time"] < reference.get(g, {}).get("real_time", float("inf"))):
        reference[g] = r
naive = {(r["workload"], r["size"]): r["real_time"] for r in rows if is_naive(r)}

def naive_time(r):
    workload = r["workload"]
    while True:
        if (workload, r["size"]) in naive: return naive[(workload, r["size"])]
        if "_" not in workload: return None
        workload = workload.rsplit("_", 1)[0]

def counter(r, key, fmt): return fmt.format(r[key]) if key in r else ""

columns = [("GBps", "{:.2f}", "GBps", 8), ("GFLOPS", "{:.1f}", "GFLOPS", 8), ("GOPS", "{:.1f}", "GOPS", 8), ("peak_pct", "{:.1f}", "%peak", 7)]
columns = [c for c in columns if any(c[0] in r for r in rows)]
width = max([36] + [len(r["name"]) + 2 for r in rows])
print(f"\n{'benchmark (median of 5)':<{width}}{'time':>12}{'cpu':>12}"
      + "".join(f"{title:>{w}}" for _, _, title, w in columns) + f"{'tessera/peer':>14}{'x naive':>9}")
for r in sorted(rows, key=lambda r: (group(r), not r["implementation"].startswith("tessera"), r["implementation"])):
    peer = speedup = ""
    ref = reference.get(group(r))
    if ref is r:
        peer = "ref"
    elif ref is not None and not is_naive(r):
        peer = f"{ref['real_time'] / r['real_time']:.2f}"
    if not is_naive(r) and naive_time(r) is not None:
        speedup = f"{naive_time(r) / r['real_time']:.2f}"
    unit = r["time_unit"]
    print(f"{r['name']:<{width}}{r['real_time']:>9.2f} {unit:<2}{r['cpu_time']:>9.2f} {unit:<2}"
          + "".join(f"{counter(r, key, fmt):>{w}}" for key, fmt, _, w in columns) + f"{peer:>14}{speedup:>9}")
for name, message in sorted(failed.items()):
    print(f"{name:<{width}}FAILED: {message}")
for key, value in sorted(context.items()):
    print(f"{key}: {value}")
PY
exit $status
