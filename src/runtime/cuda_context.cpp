// The CUDA context: obtained through replaceable handlers (by default device 0's primary context)
// and made current around each piece of the runtime's work; and the device queries built on it.

#include "cuda_context.h"

#include <atomic>
#include <mutex>

#include "tessera/runtime.h"

namespace tessera::runtime::cuda {
namespace {

int32_t report_no_device(void* user_context) {
    tessera_error_begin(user_context);
    tessera_error_append_string(
        user_context,
        "CUDA: no CUDA device found (cuDeviceGetCount gives 0). Check that the GPU is "
        "visible (nvidia-smi, CUDA_VISIBLE_DEVICES).");
    return tessera_error_end(user_context, tessera_error_no_cuda_device);
}

// Retains device 0's primary context the first time and keeps it for the life of the process:
// releasing it would destroy the modules loaded and the memory kept in it.
int32_t acquire_primary_context(void* user_context, void** cu_context, int32_t create) {
    static std::mutex mutex;
    static CUcontext primary = nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    if (primary || !create) {
        *cu_context = primary;
        return 0;
    }
    int32_t error = 0;
    const Driver* d = load_driver(user_context, &error);
    if (!d) return error;
    int count = 0;
    if (CUresult r = d->cuDeviceGetCount(&count); r != CUDA_SUCCESS)
        return report_failed_call(user_context, *d, "cuDeviceGetCount", r);
    if (count == 0) return report_no_device(user_context);
    CUdevice device = 0;
    if (CUresult r = d->cuDeviceGet(&device, 0); r != CUDA_SUCCESS)
        return report_failed_call(user_context, *d, "cuDeviceGet", r);
    if (CUresult r = d->cuDevicePrimaryCtxRetain(&primary, device); r != CUDA_SUCCESS)
        return report_failed_call(user_context, *d, "cuDevicePrimaryCtxRetain", r);
    *cu_context = primary;
    return 0;
}

int32_t release_nothing(void* /*user_context*/) { return 0; }

struct Handlers {
    tessera_cuda_acquire_context_t acquire;
    tessera_cuda_release_context_t release;
};

// Replaced together, so that a release always matches its acquire.
std::mutex handlers_mutex;
Handlers handlers{acquire_primary_context, release_nothing};

Handlers current_handlers() {
    std::lock_guard<std::mutex> lock(handlers_mutex);
    return handlers;
}

int32_t report_null_context(void* user_context) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context,
                                "CUDA: the context handler succeeded but gave no context (see "
                                "tessera_cuda_set_context_handlers).");
    return tessera_error_end(user_context, tessera_error_cuda_call_failed);
}

}  // namespace

ContextScope::ContextScope(void* user_context) : user_context_(user_context) {
    driver_ = load_driver(user_context, &error_);
    if (!driver_) return;
    // The handlers are read once, so that the release called is the one matching this acquire.
    const Handlers h = current_handlers();
    void* context = nullptr;
    if ((error_ = h.acquire(user_context, &context, 1)) != 0) return;
    acquired_ = true;
    release_ = h.release;
    context_ = static_cast<CUcontext>(context);
    if (!context_) {
        error_ = report_null_context(user_context);
        return;
    }
    if (CUresult r = driver_->cuCtxPushCurrent_v2(context_); r != CUDA_SUCCESS) {
        error_ = report_failed_call(user_context, *driver_, "cuCtxPushCurrent_v2", r);
        return;
    }
    pushed_ = true;
}

ContextScope::~ContextScope() {
    // A failure here has nothing left to undo and no caller to tell; the work itself has finished.
    if (pushed_) {
        CUcontext popped = nullptr;
        driver_->cuCtxPopCurrent_v2(&popped);
    }
    if (acquired_) release_(user_context_);
}

int current_device_attribute(const Driver& driver, int attribute, int fallback) {
    CUdevice device = 0;
    int value = 0;
    if (driver.cuCtxGetDevice(&device) != CUDA_SUCCESS) return fallback;
    if (driver.cuDeviceGetAttribute(&value, attribute, device) != CUDA_SUCCESS) return fallback;
    return value;
}

int32_t current_device_capability(const Driver& driver) {
    const int major = current_device_attribute(driver, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    const int minor = current_device_attribute(driver, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
    return major * 10 + minor;
}

}  // namespace tessera::runtime::cuda

using namespace tessera::runtime::cuda;

extern "C" {

void tessera_cuda_set_context_handlers(tessera_cuda_acquire_context_t acquire,
                                       tessera_cuda_release_context_t release) {
    std::lock_guard<std::mutex> lock(handlers_mutex);
    if (acquire && release) {
        handlers = {acquire, release};
    } else {
        handlers = {acquire_primary_context, release_nothing};
    }
}

int32_t tessera_cuda_device_capability(int32_t* capability) {
    int32_t error = 0;
    const Driver* d = load_driver_quietly(&error);
    if (!d) return error;
    int count = 0;
    if (d->cuDeviceGetCount(&count) != CUDA_SUCCESS) return tessera_error_cuda_call_failed;
    if (count == 0) return tessera_error_no_cuda_device;
    CUdevice device = 0;
    int major = 0, minor = 0;
    if (d->cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
        d->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) !=
            CUDA_SUCCESS ||
        d->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
        return tessera_error_cuda_call_failed;
    if (capability) *capability = major * 10 + minor;
    return 0;
}

}  // extern "C"
