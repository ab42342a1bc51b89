#pragma once
// How every GPU test realizes its schedule: in emulation on the CPU, always; compiled to PTX for
// sm_80 and sm_90 and assembled by the CUDA toolkit's ptxas, where the build found it; and on the
// GPU when the program runs with TESSERA_GPU_DEVICE_TESTS=1 (ctest's "on the device" tests), whose
// results must have the emulation's bits. Without a device, such a run says so and exits with
// ctest's skip code.

#include <doctest/doctest.h>
#include <tessera/runtime.h>
#include <tessera/tessera.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace gpu_test {

inline constexpr int kSkipCode = 77;

// Whether this run checks the results on the GPU; exits with the skip code when it should and
// there is no device.
inline bool device_run() {
    static const bool requested = [] {
        const char* v = std::getenv("TESSERA_GPU_DEVICE_TESTS");
        return v && std::string(v) == "1";
    }();
    if (!requested) return false;
    static const bool present = [] {
        int32_t capability = 0;
        if (tessera_cuda_device_capability(&capability) == 0) return true;
        std::printf("skipped: no CUDA device\n");
        std::fflush(stdout);
        std::exit(kSkipCode);
        return false;
    }();
    return present;
}

// The PTX of f's kernels for the GPU of that compute capability, as compile_to_assembly writes it;
// args: the pipeline's ImageParams and Params, if it has any.
inline std::string ptx_of(tessera::Func f, int capability, const std::vector<tessera::Argument>& args) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("tessera_gpu_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path assembly = dir / (f.name() + "_sm" + std::to_string(capability) + ".s");
    f.compile_to_assembly(assembly.string(), args, f.name(),
                          tessera::Target("host-cuda-cuda_capability_" + std::to_string(capability)));
    std::ifstream in(fs::path(assembly).replace_extension(".ptx"));
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Assembles f's kernels with ptxas for sm_80 and sm_90, where the build found ptxas.
inline void check_ptx_assembles(const tessera::Func& f, const std::vector<tessera::Argument>& args) {
#ifdef TESSERA_PTXAS
    namespace fs = std::filesystem;
    // A program built where the toolkit was, run where it is not (a GPU machine's bundle).
    if (!fs::exists(TESSERA_PTXAS)) return;
    for (int capability : {80, 90}) {
        const std::string ptx = ptx_of(f, capability, args);
        REQUIRE_MESSAGE(ptx.find(".entry") != std::string::npos, "no kernel in the PTX of " << f.name());
        const fs::path file = fs::temp_directory_path() / ("tessera_gpu_test_" + std::to_string(::getpid())) /
                              (f.name() + "_sm" + std::to_string(capability) + ".ptx");
        const fs::path log = fs::path(file).replace_extension(".log");
        const std::string command = std::string(TESSERA_PTXAS) + " -arch=sm_" + std::to_string(capability) +
                                    " " + file.string() + " -o /dev/null >" + log.string() + " 2>&1";
        const int status = std::system(command.c_str());
        std::ifstream in(log);
        const std::string output(std::istreambuf_iterator<char>(in), {});
        CHECK_MESSAGE(status == 0, "ptxas -arch=sm_" << capability << " rejects the PTX of " << f.name()
                                                     << ":\n"
                                                     << output);
    }
#else
    (void)f;
    (void)args;
#endif
}

template <typename T>
void check_same_bits(const tessera::Buffer<T>& actual, const tessera::Buffer<T>& expected, const char* what) {
    REQUIRE(actual.dimensions() == expected.dimensions());
    int mismatches = 0;
    expected.for_each_element([&](const int* pos) {
        if (actual(pos) != expected(pos) && mismatches++ < 5) {
            std::string at;
            for (int d = 0; d < expected.dimensions(); d++) at += (d ? ", " : "") + std::to_string(pos[d]);
            FAIL_CHECK(what << " differs at (" << at << ")");
        }
    });
    CHECK_MESSAGE(mismatches == 0, what << ": " << mismatches << " values differ");
}

// f realized at sizes in emulation; its PTX checked by ptxas, and its values on the GPU checked
// against the emulation's in a device run. args: as for ptx_of.
template <typename T>
tessera::Buffer<T> realize_on_gpu(tessera::Func f, const std::vector<int>& sizes,
                                  const std::vector<tessera::Argument>& args = {}) {
    const bool device = device_run();
    tessera::Buffer<T> emulated = f.realize(sizes, tessera::Target("host-gpu_emulation"));
    check_ptx_assembles(f, args);
    if (device) {
        tessera::Buffer<T> on_device = f.realize(sizes, tessera::Target("host-cuda"));
        check_same_bits(on_device, emulated, "the GPU's result");
    }
    return emulated;
}

}  // namespace gpu_test
