// The GPU benchmarks (Google Benchmark), each row timed on the device with CUDA events:
//
//   blur/{tessera_gpu,device_copy,tessera_cpu,naive}/WxH     the 3x3 blur of uint16 pixels,
//                                      beside a device-to-device copy of as many bytes as it reads
//                                      and writes (GBps: bytes read + written)
//   sgemm/{tessera_gpu,cublas,tessera_cpu,naive}/N           C = A B, N x N floats (cuBLAS in
//                                      FP32, no TF32)
//   row_sum/{tessera_gpu,device_copy,tessera_cpu,naive}/RxC  the sum of each row of R x C floats,
//                                      beside a copy of those bytes (GBps: bytes read)
//
// tessera_cpu is the same algorithm under its CPU schedule, on every core of the host, and naive
// the plain loop on one. Tessera's results are checked against plain C++ before timing (the same
// bits: the pipelines define the order of their arithmetic, gpu_pipelines.h), cuBLAS's within
// rounding. Without a CUDA device the GPU rows are skipped with the reason, the others run, and
// the program exits with 77 (ctest's skip).
//
// Options: --blur_size=WxH (default 4096x4096), --sgemm_sizes=N,N,... (default 1024,2048,4096),
// --row_sum_size=RxC (default 8192x8192), --naive_max_sgemm=N (default 1024).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "benchmark_rows.h"
#include "cuda_peers.h"
#include "gpu_pipelines.h"
#include "matmul_pipelines.h"

namespace {

using namespace tessera;
using tessera_apps::skipped_for_failure;

struct Options {
    int blur_width = 4096, blur_height = 4096;
    std::vector<int> sgemm_sizes = {1024, 2048, 4096};
    int row_sum_rows = 8192, row_sum_columns = 8192;
    int naive_max_sgemm = 1024;
};

std::map<std::string, std::string> failures;
std::string no_device;  // why there is no CUDA device, or empty

bool parse_pair(const char* text, int* a, int* b) { return std::sscanf(text, "%dx%d", a, b) == 2; }

Options parse_options(int* argc, char** argv) {
    Options o;
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        const std::string arg = argv[i];
        auto value = [&](const char* name) -> const char* {
            const std::string prefix = std::string("--") + name + "=";
            return arg.rfind(prefix, 0) == 0 ? argv[i] + prefix.size() : nullptr;
        };
        if (const char* v = value("blur_size")) {
            parse_pair(v, &o.blur_width, &o.blur_height);
        } else if (const char* v = value("row_sum_size")) {
            parse_pair(v, &o.row_sum_rows, &o.row_sum_columns);
        } else if (const char* v = value("naive_max_sgemm")) {
            o.naive_max_sgemm = std::atoi(v);
        } else if (const char* v = value("sgemm_sizes")) {
            o.sgemm_sizes.clear();
            std::stringstream list(v);
            for (std::string n; std::getline(list, n, ',');) o.sgemm_sizes.push_back(std::stoi(n));
        } else {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    return o;
}

template <typename T>
Buffer<T> random_buffer(int w, int h, uint32_t seed, T lo, T hi) {
    Buffer<T> b(w, h);
    std::mt19937 rng(seed);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<T> dist(lo, hi);
        b.for_each_value([&](T& v) { v = dist(rng); });
    } else {
        std::uniform_int_distribution<int> dist(lo, hi);
        b.for_each_value([&](T& v) { v = T(dist(rng)); });
    }
    return b;
}

// Times one run of `run` on the device per iteration; `bytes` or `flops` per run set the rates.
void time_on_device(benchmark::State& state, const std::function<void()>& run) {
    run();  // warm: compiled, loaded, memory on the device
    gpu_bench::GpuTimer timer;
    for (auto _ : state) {
        timer.start();
        run();
        state.SetIterationTime(timer.stop_seconds());
    }
}

void set_bytes_rate(benchmark::State& state, double bytes_per_run) {
    state.counters["GBps"] =
        benchmark::Counter(bytes_per_run * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// Runs a GPU row unless there is no device or its check failed; reports either.
bool gpu_row_can_run(benchmark::State& state, const std::string& row) {
    if (!no_device.empty()) {
        state.SkipWithError(("no CUDA device: " + no_device).c_str());
        return false;
    }
    return !skipped_for_failure(state, row, failures);
}

// The row "<workload>/device_copy/<size>": a device-to-device copy of copied_bytes, its rate
// counted over rate_bytes a run, as the workload's is.
void register_device_copy(const std::string& workload, const std::string& size, size_t copied_bytes,
                          double rate_bytes) {
    benchmark::RegisterBenchmark((workload + "/device_copy/" + size).c_str(), [=](benchmark::State& state) {
        if (!gpu_row_can_run(state, "")) return;
        gpu_bench::DeviceMemory src(copied_bytes), dst(copied_bytes);
        for (auto _ : state) state.SetIterationTime(gpu_bench::device_copy_seconds(dst, src, copied_bytes));
        set_bytes_rate(state, rate_bytes);
    })->UseManualTime();
}

// Runs a row's pipeline once, then check(), which throws what differs from plain C++: a failure
// is the row's, which then does not run.
void check_row(const std::string& row, const std::function<void()>& run, const std::function<void()>& check) {
    try {
        run();
        check();
    } catch (const std::exception& e) {
        failures[row] = e.what();
    }
}

// The row "<workload>/tessera_cpu/<size>": run() on the host's cores, checked first.
void register_cpu_row(const std::string& row, const std::function<void()>& run,
                      const std::function<void()>& check,
                      const std::function<void(benchmark::State&)>& rate) {
    check_row(row, run, check);
    benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
        if (skipped_for_failure(state, row, failures)) return;
        for (auto _ : state) run();
        rate(state);
    });
}

// ---- blur ----

uint16_t naive_blur_at(const Buffer<uint16_t>& in, int x, int y) {
    auto clamped = [&](int i, int j) {
        return int(in(std::clamp(i, 0, in.width() - 1), std::clamp(j, 0, in.height() - 1)));
    };
    auto blur_x = [&](int i, int j) { return (clamped(i - 1, j) + clamped(i, j) + clamped(i + 1, j)) / 3; };
    return uint16_t((blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3);
}

void register_blur(const Options& o) {
    const int w = o.blur_width, h = o.blur_height;
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    const double bytes = 2.0 * w * h * sizeof(uint16_t);
    auto input = std::make_shared<Buffer<uint16_t>>(random_buffer<uint16_t>(w, h, 1, 0, 65535));
    auto p = std::make_shared<gpu_apps::BlurPipeline>(gpu_apps::blur_pipeline());
    gpu_apps::schedule_blur_for_gpu(*p);
    p->input.set(*input);
    auto output = std::make_shared<Buffer<uint16_t>>(w, h);
    // Rows spread over the image, each pixel against the plain loop's.
    auto check = [=] {
        for (int y = 0; y < h; y += std::max(1, h / 64))
            for (int x = 0; x < w; x++)
                if ((*output)(x, y) != naive_blur_at(*input, x, y))
                    throw std::runtime_error("differs from plain C++ at " + std::to_string(x) + ", " +
                                             std::to_string(y));
    };
    const std::string row = "blur/tessera_gpu/" + size;
    if (no_device.empty()) {
        check_row(
            row,
            [=] {
                p->blur_y.realize(*output, Target("host-cuda"));
                output->copy_to_host();
            },
            check);
    }
    benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
        if (!gpu_row_can_run(state, row)) return;
        time_on_device(state, [&] { p->blur_y.realize(*output, Target("host-cuda")); });
        set_bytes_rate(state, bytes);
    })->UseManualTime();
    // The image copied: read once and written once, as the blur does at best.
    register_device_copy("blur", size, size_t(w) * h * sizeof(uint16_t), bytes);
    auto cpu = std::make_shared<gpu_apps::BlurPipeline>(gpu_apps::blur_pipeline());
    gpu_apps::schedule_blur_for_cpu(*cpu);
    cpu->input.set(*input);
    register_cpu_row(
        "blur/tessera_cpu/" + size, [=] { cpu->blur_y.realize(*output); }, check,
        [=](benchmark::State& state) { set_bytes_rate(state, bytes); });
    benchmark::RegisterBenchmark(("blur/naive/" + size).c_str(), [=](benchmark::State& state) {
        for (auto _ : state) {
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) (*output)(x, y) = naive_blur_at(*input, x, y);
            benchmark::ClobberMemory();
        }
        set_bytes_rate(state, bytes);
    });
}

// ---- SGEMM ----

float naive_sgemm_at(const Buffer<float>& a, const Buffer<float>& b, int x, int y) {
    float c = 0.0f;
    for (int k = 0; k < a.width(); k++) c = std::fma(a(k, y), b(x, k), c);
    return c;
}

void register_sgemm(int n, const Options& o) {
    const std::string size = std::to_string(n);
    const double flops = 2.0 * n * n * n;
    auto a = std::make_shared<Buffer<float>>(random_buffer<float>(n, n, 2, -1.0f, 1.0f));
    auto b = std::make_shared<Buffer<float>>(random_buffer<float>(n, n, 3, -1.0f, 1.0f));
    auto c = std::make_shared<Buffer<float>>(n, n);
    auto p = std::make_shared<gpu_apps::SgemmPipeline>(gpu_apps::sgemm_pipeline());
    gpu_apps::schedule_sgemm_for_gpu(*p);
    p->A.set(*a);
    p->B.set(*b);
    // Rows spread over the matrix, each element against the plain loop's bits.
    auto check = [=] {
        for (int y = 0; y < n; y += std::max(1, n / 8))
            for (int x = 0; x < n; x++)
                if ((*c)(x, y) != naive_sgemm_at(*a, *b, x, y))
                    throw std::runtime_error("differs from plain C++ at " + std::to_string(x) + ", " +
                                             std::to_string(y));
    };
    const std::string row = "sgemm/tessera_gpu/" + size;
    if (no_device.empty()) {
        check_row(
            row,
            [=] {
                p->C.realize(*c, Target("host-cuda"));
                c->copy_to_host();
            },
            check);
    }
    benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
        if (!gpu_row_can_run(state, row)) return;
        time_on_device(state, [&] { p->C.realize(*c, Target("host-cuda")); });
        tessera_apps::set_flop_rates(state, flops, 0);
    })->UseManualTime();
    benchmark::RegisterBenchmark(("sgemm/cublas/" + size).c_str(), [=](benchmark::State& state) {
        if (!gpu_row_can_run(state, "")) return;
        try {
            gpu_bench::Cublas cublas;
            std::string why;
            if (!cublas.available(&why)) {
                state.SkipWithError(("no cuBLAS: " + why).c_str());
                return;
            }
            const size_t bytes = size_t(n) * n * sizeof(float);
            gpu_bench::DeviceMemory da(bytes), db(bytes), dc(bytes);
            gpu_bench::copy_to_device(da, a->data(), bytes);
            gpu_bench::copy_to_device(db, b->data(), bytes);
            time_on_device(state, [&] { cublas.sgemm(n, n, n, da.address(), db.address(), dc.address()); });
            tessera_apps::set_flop_rates(state, flops, 0);
        } catch (const std::exception& e) {
            state.SkipWithError(e.what());
        }
    })->UseManualTime();
    // apps/matmul's schedule, a band of rows per core.
    ImageParam a_cpu(Float(32), 2, "A"), b_cpu(Float(32), 2, "B");
    a_cpu.set(*a);
    b_cpu.set(*b);
    auto cpu = std::make_shared<tessera_apps::SgemmPipeline>(tessera_apps::sgemm_pipeline(a_cpu, b_cpu));
    tessera_apps::schedule_sgemm_tiled(*cpu, int(std::thread::hardware_concurrency()));
    register_cpu_row(
        "sgemm/tessera_cpu/" + size, [=] { cpu->C.realize(*c); }, check,
        [=](benchmark::State& state) { tessera_apps::set_flop_rates(state, flops, 0); });
    if (n > o.naive_max_sgemm) return;
    benchmark::RegisterBenchmark(("sgemm/naive/" + size).c_str(), [=](benchmark::State& state) {
        for (auto _ : state) {
            for (int y = 0; y < n; y++)
                for (int x = 0; x < n; x++) (*c)(x, y) = naive_sgemm_at(*a, *b, x, y);
            benchmark::ClobberMemory();
        }
        tessera_apps::set_flop_rates(state, flops, 0);
    });
}

// ---- row sum ----

// The row's sum in the pipeline's order: 256 partial sums of every 256th element, then their sum.
float naive_row_sum(const Buffer<float>& in, int y) {
    float partial[256] = {};
    for (int x = 0; x < in.width(); x++) partial[x % 256] += in(x, y);
    float sum = 0.0f;
    for (float s : partial) sum += s;
    return sum;
}

void register_row_sum(const Options& o) {
    const int rows = o.row_sum_rows, columns = o.row_sum_columns;
    const std::string size = std::to_string(rows) + "x" + std::to_string(columns);
    const double bytes = double(rows) * columns * sizeof(float);
    auto input = std::make_shared<Buffer<float>>(random_buffer<float>(columns, rows, 4, -1.0f, 1.0f));
    auto output = std::make_shared<Buffer<float>>(rows);
    auto p = std::make_shared<gpu_apps::RowSumPipeline>(gpu_apps::row_sum_pipeline());
    gpu_apps::schedule_row_sum_for_gpu(*p);
    p->input.set(*input);
    auto check = [=] {
        for (int y = 0; y < rows; y++)
            if ((*output)(y) != naive_row_sum(*input, y))
                throw std::runtime_error("differs from plain C++ at row " + std::to_string(y));
    };
    const std::string row = "row_sum/tessera_gpu/" + size;
    if (no_device.empty()) {
        check_row(
            row,
            [=] {
                p->sum.realize(*output, Target("host-cuda"));
                output->copy_to_host();
            },
            check);
    }
    benchmark::RegisterBenchmark(row.c_str(), [=](benchmark::State& state) {
        if (!gpu_row_can_run(state, row)) return;
        time_on_device(state, [&] { p->sum.realize(*output, Target("host-cuda")); });
        set_bytes_rate(state, bytes);
    })->UseManualTime();
    // The input copied, its rate counted as the row sum's is: the bytes read.
    register_device_copy("row_sum", size, size_t(bytes), bytes);
    auto cpu = std::make_shared<gpu_apps::RowSumPipeline>(gpu_apps::row_sum_pipeline());
    gpu_apps::schedule_row_sum_for_cpu(*cpu);
    cpu->input.set(*input);
    register_cpu_row(
        "row_sum/tessera_cpu/" + size, [=] { cpu->sum.realize(*output); }, check,
        [=](benchmark::State& state) { set_bytes_rate(state, bytes); });
    benchmark::RegisterBenchmark(("row_sum/naive/" + size).c_str(), [=](benchmark::State& state) {
        for (auto _ : state) {
            for (int y = 0; y < rows; y++) (*output)(y) = naive_row_sum(*input, y);
            benchmark::ClobberMemory();
        }
        set_bytes_rate(state, bytes);
    });
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse_options(&argc, argv);
    benchmark::Initialize(&argc, argv);
    if (!gpu_bench::cuda_available(&no_device) && no_device.empty()) no_device = "unavailable";
    if (no_device.empty())
        std::printf("GPU: %s (sm_%d)\n", gpu_bench::device_name().c_str(), gpu_bench::compute_capability());
    register_blur(options);
    for (int n : options.sgemm_sizes) register_sgemm(n, options);
    register_row_sum(options);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    const int status = tessera_apps::report_failures("gpu_benchmark", failures);
    if (status == 0 && !no_device.empty()) {
        std::printf("skipped: no CUDA device (%s): the GPU rows did not run\n", no_device.c_str());
        return 77;
    }
    return status;
}
