#pragma once
// The fused-multiply-add peak of this CPU, measured rather than looked up: benchmarks report their
// rates as a fraction of it, taken in the same run, so that a busy machine or a clock that boosts
// less than its data sheet says lowers both numbers alike.

#include <string>

namespace tessera_apps {

struct PeakFlops {
    std::string isa;    // the FMA instructions timed: "avx512f (512-bit)" or "avx2+fma (256-bit)"
    double gflops = 0;  // billions of floating-point operations a second, an FMA lane counting 2
    int threads = 0;
};

// Runs independent chains of vector FMAs in f32, with enough accumulators in flight to hide the
// instruction's latency, on `threads` threads at once (std::thread; the caller's thread is one of
// them), and returns the best rate of five short trials (some 30 ms each). Uses the widest FMA the
// running CPU has: AVX-512 where __builtin_cpu_supports says so, else AVX2 with FMA. Returns a
// gflops of 0 on a CPU with neither.
PeakFlops measure_peak_flops(int threads);

}  // namespace tessera_apps
