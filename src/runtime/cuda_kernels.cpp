// CUDA kernels: a pipeline's PTX loaded as a module once per context, and kernel launches.

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuda_context.h"
#include "cuda_driver.h"
#include "tessera/runtime.h"

namespace tessera::runtime::cuda {
namespace {

// What a pipeline's module_state points to: its PTX and the module loaded from it in each context.
struct KernelModules {
    std::string ptx;
    std::vector<std::pair<CUcontext, CUmodule>> modules;
};

// Guards every KernelModules. Loading a module is rare (once per pipeline and context), so one
// lock for all costs nothing and keeps two threads from loading the same module twice.
std::mutex modules_mutex;

// Every KernelModules made, owned here for the life of the process: the pipeline that asked for
// one keeps only its address (in code the leak checker may not scan, JIT-compiled code's memory).
std::vector<std::unique_ptr<KernelModules>>& all_kernel_modules() {
    static std::vector<std::unique_ptr<KernelModules>> all;
    return all;
}

// The NN of the PTX's ".target sm_NN" (90 for sm_90a), or 0 when it names none.
int ptx_target(const std::string& ptx) {
    const char* target = std::strstr(ptx.c_str(), ".target sm_");
    return target ? std::atoi(target + std::strlen(".target sm_")) : 0;
}

int current_device_ordinal(const Driver& driver) {
    CUdevice device = 0;
    return driver.cuCtxGetDevice(&device) == CUDA_SUCCESS ? device : 0;
}

bool means_device_too_old(CUresult r) {
    return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
           r == CUDA_ERROR_INVALID_PTX;
}

// What to do when the device or its driver cannot take the PTX: an older target when the PTX
// asks for a newer GPU than this one, a newer driver otherwise.
void append_too_old_advice(void* user_context, const Driver& driver, CUresult r, int target) {
    const int capability = current_device_capability(driver);
    if (target > 0 && capability > 0 && target > capability) {
        tessera_error_append_string(user_context, " The kernels were compiled for sm_");
        tessera_error_append_int(user_context, target);
        tessera_error_append_string(user_context, " but device ");
        tessera_error_append_int(user_context, current_device_ordinal(driver));
        tessera_error_append_string(user_context, " is sm_");
        tessera_error_append_int(user_context, capability);
        tessera_error_append_string(user_context, ": compile for cuda_capability_");
        tessera_error_append_int(user_context, capability);
        tessera_error_append_string(user_context, " (or lower), or run on a newer GPU.");
    } else if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
        tessera_error_append_string(user_context,
                                    " The PTX is of a newer ISA version than this driver knows: update the "
                                    "NVIDIA driver.");
    } else {
        tessera_error_append_string(user_context,
                                    " The driver cannot compile the kernels' PTX for this device (sm_");
        tessera_error_append_int(user_context, capability);
        tessera_error_append_string(user_context,
                                    "): update the NVIDIA driver, or compile for a lower cuda_capability.");
    }
}

int32_t report_failed_load(void* user_context, const Driver& driver, CUresult r, int target,
                           const char* log) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context, "CUDA: cuModuleLoadDataEx of the pipeline's kernels failed: ");
    append_result(user_context, driver, r);
    tessera_error_append_string(user_context, ".");
    const bool too_old = means_device_too_old(r);
    if (too_old) append_too_old_advice(user_context, driver, r, target);
    if (log[0]) {
        tessera_error_append_string(user_context, "\nThe driver's log:\n");
        tessera_error_append_string(user_context, log);
    }
    return tessera_error_end(user_context,
                             too_old ? tessera_error_cuda_device_too_old : tessera_error_cuda_call_failed);
}

// The module of `kernels` in the scope's context, loaded now if it is the first time there.
int32_t module_in_context(void* user_context, const ContextScope& scope, KernelModules& kernels,
                          CUmodule* module) {
    std::lock_guard<std::mutex> lock(modules_mutex);
    for (const auto& [context, loaded] : kernels.modules) {
        if (context != scope.context()) continue;
        *module = loaded;
        return 0;
    }
    char log[4096] = {0};
    int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof(log)))};
    const CUresult r = scope.driver().cuModuleLoadDataEx(module, kernels.ptx.c_str(), 2, options, values);
    log[sizeof(log) - 1] = 0;
    if (r != CUDA_SUCCESS)
        return report_failed_load(user_context, scope.driver(), r, ptx_target(kernels.ptx), log);
    kernels.modules.emplace_back(scope.context(), *module);
    return 0;
}

int32_t report_bad_call(void* user_context, const char* what, const char* entry) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context, "CUDA: ");
    tessera_error_append_string(user_context, what);
    if (entry) {
        tessera_error_append_string(user_context, " (kernel ");
        tessera_error_append_string(user_context, entry);
        tessera_error_append_string(user_context, ")");
    }
    tessera_error_append_string(user_context, ".");
    return tessera_error_end(user_context, tessera_error_bad_argument);
}

// Kernels may use up to 48 KiB of dynamic shared memory without asking; beyond, only after
// cuFuncSetAttribute, up to the device's opt-in limit.
constexpr int kSharedBytesWithoutOptIn = 48 * 1024;

int32_t allow_shared_memory(void* user_context, const Driver& d, CUfunction f, const char* entry,
                            int32_t bytes) {
    if (bytes <= kSharedBytesWithoutOptIn) return 0;
    const CUresult r = d.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
    if (r == CUDA_SUCCESS) return 0;
    const int limit = current_device_attribute(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0);
    const std::string advice = "The kernel asks for " + std::to_string(bytes) +
                               " bytes of shared memory per block and the device allows " +
                               std::to_string(limit) + ": schedule smaller GPU tiles";
    return report_failed_call(user_context, d, "cuFuncSetAttribute", r, entry, advice.c_str());
}

// What to do about a launch the driver refuses, for the refusals a schedule causes.
const char* launch_advice(CUresult r) {
    if (r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
        return "The blocks need more registers or shared memory than the device has for them: schedule "
               "fewer GPU threads per block";
    if (r == CUDA_ERROR_INVALID_VALUE)
        return "A GPU block may have at most 1024 threads, and at most 64 in z";
    return nullptr;
}

}  // namespace
}  // namespace tessera::runtime::cuda

using namespace tessera::runtime::cuda;

extern "C" {

int32_t tessera_cuda_initialize_kernels(void* user_context, void** module_state, const char* ptx,
                                        int32_t ptx_size) {
    if (!module_state || !ptx || ptx_size < 0)
        return report_bad_call(user_context, "tessera_cuda_initialize_kernels with no state or no PTX",
                               nullptr);
    {
        std::lock_guard<std::mutex> lock(modules_mutex);
        if (!*module_state) {
            all_kernel_modules().push_back(
                std::make_unique<KernelModules>(KernelModules{std::string(ptx, size_t(ptx_size)), {}}));
            *module_state = all_kernel_modules().back().get();
        }
    }
    ContextScope scope(user_context);
    if (scope.error()) return scope.error();
    CUmodule module = nullptr;
    return module_in_context(user_context, scope, *static_cast<KernelModules*>(*module_state), &module);
}

int32_t tessera_cuda_run(void* user_context, void* module_state, const char* entry, int32_t blocks_x,
                         int32_t blocks_y, int32_t blocks_z, int32_t threads_x, int32_t threads_y,
                         int32_t threads_z, int32_t shared_bytes, void** kernel_args) {
    if (!entry) return report_bad_call(user_context, "tessera_cuda_run with no kernel name", nullptr);
    if (!module_state)
        return report_bad_call(user_context, "tessera_cuda_run before tessera_cuda_initialize_kernels",
                               entry);
    if (blocks_x < 1 || blocks_y < 1 || blocks_z < 1 || threads_x < 1 || threads_y < 1 || threads_z < 1 ||
        shared_bytes < 0)
        return report_bad_call(
            user_context, "a launch with a block or thread count below 1, or negative shared memory", entry);
    ContextScope scope(user_context);
    if (scope.error()) return scope.error();
    const Driver& d = scope.driver();
    CUmodule module = nullptr;
    if (int32_t error =
            module_in_context(user_context, scope, *static_cast<KernelModules*>(module_state), &module))
        return error;
    CUfunction f = nullptr;
    if (CUresult r = d.cuModuleGetFunction(&f, module, entry); r != CUDA_SUCCESS)
        return report_failed_call(user_context, d, "cuModuleGetFunction", r, entry);
    if (int32_t error = allow_shared_memory(user_context, d, f, entry, shared_bytes)) return error;
    if (CUresult r = d.cuLaunchKernel(f, unsigned(blocks_x), unsigned(blocks_y), unsigned(blocks_z),
                                      unsigned(threads_x), unsigned(threads_y), unsigned(threads_z),
                                      unsigned(shared_bytes), nullptr, kernel_args, nullptr);
        r != CUDA_SUCCESS)
        return report_failed_call(user_context, d, "cuLaunchKernel", r, entry, launch_advice(r));
    // Every launch is waited for. Simple and correct: the kernel's results are in device memory
    // when this returns, whatever copies or host code come next, and an error the kernel meets
    // while it runs is reported against it rather than against a later, innocent call. What it
    // costs is overlap of a launch with the host's work, which no caller needs yet.
    if (CUresult r = d.cuCtxSynchronize(); r != CUDA_SUCCESS)
        return report_failed_call(user_context, d, "cuCtxSynchronize", r, entry,
                                  "The kernel failed while it ran");
    return 0;
}

}  // extern "C"
