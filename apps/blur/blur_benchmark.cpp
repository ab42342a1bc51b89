// The 3x3 box blur of a 16-bit image, in Tessera and in Halide 14 under the same schedules, beside
// plain C++ and a memory copy:
//   blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3          uint16 arithmetic
//   blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3
// over the interior of an input one pixel larger on every side (its min is (-1, -1)), so that no
// boundary condition is needed. Rows, named <workload>/<implementation>/<width>:
//   blur_tiled/<tessera|halide14>   blur_y.tile(x, y, xi, yi, 256, 32).vectorize(xi, 16).parallel(y);
//                                   blur_x.compute_at(blur_y, x).vectorize(x, 16);
//   blur_root/<tessera|halide14>    blur_x.compute_root().vectorize(x, 16).parallel(y);
//                                   blur_y.vectorize(x, 16).parallel(y);
//   blur_inline/<tessera|halide14>  blur_x inlined; blur_y.vectorize(x, 16).parallel(y);
//   blur_edges/<tessera|halide14>   the tiled schedule reading BoundaryConditions::repeat_edge(in)
//                                   over the input's own region: no read leaves it, so the values
//                                   are the same, and the row shows what the clamps of a boundary
//                                   condition cost in the interior
//   blur/naive_cpp                  two plain loops over an intermediate array, one thread
//   copy/memcpy                     memcpy of as many bytes as the blur writes, split over the threads:
//                                   what this machine's memory can move
//   blur_compile/<tessera|halide14> define the tiled pipeline anew and compile_jit(), in ms
// GBps counts the bytes a run must move at least: the input read once and the output written once
// (for the copy: its source read once and its destination written once, the same number).
//
// Before any timing, main() runs every pipeline once and exits at once, with status 1, unless
// Tessera, Halide and plain C++ give bit-identical outputs. A pipeline that throws instead (a
// compiler error, a failed run-time check) does not stop the others: its row reports the error,
// and the program exits with status 1 after the rest have run. main() also records in the JSON
// context the compile time of each language's first pipeline in the process (LLVM's one-time
// initialization included) and of a later one, as blur_first_compile_ms/<language> and
// blur_later_compile_ms/<language>.
//
// Options (before Google Benchmark's own):
//   --blur_size=WIDTHxHEIGHT   the output size (default 6400x4800; env TESSERA_BLUR_SIZE)
//   --blur_threads=N           threads for Tessera, Halide and the copy (default: TESSERA_NUM_THREADS
//                              or HL_NUM_THREADS if set, else every core)

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <tessera/tessera.h>

#ifdef TESSERA_BENCHMARK_HALIDE
#include <Halide.h>
#include "halide_jit_target.h"
#endif

namespace {

// --- Options ---

struct Options {
    int width = 6400, height = 4800;
    int threads = 0;
};
Options options;

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "blur_benchmark: %s\n", message.c_str());
    std::exit(1);
}

void parse_size(const std::string& text) {
    int w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w < 3 || h < 3)
        fail("the size must be WIDTHxHEIGHT, each at least 3, not '" + text + "'");
    options.width = w;
    options.height = h;
}

int positive_int(const char* text, const char* what) {
    char* end = nullptr;
    long n = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || n <= 0 || n > 1024)
        fail(std::string(what) + " must be a positive number of threads, not '" + text + "'");
    return int(n);
}

// Takes this program's options out of argv, leaving Google Benchmark's.
void parse_options(int& argc, char** argv) {
    if (const char* size = std::getenv("TESSERA_BLUR_SIZE")) parse_size(size);
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg.rfind("--blur_size=", 0) == 0) {
            parse_size(arg.substr(std::strlen("--blur_size=")));
        } else if (arg.rfind("--blur_threads=", 0) == 0) {
            options.threads = positive_int(arg.c_str() + std::strlen("--blur_threads="), "--blur_threads");
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = nullptr;
    if (options.threads == 0) {
        const char* tessera = std::getenv("TESSERA_NUM_THREADS");
        const char* halide = std::getenv("HL_NUM_THREADS");
        if (tessera && halide && std::string(tessera) != halide)
            fail("TESSERA_NUM_THREADS and HL_NUM_THREADS differ; the comparison needs one thread count");
        if (tessera || halide)
            options.threads =
                positive_int(tessera ? tessera : halide, tessera ? "TESSERA_NUM_THREADS" : "HL_NUM_THREADS");
        else
            options.threads = std::max(1, int(std::thread::hardware_concurrency()));
    }
}

// The same thread count for both languages. Halide's JIT runtime reads HL_NUM_THREADS when its
// thread pool starts, at the first parallel loop; nothing has run yet.
void set_thread_counts() {
    tessera_set_num_threads(options.threads);
    setenv("HL_NUM_THREADS", std::to_string(options.threads).c_str(), 1);
}

std::string size_name() { return std::to_string(options.width); }

// Input read once ((W + 2) x (H + 2)), output written once (W x H), 16 bits each.
int64_t blur_bytes() {
    return (int64_t(options.width + 2) * (options.height + 2) + int64_t(options.width) * options.height) *
           int64_t(sizeof(uint16_t));
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void set_bandwidth(benchmark::State& state, int64_t bytes) {
    state.counters["GBps"] =
        benchmark::Counter(double(bytes) * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// --- The input: random 16-bit pixels, (W + 2) x (H + 2), row by row, its first pixel at (-1, -1).
// Full-range values, so the sums wrap around in uint16 and every implementation must wrap alike.

const std::vector<uint16_t>& input_pixels() {
    static const std::vector<uint16_t> pixels = [] {
        std::vector<uint16_t> p(size_t(options.width + 2) * (options.height + 2));
        std::mt19937 rng(2024);
        for (uint16_t& v : p) v = uint16_t(rng());
        return p;
    }();
    return pixels;
}

// --- The algorithm and its schedules, written once for both languages, whose APIs are spelled
// alike ---

enum class Schedule { Tiled, Root, Inline, TiledWithEdges };
const Schedule kSchedules[] = {Schedule::Tiled, Schedule::Root, Schedule::Inline, Schedule::TiledWithEdges};

const char* workload(Schedule s) {
    switch (s) {
        case Schedule::Tiled: return "blur_tiled";
        case Schedule::Root: return "blur_root";
        case Schedule::Inline: return "blur_inline";
        case Schedule::TiledWithEdges: return "blur_edges";
    }
    return "";
}

template <typename Func, typename Var, typename Pipeline, typename Input>
Pipeline define_blur(const Input& in, Schedule schedule) {
    Func blur_x("blur_x"), blur_y("blur_y");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    switch (schedule) {
        case Schedule::Tiled:
        case Schedule::TiledWithEdges:
            blur_y.tile(x, y, xi, yi, 256, 32).vectorize(xi, 16).parallel(y);
            blur_x.compute_at(blur_y, x).vectorize(x, 16);
            break;
        case Schedule::Root:
            blur_x.compute_root().vectorize(x, 16).parallel(y);
            blur_y.vectorize(x, 16).parallel(y);
            break;
        case Schedule::Inline: blur_y.vectorize(x, 16).parallel(y); break;
    }
    return Pipeline(blur_y);
}

// --- Tessera ---

tessera::Buffer<uint16_t> tessera_input() {
    tessera::Buffer<uint16_t> in(const_cast<uint16_t*>(input_pixels().data()), options.width + 2,
                                 options.height + 2, "input");
    in.set_min(-1, -1);
    return in;
}

tessera::Pipeline tessera_blur(Schedule s) {
    using tessera::Func, tessera::Var, tessera::Pipeline;
    if (s == Schedule::TiledWithEdges)
        return define_blur<Func, Var, Pipeline>(tessera::BoundaryConditions::repeat_edge(tessera_input()), s);
    return define_blur<Func, Var, Pipeline>(tessera_input(), s);
}

// --- Halide 14 ---

#ifdef TESSERA_BENCHMARK_HALIDE
using tessera_benchmarks::halide_target;

Halide::Buffer<uint16_t> halide_input() {
    Halide::Buffer<uint16_t> in(const_cast<uint16_t*>(input_pixels().data()), options.width + 2,
                                options.height + 2, "input");
    in.set_min(-1, -1);
    return in;
}

Halide::Pipeline halide_blur(Schedule s) {
    using Halide::Func, Halide::Var, Halide::Pipeline;
    if (s == Schedule::TiledWithEdges)
        return define_blur<Func, Var, Pipeline>(Halide::BoundaryConditions::repeat_edge(halide_input()), s);
    return define_blur<Func, Var, Pipeline>(halide_input(), s);
}
#endif

// --- Plain C++: blur_x into a W x (H + 2) array, then blur_y from it, one thread ---

struct NaiveBlur {
    int width, height;
    std::vector<uint16_t> blur_x;  // rows y = -1 ... height

    NaiveBlur(int w, int h) : width(w), height(h), blur_x(size_t(w) * (h + 2)) {}

    void run(const uint16_t* input, uint16_t* output) {
        const int w = width, stride = width + 2;
        for (int y = -1; y <= height; y++) {
            const uint16_t* in = input + size_t(y + 1) * stride + 1;  // in[x] is the pixel at (x, y)
            uint16_t* out = &blur_x[size_t(y + 1) * w];
            for (int x = 0; x < w; x++) out[x] = uint16_t(uint16_t(in[x - 1] + in[x] + in[x + 1]) / 3);
        }
        for (int y = 0; y < height; y++) {
            const uint16_t* above = &blur_x[size_t(y) * w];
            const uint16_t* here = above + w;
            const uint16_t* below = here + w;
            uint16_t* out = output + size_t(y) * w;
            for (int x = 0; x < w; x++) out[x] = uint16_t(uint16_t(above[x] + here[x] + below[x]) / 3);
        }
    }
};

// --- Memory copy, split in equal parts over the threads (the calling thread does the first) ---

void parallel_memcpy(uint8_t* dst, const uint8_t* src, size_t bytes, int threads) {
    const size_t part = (bytes / threads + 63) / 64 * 64;
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; t++) {
        const size_t begin = std::min(bytes, part * t), end = std::min(bytes, begin + part);
        workers.emplace_back([=] { std::memcpy(dst + begin, src + begin, end - begin); });
    }
    std::memcpy(dst, src, std::min(bytes, part));
    for (std::thread& w : workers) w.join();
}

// --- The pipelines, compiled once before timing and checked against plain C++ ---

struct Compiled {
    std::vector<tessera::Pipeline> tessera;  // indexed by Schedule
#ifdef TESSERA_BENCHMARK_HALIDE
    std::vector<Halide::Pipeline> halide;
#endif
};
Compiled compiled;

// The rows whose pipeline threw while being compiled or checked, with the error.
std::map<std::string, std::string> failures;

std::string row_name(Schedule s, const char* implementation) {
    return std::string(workload(s)) + "/" + implementation + "/" + size_name();
}

void record_failure(const std::string& row, const std::string& message) {
    std::fprintf(stderr, "blur_benchmark: %s fails: %s\n", row.c_str(), message.c_str());
    failures[row] = message;
}

void compare_outputs(const std::string& name, const uint16_t* got, const std::vector<uint16_t>& expected) {
    for (int y = 0; y < options.height; y++)
        for (int x = 0; x < options.width; x++) {
            const size_t i = size_t(y) * options.width + x;
            if (got[i] != expected[i]) {
                fail(name + " differs from plain C++ at (" + std::to_string(x) + ", " + std::to_string(y) +
                     "): " + std::to_string(got[i]) + " instead of " + std::to_string(expected[i]));
            }
        }
}

void compile_and_check() {
    const int w = options.width, h = options.height;
    std::vector<uint16_t> expected(size_t(w) * h);
    NaiveBlur(w, h).run(input_pixels().data(), expected.data());

    // Tessera: the tiled pipeline first, so that its compile time is the process's first.
    tessera::Buffer<uint16_t> output(w, h);
    for (Schedule s : kSchedules) {
        tessera::Pipeline p = tessera_blur(s);
        try {
            auto start = std::chrono::steady_clock::now();
            p.compile_jit();
            const double ms = milliseconds_since(start);
            if (s == Schedule::Tiled)
                benchmark::AddCustomContext("blur_first_compile_ms/tessera", std::to_string(ms));
            output.fill(0);
            p.realize(output);
            compare_outputs(std::string("Tessera's ") + workload(s), output.data(), expected);
        } catch (const tessera::Error& e) {
            record_failure(row_name(s, "tessera"), e.what());
        }
        compiled.tessera.push_back(p);
    }
    {
        tessera::Pipeline later = tessera_blur(Schedule::Tiled);
        auto start = std::chrono::steady_clock::now();
        later.compile_jit();
        benchmark::AddCustomContext("blur_later_compile_ms/tessera",
                                    std::to_string(milliseconds_since(start)));
    }

#ifdef TESSERA_BENCHMARK_HALIDE
    Halide::Buffer<uint16_t> halide_out(w, h);
    for (Schedule s : kSchedules) {
        Halide::Pipeline p = halide_blur(s);
        try {
            auto start = std::chrono::steady_clock::now();
            p.compile_jit(halide_target());
            const double ms = milliseconds_since(start);
            if (s == Schedule::Tiled)
                benchmark::AddCustomContext("blur_first_compile_ms/halide14", std::to_string(ms));
            halide_out.fill(0);
            p.realize(halide_out, halide_target());
            compare_outputs(std::string("Halide 14's ") + workload(s), halide_out.data(), expected);
        } catch (const Halide::Error& e) {
            record_failure(row_name(s, "halide14"), e.what());
        }
        compiled.halide.push_back(p);
    }
    {
        Halide::Pipeline later = halide_blur(Schedule::Tiled);
        auto start = std::chrono::steady_clock::now();
        later.compile_jit(halide_target());
        benchmark::AddCustomContext("blur_later_compile_ms/halide14",
                                    std::to_string(milliseconds_since(start)));
    }
    benchmark::AddCustomContext("target/halide14", halide_target().to_string());
#endif
    benchmark::AddCustomContext("blur/size", std::to_string(w) + "x" + std::to_string(h));
    benchmark::AddCustomContext("blur/threads", std::to_string(options.threads));
}

// --- The rows ---

// Reports the row's failure, if it had one; then it must not run.
bool skipped_for_failure(benchmark::State& state, const std::string& row) {
    auto it = failures.find(row);
    if (it == failures.end()) return false;
    state.SkipWithError(it->second.c_str());
    return true;
}

void run_tessera(benchmark::State& state, Schedule s) {
    if (skipped_for_failure(state, row_name(s, "tessera"))) return;
    tessera::Buffer<uint16_t> output(options.width, options.height);
    tessera::Pipeline& p = compiled.tessera[size_t(s)];
    for (auto _ : state) p.realize(output);
    set_bandwidth(state, blur_bytes());
}

#ifdef TESSERA_BENCHMARK_HALIDE
void run_halide(benchmark::State& state, Schedule s) {
    if (skipped_for_failure(state, row_name(s, "halide14"))) return;
    Halide::Buffer<uint16_t> output(options.width, options.height);
    Halide::Pipeline& p = compiled.halide[size_t(s)];
    for (auto _ : state) p.realize(output, halide_target());
    set_bandwidth(state, blur_bytes());
}
#endif

void run_naive(benchmark::State& state) {
    std::vector<uint16_t> output(size_t(options.width) * options.height);
    NaiveBlur naive(options.width, options.height);
    for (auto _ : state) {
        naive.run(input_pixels().data(), output.data());
        benchmark::DoNotOptimize(output.data());
        benchmark::ClobberMemory();
    }
    set_bandwidth(state, blur_bytes());
}

void run_memcpy(benchmark::State& state) {
    const size_t bytes = size_t(options.width) * options.height * sizeof(uint16_t);
    std::vector<uint8_t> src(bytes, 1), dst(bytes, 0);
    for (auto _ : state) {
        parallel_memcpy(dst.data(), src.data(), bytes, options.threads);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    set_bandwidth(state, int64_t(2 * bytes));
}

void compile_tessera(benchmark::State& state) {
    for (auto _ : state) tessera_blur(Schedule::Tiled).compile_jit();
}

#ifdef TESSERA_BENCHMARK_HALIDE
void compile_halide(benchmark::State& state) {
    for (auto _ : state) halide_blur(Schedule::Tiled).compile_jit(halide_target());
}
#endif

void register_rows() {
    const std::string size = "/" + size_name();
    auto add = [](const std::string& name, auto&& fn) {
        benchmark::RegisterBenchmark(name.c_str(), fn)->Unit(benchmark::kMillisecond)->UseRealTime();
    };
    for (Schedule s : kSchedules) {
        add(row_name(s, "tessera"), [s](benchmark::State& st) { run_tessera(st, s); });
#ifdef TESSERA_BENCHMARK_HALIDE
        add(row_name(s, "halide14"), [s](benchmark::State& st) { run_halide(st, s); });
#endif
    }
    add("blur/naive_cpp" + size, run_naive);
    add("copy/memcpy" + size, run_memcpy);
    add("blur_compile/tessera", compile_tessera);
#ifdef TESSERA_BENCHMARK_HALIDE
    add("blur_compile/halide14", compile_halide);
#endif
}

}  // namespace

int main(int argc, char** argv) {
    parse_options(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    set_thread_counts();
    try {
        compile_and_check();
    } catch (const std::exception& e) {
        fail(e.what());
    }
    register_rows();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    for (const auto& [row, message] : failures)
        std::fprintf(stderr, "blur_benchmark: %s FAILED: %s\n", row.c_str(), message.c_str());
    return failures.empty() ? 0 : 1;
}
