#pragma once
// Target: what code is generated for, an architecture, an operating system, a word size and a set
// of features, spelled as Halide spells it: "x86-64-linux-avx2-fma", "arm-64-linux", or "host"
// (this machine, with every feature its CPU has that Tessera knows). "host-cuda" adds the compute
// capability of the machine's GPU when the CUDA driver reports one.

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/type.h"

namespace tessera {

struct Target {
    enum OS { OSUnknown = 0, Linux, Windows, OSX, Android };
    enum Arch { ArchUnknown = 0, X86, ARM };
    // Instruction-set features, and switches of what the compiled code contains.
    enum Feature {
        SSE41,
        AVX,
        AVX2,
        FMA,
        F16C,
        AVX512,                 // AVX-512 F and CD
        AVX512_Skylake,         // + VL, BW, DQ
        AVX512_Cannonlake,      // + IFMA, VBMI
        AVX512_SapphireRapids,  // + VNNI, BF16 and AVX-VNNI
        AVX512_VNNI,
        AVX512_BF16,
        AVXVNNI,
        ARMDotProd,
        ARMFp16,
        NoRuntime,  // a static library without the runtime, for programs that link it once
        // Every load and store of a pipeline's storage is checked against the region allocated
        // (or the buffer passed); one outside it is an error naming the Func and the coordinate.
        CheckBounds,
        // Kernels for NVIDIA GPUs through CUDA, for the compute capability named (sm_75 without one).
        CUDA,
        CUDACapability75,
        CUDACapability80,
        CUDACapability86,
        CUDACapability89,
        CUDACapability90,
        // GPU schedules run on the CPU: each kernel's blocks in turn, and the threads of a block as
        // loops split at every barrier, with shared memory on the host (as does the environment
        // variable TESSERA_GPU_EMULATION=1). For checking the values of GPU schedules without a GPU.
        GPUEmulation,
        FeatureEnd
    };

    OS os = OSUnknown;
    Arch arch = ArchUnknown;
    int bits = 0;

    // An undefined target; where one is expected, the JIT uses get_jit_target_from_environment().
    Target() = default;
    Target(OS os, Arch arch, int bits, const std::vector<Feature>& features = {});
    // Parses "host", "host-<features>" or "<arch>-<bits>-<os>[-<feature>...]". Throws CompileError
    // naming the part it does not know.
    explicit Target(const std::string& description);
    explicit Target(const char* description) : Target(std::string(description)) {}

    // Whether every field is known (a default-constructed Target is not).
    bool defined() const { return os != OSUnknown && arch != ArchUnknown && bits != 0; }
    bool has_feature(Feature f) const { return (features_ >> f) & 1; }
    bool features_all_of(const std::vector<Feature>& fs) const;
    bool features_any_of(const std::vector<Feature>& fs) const;
    void set_feature(Feature f, bool value = true);
    void set_features(const std::vector<Feature>& fs, bool value = true);
    Target with_feature(Feature f) const;
    Target without_feature(Feature f) const;

    // The canonical text: arch, bits, os, then the features in the order of the enum.
    std::string to_string() const;
    // Whether s parses as a target.
    static bool validate_target_string(const std::string& s);
    // The name of a feature in target strings ("avx2"), and the feature named s (or false).
    static std::string feature_name(Feature f);
    static bool feature_from_name(const std::string& s, Feature* f);

    // The number of lanes of type t in the widest vector register this target has for it.
    int natural_vector_size(const Type& t) const;
    template <typename T>
    int natural_vector_size() const {
        return natural_vector_size(type_of<T>());
    }
    // Whether kernels of GPU schedules are generated for a GPU (cuda) or emulated on the CPU.
    bool has_gpu_feature() const { return has_feature(CUDA) || has_feature(GPUEmulation); }
    // The CUDA compute capability kernels are generated for, as 10 * major + minor: the highest
    // cuda_capability_* feature, else 75.
    int cuda_capability() const;

    bool operator==(const Target& o) const {
        return os == o.os && arch == o.arch && bits == o.bits && features_ == o.features_;
    }
    bool operator!=(const Target& o) const { return !(*this == o); }

private:
    uint64_t features_ = 0;
};

// This machine, from LLVM's query of the host CPU.
Target get_host_target();
// The target named by the environment variable TESSERA_TARGET, else the host.
Target get_target_from_environment();
// The target named by TESSERA_JIT_TARGET, else the host.
Target get_jit_target_from_environment();

}  // namespace tessera
