#pragma once
// The CUDA context the runtime works in, and what it asks of the device.

#include <cstdint>

#include "cuda_driver.h"
#include "tessera/runtime.h"

namespace tessera::runtime::cuda {

// Makes the runtime's context current on the calling thread while it lives: acquires it through
// the application's handler (or the default, device 0's primary context) and pushes it; pops it
// and releases it when it goes. Every driver call that needs a context runs inside one.
class ContextScope {
public:
    explicit ContextScope(void* user_context);
    ~ContextScope();
    ContextScope(const ContextScope&) = delete;
    ContextScope& operator=(const ContextScope&) = delete;

    // 0, or the code already reported when there is no driver or no context could be made current.
    int32_t error() const { return error_; }
    // Valid only when error() is 0.
    const Driver& driver() const { return *driver_; }
    CUcontext context() const { return context_; }

private:
    void* user_context_;
    const Driver* driver_ = nullptr;
    CUcontext context_ = nullptr;
    tessera_cuda_release_context_t release_ = nullptr;
    bool acquired_ = false;
    bool pushed_ = false;
    int32_t error_ = 0;
};

// The compute capability of the current context's device as major * 10 + minor (90 for sm_90),
// or 0 when the driver cannot say.
int32_t current_device_capability(const Driver& driver);

// An attribute of the current context's device, or `fallback` when the driver cannot say.
int current_device_attribute(const Driver& driver, int attribute, int fallback);

}  // namespace tessera::runtime::cuda
