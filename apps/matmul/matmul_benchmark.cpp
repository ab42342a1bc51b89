// Single-precision matrix multiply C = A B of square N x N row-major matrices, in Tessera beside
// OpenBLAS and plain C++. Rows, named <workload>/<implementation>/<N>/threads:<T>:
//   sgemm/tessera     the pipeline of matmul_pipelines.h under schedule_sgemm_tiled, one band of
//                     rows per thread
//   sgemm/tessera_tensorized  the same under schedule_sgemm_tensorized (intrinsics::fma_f32)
//   sgemm/tessera_auto  the same pipeline, estimated at the size, under Pipeline::auto_schedule
//                     (--machine_scheduled): no schedule written by hand
//   sgemm/tessera_tuned the fastest schedule of a tuning records file (--records), tuned first by
//                     tessera::autotune for --tune_trials trials where the file has no record of
//                     the size's pipeline
//   sgemm/openblas    cblas_sgemm (when OpenBLAS was found at build time)
//   sgemm/naive_cpp   the triple loop y, k, x with std::fma, compiled for AVX2 and FMA when the CPU
//                     has them (GCC then vectorizes the loop over x), one thread; only up to
//                     --naive_max_size and only on one thread, as it would take minutes beyond
// Each row reports GFLOPS (2 N^3 operations a run) and peak_pct, its rate as a percentage of the
// FMA peak of this CPU on the same number of threads, measured by this process before any row
// runs (apps/common/peak_flops.h); the peak is in the JSON context as peak_gflops/threads:<T>.
//
// Before any timing every implementation runs once on every size and is checked against the plain
// loop: Tessera must give the same bits (both chain fused multiply-adds in increasing k), OpenBLAS,
// which sums in another order, must be within 1e-4 of the scale of the result (sqrt(N) for the
// inputs in [-1, 1] used here) plus 1e-4 of the value. A row that fails its check, or whose
// pipeline throws, reports the error instead of timings, and the program exits with status 1
// after the rest have run.
//
// One process runs one thread count (--threads): scripts/run_benchmarks.sh runs the program once
// per count. OpenBLAS reads OPENBLAS_CORETYPE when it is loaded, before main(), and then uses the
// kernels of that core rather than those it would pick for this CPU; so when the variable is set,
// the program starts itself again without it, and says so on stderr and in the context
// (openblas/removed_coretype).
//
// Options (before Google Benchmark's own):
//   --threads=T            threads for Tessera and OpenBLAS (default 1)
//   --sizes=N,N,...        the sizes (default 512,1024,2048); each at least 16
//   --naive_max_size=N     the largest size with a naive_cpp row (default 1024)
//   --tile=CxR             Tessera's register tile, C columns by R rows (default register_tile.h's
//                          for this CPU: 16x6 on AVX2, 32x8 on AVX-512); sizes must be at least C
//                          and R
//   --machine_scheduled    add the tessera_auto rows
//   --records=FILE         add the tessera_tuned rows, from this tuning records file
//   --tune_trials=N        trials to tune a size that FILE has no record of (default 0: such a row
//                          fails)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tessera/tessera.h>

#ifdef TESSERA_BENCHMARK_OPENBLAS
#include <cblas.h>
#endif

#include "benchmark_rows.h"
#include "machine_schedule.h"
#include "matmul_pipelines.h"
#include "peak_flops.h"
#include "process_environment.h"

namespace {

constexpr const char* kProgram = "matmul_benchmark";
// Where the program, started again without OPENBLAS_CORETYPE, finds the value it had, to report.
constexpr const char* kRemovedCoretype = "TESSERA_BENCHMARK_REMOVED_OPENBLAS_CORETYPE";

// --- Options ---

struct Options {
    std::vector<int> sizes{512, 1024, 2048};
    int threads = 1;
    int naive_max_size = 1024;
    tessera_apps::RegisterTile tile =
        tessera_apps::default_register_tile(tessera::get_jit_target_from_environment());
    bool machine_scheduled = false;
    tessera_apps::MachineScheduling machine;  // of the tessera_auto and tessera_tuned rows
};
Options options;

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", kProgram, message.c_str());
    std::exit(1);
}

int parse_int(const std::string& text, int least, const std::string& what) {
    char* end = nullptr;
    const long n = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || n < least || n > 1 << 16)
        fail(what + " must be a number of at least " + std::to_string(least) + ", not '" + text + "'");
    return int(n);
}

std::vector<int> parse_sizes(const std::string& text) {
    std::vector<int> sizes;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) sizes.push_back(parse_int(item, 16, "a size"));
    if (sizes.empty()) fail("--sizes needs at least one size");
    return sizes;
}

// Takes this program's options out of argv, leaving Google Benchmark's.
void parse_options(int& argc, char** argv) {
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        auto value = [&](const char* option) { return arg.substr(std::strlen(option)); };
        if (arg.rfind("--threads=", 0) == 0) {
            options.threads = options.machine.threads = parse_int(value("--threads="), 1, "--threads");
        } else if (arg.rfind("--sizes=", 0) == 0) {
            options.sizes = parse_sizes(value("--sizes="));
        } else if (arg.rfind("--naive_max_size=", 0) == 0) {
            options.naive_max_size = parse_int(value("--naive_max_size="), 0, "--naive_max_size");
        } else if (arg.rfind("--tile=", 0) == 0) {
            const auto tile = tessera_apps::parse_register_tile(value("--tile="));
            if (!tile) fail("--tile must be columns x rows, such as 32x6, not '" + value("--tile=") + "'");
            options.tile = *tile;
        } else if (arg == "--machine_scheduled") {
            options.machine_scheduled = true;
        } else if (arg.rfind("--records=", 0) == 0) {
            options.machine.records = value("--records=");
        } else if (arg.rfind("--tune_trials=", 0) == 0) {
            options.machine.tune_trials = parse_int(value("--tune_trials="), 0, "--tune_trials");
        } else {
            if (arg == "--help")
                std::printf(
                    "%s options: --threads=T --sizes=N,N,... --naive_max_size=N --tile=CxR "
                    "--machine_scheduled --records=FILE --tune_trials=N\n",
                    kProgram);
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = nullptr;
    for (int n : options.sizes)
        if (n < options.tile.columns || n < options.tile.rows)
            fail("size " + std::to_string(n) + " is smaller than the tile " + options.tile.to_string() +
                 " (the tiled schedule needs a whole tile)");
}

// --- The problems: random matrices in [-1, 1), and C as the plain loop computes it ---

struct Problem {
    int n;
    std::vector<float> a, b, expected;
};
std::map<int, Problem> problems;

std::vector<float> random_matrix(int n, unsigned seed) {
    std::vector<float> m(size_t(n) * n);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : m) v = dist(rng);
    return m;
}

// --- Plain C++ ---

// c += a b, one row of c at a time, k outer and x inner so that the innermost loop is dense.
[[gnu::always_inline]] inline void triple_loop(int n, const float* a, const float* b, float* c) {
    for (int y = 0; y < n; y++)
        for (int k = 0; k < n; k++) {
            const float a_yk = a[size_t(y) * n + k];
            const float* b_k = b + size_t(k) * n;
            float* c_y = c + size_t(y) * n;
            for (int x = 0; x < n; x++) c_y[x] = std::fma(a_yk, b_k[x], c_y[x]);
        }
}

// The same loop compiled for the FMA instruction: without it, every std::fma is a call into the C
// library, a hundred times slower than the instruction, and the loop says nothing about plain C++
// on this CPU. Both give the same bits: fma is exactly rounded either way.
__attribute__((target("avx2,fma"))) void triple_loop_fma(int n, const float* a, const float* b, float* c) {
    triple_loop(n, a, b, c);
}

void naive_sgemm(int n, const float* a, const float* b, float* c) {
    static const bool has_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    std::fill(c, c + size_t(n) * n, 0.0f);
    if (has_fma) {
        triple_loop_fma(n, a, b, c);
    } else {
        triple_loop(n, a, b, c);
    }
}

// --- Tessera: one pipeline, compiled once, run on every size ---

struct TesseraSgemm {
    tessera_apps::SgemmPipeline p = tessera_apps::sgemm_pipeline(
        tessera::ImageParam(tessera::Float(32), 2, "A"), tessera::ImageParam(tessera::Float(32), 2, "B"));

    explicit TesseraSgemm(bool tensorized) {
        if (tensorized)
            tessera_apps::schedule_sgemm_tensorized(p, options.threads, options.tile);
        else
            tessera_apps::schedule_sgemm_tiled(p, options.threads, options.tile);
    }

    // The pipeline of one size n, estimated at n, scheduled by the machine (machine_schedule.h).
    TesseraSgemm(int n, tessera_apps::MachineScheduler scheduler) {
        p.A.set_estimates({{0, n}, {0, n}});
        p.B.set_estimates({{0, n}, {0, n}});
        p.C.set_estimates({{0, n}, {0, n}});
        tessera::Pipeline pipeline(p.C);
        tessera_apps::machine_schedule(pipeline, scheduler, options.machine);
    }

    // Binds the inputs; the output buffer wraps c.
    tessera::Buffer<float> bind(Problem& problem, float* c) {
        p.A.set(tessera::Buffer<float>(problem.a.data(), problem.n, problem.n, "A"));
        p.B.set(tessera::Buffer<float>(problem.b.data(), problem.n, problem.n, "B"));
        return tessera::Buffer<float>(c, problem.n, problem.n, "C");
    }
};
// The rows of Tessera: "tessera" (schedule_sgemm_tiled) and "tessera_tensorized", one pipeline for
// every size; "tessera_auto" and "tessera_tuned", one per size, under the row's name.
std::map<std::string, TesseraSgemm*> tessera_sgemms;
const char* const kTesseraRows[] = {"tessera", "tessera_tensorized"};

std::vector<const char*> machine_scheduled_rows() {
    std::vector<const char*> rows;
    if (options.machine_scheduled) rows.push_back("tessera_auto");
    if (!options.machine.records.empty()) rows.push_back("tessera_tuned");
    return rows;
}

// Every Tessera row, hand-scheduled first.
std::vector<const char*> tessera_rows() {
    std::vector<const char*> rows(std::begin(kTesseraRows), std::end(kTesseraRows));
    for (const char* row : machine_scheduled_rows()) rows.push_back(row);
    return rows;
}

// --- OpenBLAS ---

#ifdef TESSERA_BENCHMARK_OPENBLAS
void openblas_sgemm(int n, const float* a, const float* b, float* c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
#endif

// --- Checks, before any timing ---

// The rows whose check failed or whose pipeline threw, with the error.
std::map<std::string, std::string> failures;

std::string row_name(const char* implementation, int n) {
    return std::string("sgemm/") + implementation + "/" + std::to_string(n) +
           "/threads:" + std::to_string(options.threads);
}

void record_failure(const std::string& row, const std::string& message) {
    std::fprintf(stderr, "%s: %s fails: %s\n", kProgram, row.c_str(), message.c_str());
    failures[row] = message;
}

// The first element farther from the expected value than the tolerance allows, described; "" if
// none. A zero tolerance asks for the same bits.
std::string first_difference(const Problem& problem, const std::vector<float>& got, double tolerance) {
    const int n = problem.n;
    const double scale = std::sqrt(double(n));
    for (size_t i = 0; i < got.size(); i++) {
        const float want = problem.expected[i];
        const bool same = tolerance == 0 ? std::memcmp(&got[i], &want, sizeof(float)) == 0
                                         : std::fabs(got[i] - want) <= tolerance * (scale + std::fabs(want));
        if (same) continue;
        char text[200];
        std::snprintf(text, sizeof text, "C(%zu, %zu) is %.9g where the plain loop gives %.9g%s", i % n,
                      i / n, double(got[i]), double(want),
                      tolerance == 0 ? " (the bits must be the same)" : "");
        return text;
    }
    return "";
}

template <typename Run>
void check(const char* implementation, Problem& problem, double tolerance, Run run) {
    const std::string row = row_name(implementation, problem.n);
    std::vector<float> got(size_t(problem.n) * problem.n, std::nanf(""));
    try {
        run(problem, got.data());
    } catch (const std::exception& e) {
        record_failure(row, e.what());
        return;
    }
    const std::string difference = first_difference(problem, got, tolerance);
    if (!difference.empty()) record_failure(row, difference);
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void compile_tessera() {
    for (const char* row : kTesseraRows) {
        TesseraSgemm* sgemm = tessera_sgemms[row] =
            new TesseraSgemm(std::string(row) == "tessera_tensorized");
        const auto start = std::chrono::steady_clock::now();
        try {
            sgemm->p.C.compile_jit();
        } catch (const tessera::Error& e) {
            for (int n : options.sizes) record_failure(row_name(row, n), e.what());
        }
        benchmark::AddCustomContext(std::string("sgemm_compile_ms/") + row,
                                    std::to_string(milliseconds_since(start)));
    }
    for (const char* row : machine_scheduled_rows()) {
        for (int n : options.sizes) {
            const std::string name = row_name(row, n);
            const auto start = std::chrono::steady_clock::now();
            try {
                TesseraSgemm* sgemm = tessera_sgemms[name] = new TesseraSgemm(
                    n, std::string(row) == "tessera_tuned" ? tessera_apps::MachineScheduler::Tuned
                                                           : tessera_apps::MachineScheduler::Automatic);
                sgemm->p.C.compile_jit();
            } catch (const std::exception& e) {
                record_failure(name, e.what());
            }
            benchmark::AddCustomContext("sgemm_schedule_and_compile_ms/" + name,
                                        std::to_string(milliseconds_since(start)));
        }
    }
}

// The pipeline of a row at a size: its own, or the one of every size.
TesseraSgemm* tessera_sgemm(const std::string& row, int n) {
    auto own = tessera_sgemms.find(row_name(row.c_str(), n));
    return own != tessera_sgemms.end() ? own->second : tessera_sgemms.at(row);
}

void check_all() {
    compile_tessera();
    for (int n : options.sizes) {
        Problem& problem = problems[n];
        problem = Problem{n, random_matrix(n, 1), random_matrix(n, 2), {}};
        problem.expected.resize(size_t(n) * n);
        naive_sgemm(n, problem.a.data(), problem.b.data(), problem.expected.data());
#ifdef TESSERA_BENCHMARK_OPENBLAS
        // OpenBLAS before Tessera, so that the timed rows do not start right after an OpenBLAS call,
        // whose threads spin for a while after it.
        check("openblas", problem, 1e-4,
              [](Problem& p, float* c) { openblas_sgemm(p.n, p.a.data(), p.b.data(), c); });
#endif
        for (const char* row : tessera_rows()) {
            if (failures.count(row_name(row, n))) continue;
            TesseraSgemm* sgemm = tessera_sgemm(row, n);
            check(row, problem, 0, [sgemm](Problem& p, float* c) { sgemm->p.C.realize(sgemm->bind(p, c)); });
        }
        // Only the timed rows need the expected values, and only until now.
        problem.expected = {};
    }
}

// --- The rows ---

tessera_apps::PeakFlops peak;

bool skipped_for_failure(benchmark::State& state, const std::string& row) {
    return tessera_apps::skipped_for_failure(state, row, failures);
}

void set_rates(benchmark::State& state, int n) {
    tessera_apps::set_flop_rates(state, 2.0 * double(n) * n * n, peak.gflops);
}

void run_tessera(benchmark::State& state, const char* row, int n) {
    if (skipped_for_failure(state, row_name(row, n))) return;
    Problem& problem = problems[n];
    std::vector<float> c(size_t(n) * n);
    TesseraSgemm* sgemm = tessera_sgemm(row, n);
    tessera::Buffer<float> output = sgemm->bind(problem, c.data());
    for (auto _ : state) sgemm->p.C.realize(output);
    set_rates(state, n);
}

void run_naive(benchmark::State& state, int n) {
    Problem& problem = problems[n];
    std::vector<float> c(size_t(n) * n);
    for (auto _ : state) {
        naive_sgemm(n, problem.a.data(), problem.b.data(), c.data());
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    set_rates(state, n);
}

#ifdef TESSERA_BENCHMARK_OPENBLAS
void run_openblas(benchmark::State& state, int n) {
    if (skipped_for_failure(state, row_name("openblas", n))) return;
    Problem& problem = problems[n];
    std::vector<float> c(size_t(n) * n);
    for (auto _ : state) {
        openblas_sgemm(n, problem.a.data(), problem.b.data(), c.data());
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    set_rates(state, n);
}
#endif

// Tessera first and OpenBLAS last: OpenBLAS's threads spin for a while after each call, and would
// take time from whatever row came next.
void register_rows() {
    auto add = [](const std::string& name, auto&& fn) {
        benchmark::RegisterBenchmark(name.c_str(), fn)->Unit(benchmark::kMillisecond)->UseRealTime();
    };
    for (const char* row : tessera_rows()) {
        for (int n : options.sizes)
            add(row_name(row, n), [row, n](benchmark::State& s) { run_tessera(s, row, n); });
    }
    if (options.threads == 1) {
        for (int n : options.sizes)
            if (n <= options.naive_max_size)
                add(row_name("naive_cpp", n), [n](benchmark::State& s) { run_naive(s, n); });
    }
#ifdef TESSERA_BENCHMARK_OPENBLAS
    for (int n : options.sizes)
        add(row_name("openblas", n), [n](benchmark::State& s) { run_openblas(s, n); });
#endif
}

// The peak and what each peer is, for the JSON context (the rows name their thread count).
void describe_run() {
    const std::string threads = "threads:" + std::to_string(options.threads);
    benchmark::AddCustomContext("peak/isa", peak.isa);
    benchmark::AddCustomContext("sgemm/tile", options.tile.to_string());
    benchmark::AddCustomContext("peak_gflops/" + threads, std::to_string(peak.gflops));
#ifdef TESSERA_BENCHMARK_OPENBLAS
    benchmark::AddCustomContext("openblas/core", openblas_get_corename());
    benchmark::AddCustomContext("openblas/config", openblas_get_config());
    if (const char* removed = std::getenv(kRemovedCoretype))
        benchmark::AddCustomContext("openblas/removed_coretype", removed);
#else
    std::fprintf(stderr, "%s: built without OpenBLAS (libopenblas-dev); its rows are left out\n", kProgram);
#endif
}

void set_thread_counts() {
    tessera_set_num_threads(options.threads);
#ifdef TESSERA_BENCHMARK_OPENBLAS
    openblas_set_num_threads(options.threads);
#endif
}

// OpenBLAS must start without OPENBLAS_CORETYPE (see the top of the file).
void start_without_openblas_coretype(char** argv) {
#ifdef TESSERA_BENCHMARK_OPENBLAS
    if (const char* coretype = std::getenv("OPENBLAS_CORETYPE")) {
        tessera_apps::rerun_with_environment(
            kProgram, argv, {{"OPENBLAS_CORETYPE", {}}, {kRemovedCoretype, std::string(coretype)}});
    }
#else
    (void)argv;
#endif
}

}  // namespace

int main(int argc, char** argv) {
    start_without_openblas_coretype(argv);
    parse_options(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    set_thread_counts();
    // Measured first, while nothing else of this process runs.
    peak = tessera_apps::measure_peak_flops(options.threads);
    describe_run();
    try {
        check_all();
    } catch (const std::exception& e) {
        fail(e.what());
    }
    register_rows();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return tessera_apps::report_failures(kProgram, failures);
}
