#pragma once
// The target Halide 14 JIT-compiles for in the benchmarks, shared by every benchmark program that
// runs Halide beside Tessera. Include only where TESSERA_BENCHMARK_HALIDE is defined.

#include <cstdlib>

#include <Halide.h>

namespace tessera_benchmarks {

// HL_JIT_TARGET when set, as Halide's own tools do. Otherwise: Halide 14 misdetects Zen 5 and
// generates code that faults there. On a CPU with AVX-512 (the features of Cannon Lake: F, CD, VL,
// BW, DQ, IFMA, VBMI) name them instead of detecting; elsewhere (a Zen 3 without AVX-512, say)
// Halide's own detection is right, and the pinned target would fault.
inline const Halide::Target& halide_target() {
    static const Halide::Target target = [] {
        if (std::getenv("HL_JIT_TARGET")) return Halide::get_jit_target_from_environment();
        __builtin_cpu_init();
        const bool cannonlake_features =
            __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512ifma") &&
            __builtin_cpu_supports("avx512vbmi");
        return cannonlake_features
                   ? Halide::Target(
                         "x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake-avx512_cannonlake")
                   : Halide::get_host_target();
    }();
    return target;
}

}  // namespace tessera_benchmarks
