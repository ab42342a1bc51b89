// Whether the CPU running the program has a set of instruction-set features: how a library
// compiled for several targets picks the code to run.

#include <cstdint>

#include "tessera/runtime.h"

namespace {

// Each feature's bit, as tessera_target_feature_t numbers them, and whether this CPU has it.
bool has_feature(int feature) {
#if defined(__x86_64__) || defined(__i386__)
    switch (feature) {
        case tessera_feature_sse41: return __builtin_cpu_supports("sse4.1");
        case tessera_feature_avx: return __builtin_cpu_supports("avx");
        case tessera_feature_avx2: return __builtin_cpu_supports("avx2");
        case tessera_feature_fma: return __builtin_cpu_supports("fma");
        case tessera_feature_f16c: return __builtin_cpu_supports("f16c");
        case tessera_feature_avx512:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd");
        case tessera_feature_avx512_skylake:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                   __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512dq");
        case tessera_feature_avx512_cannonlake:
            return has_feature(tessera_feature_avx512_skylake) && __builtin_cpu_supports("avx512ifma") &&
                   __builtin_cpu_supports("avx512vbmi");
        case tessera_feature_avx512_sapphirerapids:
            return has_feature(tessera_feature_avx512_cannonlake) && __builtin_cpu_supports("avx512vnni") &&
                   __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avxvnni");
        case tessera_feature_avx512_vnni:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
        case tessera_feature_avx512_bf16:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
        case tessera_feature_avxvnni: return __builtin_cpu_supports("avxvnni");
        default: return false;
    }
#else
    // Code for other machines is compiled without the runtime (no_runtime), so this is never asked.
    return false;
#endif
}

}  // namespace

extern "C" int32_t tessera_can_use_target_features(uint64_t features) {
    for (int f = 0; f < 64; f++) {
        if (((features >> f) & 1) && !has_feature(f)) return 0;
    }
    return 1;
}
