#include "peak_flops.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tessera_apps {
namespace {

// Twelve accumulators, each its own dependency chain: an FMA has a latency of 4 or 5 cycles and
// up to two issue per cycle on current x86 cores, so at least 10 must be in flight to keep both
// units busy; twelve leaves a margin and, with the two operands, fits in the 16 AVX registers.
constexpr int kChains = 12;
// FMAs per chain per call: some 30 ms at 3 GHz, long enough that the loop's overhead, the clock
// reads and the threads' start vanish, short enough that five trials take a fraction of a second.
constexpr long kIterations = 1 << 24;

// acc = acc * m + a converges to a / (1 - m) without overflowing or reaching denormals, so every
// FMA runs at full speed. The sum is returned so that the compiler cannot drop the work. The loops
// over the chains are unrolled by pragma: without it GCC keeps the array in memory at -O2, and
// the loads and stores, not the FMAs, are then what is timed.
__attribute__((target("avx2,fma"))) float fma_chains_avx2(long iterations) {
    const __m256 m = _mm256_set1_ps(0.999f), a = _mm256_set1_ps(0.001f);
    __m256 acc[kChains];
#pragma GCC unroll 16
    for (int i = 0; i < kChains; i++) acc[i] = _mm256_set1_ps(float(i));
    for (long n = 0; n < iterations; n++) {
#pragma GCC unroll 16
        for (int i = 0; i < kChains; i++) acc[i] = _mm256_fmadd_ps(acc[i], m, a);
    }
    __m256 total = acc[0];
    for (int i = 1; i < kChains; i++) total = _mm256_add_ps(total, acc[i]);
    return _mm256_cvtss_f32(total);
}

__attribute__((target("avx512f"))) float fma_chains_avx512(long iterations) {
    const __m512 m = _mm512_set1_ps(0.999f), a = _mm512_set1_ps(0.001f);
    __m512 acc[kChains];
#pragma GCC unroll 16
    for (int i = 0; i < kChains; i++) acc[i] = _mm512_set1_ps(float(i));
    for (long n = 0; n < iterations; n++) {
#pragma GCC unroll 16
        for (int i = 0; i < kChains; i++) acc[i] = _mm512_fmadd_ps(acc[i], m, a);
    }
    __m512 total = acc[0];
    for (int i = 1; i < kChains; i++) total = _mm512_add_ps(total, acc[i]);
    return _mm512_reduce_add_ps(total);
}

struct Kernel {
    const char* isa;
    int lanes;
    float (*run)(long);
};

// The widest FMA this CPU has, or a kernel with no lanes.
Kernel widest_kernel() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return {"avx512f (512-bit)", 16, fma_chains_avx512};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return {"avx2+fma (256-bit)", 8, fma_chains_avx2};
    return {"none (no AVX2+FMA)", 0, nullptr};
}

// One trial: every thread runs the kernel once, started together; the time is the wall clock from
// the start to the last thread's end.
double trial_seconds(const Kernel& kernel, int threads) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::atomic<float> sink{0};
    auto work = [&] {
        ready.fetch_add(1);
        while (!go.load()) {
        }
        sink.store(kernel.run(kIterations));
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; t++) helpers.emplace_back(work);
    while (ready.load() < threads - 1) {
    }
    const auto start = std::chrono::steady_clock::now();
    go.store(true);
    sink.store(kernel.run(kIterations));
    for (std::thread& h : helpers) h.join();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

PeakFlops measure_peak_flops(int threads) {
    const Kernel kernel = widest_kernel();
    PeakFlops peak{kernel.isa, 0, threads};
    if (!kernel.run || threads < 1) return peak;
    kernel.run(kIterations / 8);  // wake the vector units and the clock up
    double best = 1e30;
    for (int trial = 0; trial < 5; trial++) best = std::min(best, trial_seconds(kernel, threads));
    const double flops = 2.0 * kernel.lanes * kChains * double(kIterations) * threads;
    peak.gflops = flops / best / 1e9;
    return peak;
}

}  // namespace tessera_apps
