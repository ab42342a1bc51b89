#pragma once
// A CUDA driver over host memory, for testing the runtime where there is no GPU: the runtime loads
// it in place of libcuda.so.1 when TESSERA_CUDA_DRIVER names it (tests/CMakeLists.txt builds it).
//
// Device memory is host memory (a device address is a host address), copies are memcpy, a module
// is the PTX text kept, and a launch records what it was given and succeeds; a kernel whose entry
// is "add_one" also adds 1 to `count` floats at a device address, its arguments being
// (float* device address, int32 count). Calls that need a current context fail with
// CUDA_ERROR_INVALID_CONTEXT without one.
//
// Read by every call, from the environment:
//   FAKE_CUDA_FAIL          "cuLaunchKernel:701" or a comma-separated list: those calls return
//                           those codes (the symbol's name, _v2 included).
//   FAKE_CUDA_CAPABILITY    the device's compute capability, major * 10 + minor (default 90).
//                           A module whose PTX targets a higher sm_NN fails to load with
//                           CUDA_ERROR_NO_BINARY_FOR_GPU, as on a real device.
//   FAKE_CUDA_DEVICE_COUNT  the number of devices (default 1); 0 makes cuInit fail with
//                           CUDA_ERROR_NO_DEVICE.

#include <cstdint>

extern "C" {

// What the driver has been asked, for tests to check.
struct FakeCudaState {
    int init_calls;
    int primary_context_retains;
    int context_pushes;
    int context_pops;
    int mem_allocs;
    int mem_frees;
    int live_allocations;
    int copies_to_device;
    int copies_to_host;
    int module_loads;
    void* last_module_context;
    int function_attribute_sets;
    int last_max_dynamic_shared_bytes;
    int launches;
    char last_entry[128];
    unsigned last_grid[3];
    unsigned last_block[3];
    unsigned last_shared_bytes;
    void** last_params;
    void* last_launch_context;
    int synchronizes;
};

FakeCudaState* fake_cuda_state();
// The primary context's handle, as cuDevicePrimaryCtxRetain gives it.
void* fake_cuda_primary_context();

}  // extern "C"
