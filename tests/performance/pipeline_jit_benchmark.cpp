// JIT compile time and run time of a three-stage pipeline, in Tessera, in Halide 14 and as plain
// C++ loops:
//   widened(x, y) = u16(repeat_edge(input)(x, y))                                 8 -> 16 bits
//   blur_x(x, y)  = (widened(x - 1, y) + widened(x, y) + widened(x + 1, y)) / 3  horizontal
//   blur_y(x, y)  = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3     vertical, output
// with widened and blur_x computed at root. Rows:
//   three_stage_compile/<tessera|halide14>     define the Funcs anew and compile_jit(), in ms
//   three_stage_run/<tessera|halide14|naive_cpp>/<size>   realize() of a compiled pipeline, in ms,
//       with GBps = (input bytes read + output bytes written) / time
// Before any timing, main() checks that the three give bit-identical outputs, and records the
// compile time of each language's first pipeline in the process (LLVM's one-time initialization
// included) in the JSON context as three_stage_first_compile_ms/<language>, beside the target
// Halide compiled for (target/halide14).
//
// Tessera links LLVM 19 and Halide LLVM 14; both shared libraries version their symbols, so the
// two live in one process without clashing.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tessera/tessera.h>

#ifdef TESSERA_BENCHMARK_HALIDE
#include <Halide.h>
#include "halide_jit_target.h"
#endif

namespace {

constexpr int kSize = 2048;

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Bytes a run must move at least: the 8-bit input read once, the 16-bit output written once.
int64_t bytes_moved(int size) { return int64_t(size) * size * (sizeof(uint8_t) + sizeof(uint16_t)); }

std::vector<uint8_t> random_image(int size) {
    std::mt19937 rng(1234);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<uint8_t> pixels(size_t(size) * size);
    for (uint8_t& p : pixels) p = uint8_t(byte(rng));
    return pixels;
}

// --- Tessera ---

tessera::Pipeline tessera_three_stage(const tessera::Buffer<uint8_t>& input) {
    using namespace tessera;
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func widened("widened"), blur_x("blur_x"), blur_y("blur_y");
    Var x("x"), y("y");
    widened(x, y) = cast<uint16_t>(clamped(x, y));
    blur_x(x, y) = (widened(x - 1, y) + widened(x, y) + widened(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    widened.compute_root();
    blur_x.compute_root();
    return Pipeline(blur_y);
}

tessera::Buffer<uint8_t> tessera_input(const std::vector<uint8_t>& pixels, int size) {
    tessera::Buffer<uint8_t> input(size, size, "input");
    std::copy(pixels.begin(), pixels.end(), input.data());
    return input;
}

// --- Halide 14, the same algorithm and schedule ---

#ifdef TESSERA_BENCHMARK_HALIDE
using tessera_benchmarks::halide_target;

Halide::Pipeline halide_three_stage(const Halide::Buffer<uint8_t>& input) {
    using namespace Halide;
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func widened("widened"), blur_x("blur_x"), blur_y("blur_y");
    Var x("x"), y("y");
    widened(x, y) = cast<uint16_t>(clamped(x, y));
    blur_x(x, y) = (widened(x - 1, y) + widened(x, y) + widened(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    widened.compute_root();
    blur_x.compute_root();
    return Pipeline(blur_y);
}

Halide::Buffer<uint8_t> halide_input(const std::vector<uint8_t>& pixels, int size) {
    Halide::Buffer<uint8_t> input(size, size, "input");
    std::copy(pixels.begin(), pixels.end(), input.data());
    return input;
}
#endif

// --- Plain C++: the same three stages as loops over intermediate arrays ---

struct NaiveThreeStage {
    int size;
    std::vector<uint16_t> widened;  // (size + 2) x (size + 2), origin at (-1, -1)
    std::vector<uint16_t> blur_x;   // size x (size + 2), origin at (0, -1)

    explicit NaiveThreeStage(int n)
        : size(n), widened(size_t(n + 2) * (n + 2)), blur_x(size_t(n) * (n + 2)) {}

    void run(const uint8_t* input, uint16_t* output) {
        const int n = size;
        for (int y = -1; y <= n; y++)
            for (int x = -1; x <= n; x++)
                widened[size_t(y + 1) * (n + 2) + (x + 1)] =
                    input[size_t(std::clamp(y, 0, n - 1)) * n + std::clamp(x, 0, n - 1)];
        for (int y = -1; y <= n; y++) {
            const uint16_t* row = &widened[size_t(y + 1) * (n + 2) + 1];
            for (int x = 0; x < n; x++)
                blur_x[size_t(y + 1) * n + x] = uint16_t((row[x - 1] + row[x] + row[x + 1]) / 3);
        }
        for (int y = 0; y < n; y++) {
            const uint16_t* above = &blur_x[size_t(y) * n];
            const uint16_t* here = above + n;
            const uint16_t* below = here + n;
            for (int x = 0; x < n; x++)
                output[size_t(y) * n + x] = uint16_t((above[x] + here[x] + below[x]) / 3);
        }
    }
};

// --- Checking the outputs agree, and the first compile of each language ---

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "pipeline_jit_benchmark: %s\n", message.c_str());
    std::exit(1);
}

void compare_outputs(const char* name, const uint16_t* got, const std::vector<uint16_t>& expected, int size) {
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            const size_t i = size_t(y) * size + x;
            if (got[i] != expected[i]) {
                fail(std::string(name) + " differs from plain C++ at (" + std::to_string(x) + ", " +
                     std::to_string(y) + "): " + std::to_string(got[i]) + " instead of " +
                     std::to_string(expected[i]));
            }
        }
}

void check_outputs_and_record_first_compile(int size) {
    const std::vector<uint8_t> pixels = random_image(size);
    std::vector<uint16_t> expected(size_t(size) * size);
    NaiveThreeStage(size).run(pixels.data(), expected.data());

    tessera::Buffer<uint8_t> input = tessera_input(pixels, size);
    tessera::Pipeline pipeline = tessera_three_stage(input);
    auto start = std::chrono::steady_clock::now();
    pipeline.compile_jit();
    benchmark::AddCustomContext("three_stage_first_compile_ms/tessera",
                                std::to_string(milliseconds_since(start)));
    tessera::Buffer<uint16_t> output(size, size);
    pipeline.realize(output);
    compare_outputs("Tessera", output.data(), expected, size);

#ifdef TESSERA_BENCHMARK_HALIDE
    Halide::Buffer<uint8_t> halide_in = halide_input(pixels, size);
    Halide::Pipeline halide_pipeline = halide_three_stage(halide_in);
    start = std::chrono::steady_clock::now();
    halide_pipeline.compile_jit(halide_target());
    benchmark::AddCustomContext("three_stage_first_compile_ms/halide14",
                                std::to_string(milliseconds_since(start)));
    Halide::Buffer<uint16_t> halide_out(size, size);
    halide_pipeline.realize(halide_out, halide_target());
    compare_outputs("Halide 14", halide_out.data(), expected, size);
    benchmark::AddCustomContext("target/halide14", halide_target().to_string());
#endif
}

// --- Compile time: a fresh pipeline every iteration, so nothing comes from a cache ---

void BM_compile_tessera(benchmark::State& state) {
    tessera::Buffer<uint8_t> input = tessera_input(random_image(kSize), kSize);
    for (auto _ : state) {
        tessera::Pipeline pipeline = tessera_three_stage(input);
        pipeline.compile_jit();
    }
}
BENCHMARK(BM_compile_tessera)
    ->Name("three_stage_compile/tessera")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

#ifdef TESSERA_BENCHMARK_HALIDE
void BM_compile_halide(benchmark::State& state) {
    Halide::Buffer<uint8_t> input = halide_input(random_image(kSize), kSize);
    for (auto _ : state) {
        Halide::Pipeline pipeline = halide_three_stage(input);
        pipeline.compile_jit(halide_target());
    }
}
BENCHMARK(BM_compile_halide)
    ->Name("three_stage_compile/halide14")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

// --- Run time of a compiled pipeline ---

void set_bandwidth(benchmark::State& state, int size) {
    state.counters["GBps"] = benchmark::Counter(double(bytes_moved(size)) * double(state.iterations()) / 1e9,
                                                benchmark::Counter::kIsRate);
}

void BM_run_tessera(benchmark::State& state) {
    const int size = int(state.range(0));
    tessera::Buffer<uint8_t> input = tessera_input(random_image(size), size);
    tessera::Buffer<uint16_t> output(size, size);
    tessera::Pipeline pipeline = tessera_three_stage(input);
    pipeline.compile_jit();
    for (auto _ : state) pipeline.realize(output);
    set_bandwidth(state, size);
}
BENCHMARK(BM_run_tessera)
    ->Name("three_stage_run/tessera")
    ->Arg(kSize)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

#ifdef TESSERA_BENCHMARK_HALIDE
void BM_run_halide(benchmark::State& state) {
    const int size = int(state.range(0));
    Halide::Buffer<uint8_t> input = halide_input(random_image(size), size);
    Halide::Buffer<uint16_t> output(size, size);
    Halide::Pipeline pipeline = halide_three_stage(input);
    pipeline.compile_jit(halide_target());
    for (auto _ : state) pipeline.realize(output, halide_target());
    set_bandwidth(state, size);
}
BENCHMARK(BM_run_halide)
    ->Name("three_stage_run/halide14")
    ->Arg(kSize)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

void BM_run_naive(benchmark::State& state) {
    const int size = int(state.range(0));
    const std::vector<uint8_t> input = random_image(size);
    std::vector<uint16_t> output(size_t(size) * size);
    NaiveThreeStage naive(size);
    for (auto _ : state) {
        naive.run(input.data(), output.data());
        benchmark::DoNotOptimize(output.data());
        benchmark::ClobberMemory();
    }
    set_bandwidth(state, size);
}
BENCHMARK(BM_run_naive)
    ->Name("three_stage_run/naive_cpp")
    ->Arg(kSize)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    try {
        check_outputs_and_record_first_compile(kSize);
    } catch (const std::exception& e) {
        fail(e.what());
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
