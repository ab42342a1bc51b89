// Low-precision matrix multiplies of square N x N matrices in Tessera, tensorized with the
// dot-product intrinsics, beside plain C++. Rows, named <workload>/<implementation>/<N>/threads:<T>:
//   gemm_u8s8/tessera     u8 x s8 -> s32 (low_precision_pipelines.h), intrinsics::dot_u8s8
//   gemm_bf16/tessera     bf16 -> f32, intrinsics::dot_bf16
//   .../naive_cpp         the plain loops, in the same order, one thread, up to --naive_max_size
// Each row reports GOPS, 2 N^3 operations (a multiply and an add) per run. Before any timing every
// Tessera row is checked against the plain loops, bit for bit; a row that fails reports the error.
// The dot-product instructions (vpdpbusd, vdpbf16ps) run where the CPU has AVX512-VNNI and
// AVX512-BF16; elsewhere the kernels are the same arithmetic in the CPU's vector instructions, and
// the context says which (dot_instructions).
//
// Options (before Google Benchmark's own): --threads=T (default 1), --sizes=N,N,... (default
// 512,1024; multiples of 4), --naive_max_size=N (default 512), --tile=CxR (the register tile,
// C columns by R rows; default register_tile.h's for this CPU: 16x6 on AVX2, 32x8 on AVX-512).

#include <benchmark/benchmark.h>
#include <tessera/tessera.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark_rows.h"
#include "low_precision_pipelines.h"

namespace {

struct Options {
    int threads = 1;
    std::vector<int> sizes{512, 1024};
    int naive_max_size = 512;
    tessera_apps::RegisterTile tile =
        tessera_apps::default_register_tile(tessera::get_jit_target_from_environment());
} options;

// The rows whose check failed, with the error; the program then exits with status 1.
std::map<std::string, std::string> failures;

float bfloat16_value(uint16_t bits) {
    const uint32_t wide = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &wide, 4);
    return f;
}

// One problem of one kind: the inputs, and the plain loops' result.
struct Problem {
    int n = 0;
    tessera::Buffer<> a, b, expected;
};

// The plain loops, on the rows of dense n x n matrices (row y of a matrix starts at y * n).
void naive_u8s8(int n, const uint8_t* a, const int8_t* b, int32_t* c) {
    for (int y = 0; y < n; y++) {
        int32_t* row = c + size_t(y) * n;
        std::fill(row, row + n, 0);
        for (int k = 0; k < n; k++) {
            const int32_t av = a[size_t(y) * n + k];
            const int8_t* b_row = b + size_t(k) * n;
            for (int x = 0; x < n; x++) row[x] += av * int32_t(b_row[x]);
        }
    }
}

void naive_bf16(int n, const uint16_t* a, const uint16_t* b, float* c) {
    for (int y = 0; y < n; y++) {
        float* row = c + size_t(y) * n;
        std::fill(row, row + n, 0.0f);
        for (int ko = 0; ko < n / 2; ko++) {
            const float odd = bfloat16_value(a[size_t(y) * n + 2 * ko + 1]),
                        even = bfloat16_value(a[size_t(y) * n + 2 * ko]);
            const uint16_t *b_odd = b + size_t(2 * ko + 1) * n, *b_even = b + size_t(2 * ko) * n;
            for (int x = 0; x < n; x++) {
                // Two roundings, as vdpbf16ps: the odd product first, then the even one.
                const float with_odd = row[x] + odd * bfloat16_value(b_odd[x]);
                row[x] = with_odd + even * bfloat16_value(b_even[x]);
            }
        }
    }
}

// Runs the plain loops of the problem's kind into c.
void naive(const Problem& p, tessera::Buffer<>& c) {
    if (p.expected.type() == tessera::Int(32)) {
        naive_u8s8(p.n, static_cast<const uint8_t*>(p.a.data()), static_cast<const int8_t*>(p.b.data()),
                   static_cast<int32_t*>(c.data()));
    } else {
        naive_bf16(p.n, static_cast<const uint16_t*>(p.a.data()), static_cast<const uint16_t*>(p.b.data()),
                   static_cast<float*>(c.data()));
    }
}

Problem make_problem(bool bf16, int n) {
    std::mt19937 rng(n);
    Problem p{n, {}, {}, {}};
    if (!bf16) {
        tessera::Buffer<uint8_t> a(n, n);
        tessera::Buffer<int8_t> b(n, n);
        a.for_each_value([&](uint8_t& v) { v = uint8_t(rng()); });
        b.for_each_value([&](int8_t& v) { v = int8_t(rng()); });
        p.a = a, p.b = b, p.expected = tessera::Buffer<int32_t>(n, n);
        naive(p, p.expected);
        return p;
    }
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    auto random_bf16 = [&](uint16_t& v) {
        const float f = unit(rng);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        v = uint16_t(bits >> 16);
    };
    tessera::Buffer<uint16_t> a(n, n), b(n, n);
    a.for_each_value(random_bf16);
    b.for_each_value(random_bf16);
    p.a = a, p.b = b, p.expected = tessera::Buffer<float>(n, n);
    naive(p, p.expected);
    return p;
}

std::string row(const char* workload, const char* implementation, int n) {
    return std::string(workload) + "/" + implementation + "/" + std::to_string(n) +
           "/threads:" + std::to_string(options.threads);
}

bool same_bits(const tessera::Buffer<>& x, const tessera::Buffer<>& y) {
    return std::memcmp(x.data(), y.data(), size_t(x.width()) * x.height() * 4) == 0;
}

void register_rows(bool bf16, const char* workload) {
    auto* gemm = new tessera_apps::LowPrecisionGemm(bf16 ? tessera_apps::gemm_bf16_pipeline()
                                                         : tessera_apps::gemm_u8s8_pipeline());
    tessera_apps::schedule_low_precision_gemm(*gemm, options.threads, options.tile);
    for (int n : options.sizes) {
        auto* problem = new Problem(make_problem(bf16, n));
        auto* output = new tessera::Buffer<>(bf16 ? tessera::Float(32) : tessera::Int(32), {n, n});
        std::string error;
        try {
            gemm->A.set(problem->a);
            gemm->B.set(problem->b);
            gemm->C.realize(*output);
            if (!same_bits(*output, problem->expected)) error = "differs from the plain loops";
        } catch (const tessera::Error& e) {
            error = e.what();
        }
        const double operations = 2.0 * n * n * double(n);
        auto set_rate = [operations](benchmark::State& state) {
            state.counters["GOPS"] =
                benchmark::Counter(operations / 1e9, benchmark::Counter::kIsIterationInvariantRate);
        };
        benchmark::RegisterBenchmark(row(workload, "tessera", n).c_str(),
                                     [=](benchmark::State& state) {
                                         if (!error.empty()) return state.SkipWithError(error.c_str());
                                         gemm->A.set(problem->a);
                                         gemm->B.set(problem->b);
                                         for (auto _ : state) gemm->C.realize(*output);
                                         set_rate(state);
                                     })
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
        if (options.threads != 1 || n > options.naive_max_size) continue;
        benchmark::RegisterBenchmark(row(workload, "naive_cpp", n).c_str(),
                                     [=](benchmark::State& state) {
                                         tessera::Buffer<> c(problem->expected.type(), {n, n});
                                         for (auto _ : state) naive(*problem, c);
                                         set_rate(state);
                                     })
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
}

std::vector<int> parse_sizes(const std::string& text) {
    std::vector<int> sizes;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) sizes.push_back(std::stoi(item));
    return sizes;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg.rfind("--threads=", 0) == 0)
            options.threads = std::stoi(arg.substr(10));
        else if (arg.rfind("--sizes=", 0) == 0)
            options.sizes = parse_sizes(arg.substr(8));
        else if (arg.rfind("--naive_max_size=", 0) == 0)
            options.naive_max_size = std::stoi(arg.substr(17));
        else if (arg.rfind("--tile=", 0) == 0) {
            const auto tile = tessera_apps::parse_register_tile(arg.substr(7));
            if (!tile) {
                std::fprintf(
                    stderr,
                    "low_precision_benchmark: --tile must be columns x rows, such as 32x8, not '%s'\n",
                    arg.substr(7).c_str());
                return 2;
            }
            options.tile = *tile;
        } else
            rest.push_back(argv[i]);
    }
    for (int n : options.sizes) {
        if (n < 4 || n % 4) {
            std::fprintf(stderr, "low_precision_benchmark: size %d is not a positive multiple of 4\n", n);
            return 2;
        }
    }
    tessera_set_num_threads(options.threads);
    const tessera::Target host = tessera::get_host_target();
    const bool vnni = host.has_feature(tessera::Target::AVX512_VNNI),
               bf16 = host.has_feature(tessera::Target::AVX512_BF16);
    benchmark::AddCustomContext("tile", options.tile.to_string());
    benchmark::AddCustomContext("dot_instructions", std::string(vnni ? "vpdpbusd" : "vpdpbusd emulated") +
                                                        ", " + (bf16 ? "vdpbf16ps" : "vdpbf16ps emulated"));
    register_rows(false, "gemm_u8s8");
    register_rows(true, "gemm_bf16");
    int count = int(rest.size());
    benchmark::Initialize(&count, rest.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return tessera_apps::report_failures("low_precision_benchmark", failures);
}
