#pragma once
// The CUDA driver API as the runtime uses it: the few types and entry points it calls, loaded
// from the driver library at first use, and the reporting of their errors. Not part of the C
// interface; declared here rather than taken from cuda.h so that the runtime builds anywhere.

#include <cstddef>
#include <cstdint>

namespace tessera::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;

// The driver's error codes and enumerators the runtime needs, as cuda.h numbers them.
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// The entry points, each under the name of the symbol it was loaded from (the _v2 ones where the
// driver has them).
struct Driver {
    CUresult (*cuInit)(unsigned flags);
    CUresult (*cuDeviceGetCount)(int* count);
    CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
    CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
    CUresult (*cuCtxPushCurrent_v2)(CUcontext context);
    CUresult (*cuCtxPopCurrent_v2)(CUcontext* context);
    CUresult (*cuCtxGetDevice)(CUdevice* device);
    CUresult (*cuCtxSynchronize)();
    CUresult (*cuMemAlloc_v2)(CUdeviceptr* address, size_t bytes);
    CUresult (*cuMemFree_v2)(CUdeviceptr address);
    CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr dst, const void* src, size_t bytes);
    CUresult (*cuMemcpyDtoH_v2)(void* dst, CUdeviceptr src, size_t bytes);
    CUresult (*cuModuleLoadDataEx)(CUmodule* module, const void* image, unsigned num_options, int* options,
                                   void** option_values);
    CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
    CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
    CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                               unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                               CUstream stream, void** params, void** extra);
    CUresult (*cuGetErrorName)(CUresult error, const char** name);
    CUresult (*cuGetErrorString)(CUresult error, const char** text);
};

// The driver, loaded and initialized (cuInit) on the first call that succeeds; null after
// reporting why not (tessera_error_no_cuda_driver or _no_cuda_device in *error). A failure is not
// remembered: the next call tries again, so that a program may install the driver or set
// TESSERA_CUDA_DRIVER and retry.
const Driver* load_driver(void* user_context, int32_t* error);
// The same, reporting nothing.
const Driver* load_driver_quietly(int32_t* error);

// Reports that driver call `call` (on kernel `kernel`, if not null) returned `result`, with the
// driver's name and text for it and what to do (`advice`, if not null); returns the code for it:
// tessera_error_out_of_memory, tessera_error_no_cuda_device or tessera_error_cuda_call_failed.
int32_t report_failed_call(void* user_context, const Driver& driver, const char* call, CUresult result,
                           const char* kernel = nullptr, const char* advice = nullptr);

// Appends the driver's name and text for `result` to the error being reported:
// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
void append_result(void* user_context, const Driver& driver, CUresult result);

}  // namespace tessera::runtime::cuda
