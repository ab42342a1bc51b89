// The CUDA driver library, opened with dlopen at first use so that the runtime (and every program
// that links it) runs where there is no driver, and the reporting of the driver's errors.

#include "cuda_driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "tessera/runtime.h"

namespace tessera::runtime::cuda {
namespace {

const char* driver_path() {
    const char* path = std::getenv("TESSERA_CUDA_DRIVER");
    return path && *path ? path : "libcuda.so.1";
}

template <typename F>
bool resolve(void* library, const char* name, F& entry, const char** missing) {
    void* symbol = dlsym(library, name);
    if (!symbol) {
        *missing = name;
        return false;
    }
    entry = reinterpret_cast<F>(symbol);
    return true;
}

// Fills every entry of d, or names the first symbol the library lacks in *missing.
bool resolve_all(void* library, Driver& d, const char** missing) {
    // Each entry is looked up under its own name, so that the two cannot drift apart.
#define TESSERA_RESOLVE(name) resolve(library, #name, d.name, missing)
    return TESSERA_RESOLVE(cuInit) && TESSERA_RESOLVE(cuDeviceGetCount) && TESSERA_RESOLVE(cuDeviceGet) &&
           TESSERA_RESOLVE(cuDeviceGetAttribute) && TESSERA_RESOLVE(cuDevicePrimaryCtxRetain) &&
           TESSERA_RESOLVE(cuCtxPushCurrent_v2) && TESSERA_RESOLVE(cuCtxPopCurrent_v2) &&
           TESSERA_RESOLVE(cuCtxGetDevice) && TESSERA_RESOLVE(cuCtxSynchronize) &&
           TESSERA_RESOLVE(cuMemAlloc_v2) && TESSERA_RESOLVE(cuMemFree_v2) &&
           TESSERA_RESOLVE(cuMemcpyHtoD_v2) && TESSERA_RESOLVE(cuMemcpyDtoH_v2) &&
           TESSERA_RESOLVE(cuModuleLoadDataEx) && TESSERA_RESOLVE(cuModuleGetFunction) &&
           TESSERA_RESOLVE(cuFuncSetAttribute) && TESSERA_RESOLVE(cuLaunchKernel) &&
           TESSERA_RESOLVE(cuGetErrorName) && TESSERA_RESOLVE(cuGetErrorString);
#undef TESSERA_RESOLVE
}

int32_t report_unloadable(void* user_context, const char* path, const char* why) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context, "CUDA: cannot load the driver library ");
    tessera_error_append_string(user_context, path);
    tessera_error_append_string(user_context, ": ");
    tessera_error_append_string(user_context, why);
    tessera_error_append_string(user_context,
                                ". Install the NVIDIA driver, or set TESSERA_CUDA_DRIVER to the path of its "
                                "libcuda.so.1.");
    return tessera_error_end(user_context, tessera_error_no_cuda_driver);
}

int32_t report_missing_symbol(void* user_context, const char* path, const char* symbol) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context, "CUDA: the driver library ");
    tessera_error_append_string(user_context, path);
    tessera_error_append_string(user_context, " has no entry point ");
    tessera_error_append_string(user_context, symbol);
    tessera_error_append_string(
        user_context, ": it is not a CUDA driver, or one too old. Install a current NVIDIA driver.");
    return tessera_error_end(user_context, tessera_error_no_cuda_driver);
}

std::mutex load_mutex;
// Published once the driver is loaded and initialized; never changes after.
std::atomic<const Driver*> loaded_driver{nullptr};

// Opens the library, resolves the entry points and calls cuInit, reporting a failure when asked.
const Driver* load(void* user_context, bool report, int32_t* error) {
    static Driver driver;
    const char* path = driver_path();
    void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char* why = dlerror();
        *error = report ? report_unloadable(user_context, path, why ? why : "not found")
                        : tessera_error_no_cuda_driver;
        return nullptr;
    }
    Driver candidate{};
    const char* missing = nullptr;
    if (!resolve_all(library, candidate, &missing)) {
        dlclose(library);
        *error = report ? report_missing_symbol(user_context, path, missing) : tessera_error_no_cuda_driver;
        return nullptr;
    }
    // The library stays open from here on: a driver that has run cuInit is not to be unloaded.
    const CUresult result = candidate.cuInit(0);
    if (result != CUDA_SUCCESS) {
        const int32_t code =
            result == CUDA_ERROR_NO_DEVICE ? tessera_error_no_cuda_device : tessera_error_cuda_call_failed;
        *error = report ? report_failed_call(user_context, candidate, "cuInit", result) : code;
        return nullptr;
    }
    driver = candidate;
    loaded_driver.store(&driver, std::memory_order_release);
    return &driver;
}

const Driver* load_once(void* user_context, bool report, int32_t* error) {
    if (const Driver* d = loaded_driver.load(std::memory_order_acquire)) return d;
    std::lock_guard<std::mutex> lock(load_mutex);
    if (const Driver* d = loaded_driver.load(std::memory_order_acquire)) return d;
    return load(user_context, report, error);
}

}  // namespace

const Driver* load_driver(void* user_context, int32_t* error) { return load_once(user_context, true, error); }

const Driver* load_driver_quietly(int32_t* error) { return load_once(nullptr, false, error); }

void append_result(void* user_context, const Driver& driver, CUresult result) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (driver.cuGetErrorName(result, &name) == CUDA_SUCCESS && name) {
        tessera_error_append_string(user_context, name);
    } else {
        tessera_error_append_string(user_context, "CUDA error ");
        tessera_error_append_int(user_context, result);
    }
    if (driver.cuGetErrorString(result, &text) == CUDA_SUCCESS && text) {
        tessera_error_append_string(user_context, " (");
        tessera_error_append_string(user_context, text);
        tessera_error_append_string(user_context, ")");
    }
}

int32_t report_failed_call(void* user_context, const Driver& driver, const char* call, CUresult result,
                           const char* kernel, const char* advice) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context, "CUDA: ");
    tessera_error_append_string(user_context, call);
    if (kernel) {
        tessera_error_append_string(user_context, " for kernel ");
        tessera_error_append_string(user_context, kernel);
    }
    tessera_error_append_string(user_context, " failed: ");
    append_result(user_context, driver, result);
    if (result == CUDA_ERROR_NO_DEVICE && !advice)
        advice = "No CUDA device found: check that the GPU is visible (nvidia-smi, CUDA_VISIBLE_DEVICES)";
    if (result == CUDA_ERROR_OUT_OF_MEMORY && !advice) advice = "The device is out of memory";
    if (advice) {
        tessera_error_append_string(user_context, ". ");
        tessera_error_append_string(user_context, advice);
    }
    tessera_error_append_string(user_context, ".");
    const int32_t code = result == CUDA_ERROR_OUT_OF_MEMORY ? tessera_error_out_of_memory
                         : result == CUDA_ERROR_NO_DEVICE   ? tessera_error_no_cuda_device
                                                            : tessera_error_cuda_call_failed;
    return tessera_error_end(user_context, code);
}

}  // namespace tessera::runtime::cuda
