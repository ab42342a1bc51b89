// A CUDA driver over host memory; see fake_cuda_driver.h. Each entry point has the signature of
// the real one, with plain types in place of cuda.h's.

#include "fake_cuda_driver.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using CUresult = int;
using CUdeviceptr = uint64_t;

constexpr CUresult kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kNoDevice = 100, kInvalidDevice = 101,
                   kInvalidContext = 201, kNoBinaryForGpu = 209, kNotFound = 500;

FakeCudaState state;
std::mutex mutex;  // guards everything below and `state`

struct Module {
    std::string ptx;
    void* context;
};
struct Function {
    const Module* module;
    std::string name;
};
// Never shrink, so that handles stay valid; reachable, so that leak checkers stay quiet.
std::deque<Module> modules;
std::deque<Function> functions;
std::map<CUdeviceptr, size_t> allocations;  // base -> bytes
int primary_context_object;

thread_local std::vector<void*> context_stack;

int env_int(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value && *value ? std::atoi(value) : fallback;
}

int capability() { return env_int("FAKE_CUDA_CAPABILITY", 90); }

// The code FAKE_CUDA_FAIL gives `call`, or kSuccess.
CUresult injected(const char* call) {
    const char* spec = std::getenv("FAKE_CUDA_FAIL");
    if (!spec) return kSuccess;
    const std::string list = spec;
    size_t start = 0;
    while (start < list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        const std::string item = list.substr(start, end - start);
        const size_t colon = item.find(':');
        if (colon != std::string::npos && item.substr(0, colon) == call)
            return std::atoi(item.c_str() + colon + 1);
        start = end + 1;
    }
    return kSuccess;
}

// Whether [address, address + bytes) lies inside one allocation.
bool is_device_range(CUdeviceptr address, size_t bytes) {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin()) return false;
    --it;
    return address >= it->first && address + bytes <= it->first + it->second;
}

void* current_context() { return context_stack.empty() ? nullptr : context_stack.back(); }

// The NN of ".target sm_NN", or 0.
int ptx_target(const std::string& ptx) {
    const size_t at = ptx.find(".target sm_");
    return at == std::string::npos ? 0 : std::atoi(ptx.c_str() + at + std::strlen(".target sm_"));
}

void write_log(unsigned num_options, const int* options, void** values, const char* text) {
    char* buffer = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < num_options; i++) {
        if (options[i] == 5) buffer = static_cast<char*>(values[i]);
        if (options[i] == 6) size = reinterpret_cast<uintptr_t>(values[i]);
    }
    if (buffer && size > 0) {
        std::strncpy(buffer, text, size - 1);
        buffer[size - 1] = 0;
    }
}

// The "add_one" kernel: adds 1 to count floats at a device address.
CUresult run_add_one(void** params) {
    const CUdeviceptr address = *static_cast<CUdeviceptr*>(params[0]);
    const int32_t count = *static_cast<int32_t*>(params[1]);
    if (count < 0 || !is_device_range(address, size_t(count) * sizeof(float))) return 700;  // ILLEGAL_ADDRESS
    float* data = reinterpret_cast<float*>(address);
    for (int32_t i = 0; i < count; i++) data[i] += 1.0f;
    return kSuccess;
}

struct ErrorText {
    CUresult code;
    const char* name;
    const char* text;
};
const ErrorText error_texts[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

const ErrorText* find_error(CUresult code) {
    for (const ErrorText& e : error_texts)
        if (e.code == code) return &e;
    return nullptr;
}

}  // namespace

extern "C" {

FakeCudaState* fake_cuda_state() { return &state; }
void* fake_cuda_primary_context() { return &primary_context_object; }

CUresult cuInit(unsigned /*flags*/) {
    if (CUresult r = injected("cuInit")) return r;
    std::lock_guard<std::mutex> lock(mutex);
    state.init_calls++;
    return env_int("FAKE_CUDA_DEVICE_COUNT", 1) > 0 ? kSuccess : kNoDevice;
}

CUresult cuDeviceGetCount(int* count) {
    if (CUresult r = injected("cuDeviceGetCount")) return r;
    *count = env_int("FAKE_CUDA_DEVICE_COUNT", 1);
    return kSuccess;
}

CUresult cuDeviceGet(int* device, int ordinal) {
    if (CUresult r = injected("cuDeviceGet")) return r;
    if (ordinal < 0 || ordinal >= env_int("FAKE_CUDA_DEVICE_COUNT", 1)) return kInvalidDevice;
    *device = ordinal;
    return kSuccess;
}

CUresult cuDeviceGetAttribute(int* value, int attribute, int /*device*/) {
    if (CUresult r = injected("cuDeviceGetAttribute")) return r;
    switch (attribute) {
        case 75: *value = capability() / 10; break;
        case 76: *value = capability() % 10; break;
        case 97: *value = 227 * 1024; break;
        default: *value = 0;
    }
    return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(void** context, int /*device*/) {
    if (CUresult r = injected("cuDevicePrimaryCtxRetain")) return r;
    std::lock_guard<std::mutex> lock(mutex);
    state.primary_context_retains++;
    *context = &primary_context_object;
    return kSuccess;
}

CUresult cuDevicePrimaryCtxRelease_v2(int /*device*/) {
    if (CUresult r = injected("cuDevicePrimaryCtxRelease_v2")) return r;
    std::lock_guard<std::mutex> lock(mutex);
    state.primary_context_retains--;
    return kSuccess;
}

CUresult cuCtxPushCurrent_v2(void* context) {
    if (CUresult r = injected("cuCtxPushCurrent_v2")) return r;
    if (!context) return kInvalidContext;
    std::lock_guard<std::mutex> lock(mutex);
    state.context_pushes++;
    context_stack.push_back(context);
    return kSuccess;
}

CUresult cuCtxPopCurrent_v2(void** context) {
    if (CUresult r = injected("cuCtxPopCurrent_v2")) return r;
    if (context_stack.empty()) return kInvalidContext;
    std::lock_guard<std::mutex> lock(mutex);
    state.context_pops++;
    if (context) *context = context_stack.back();
    context_stack.pop_back();
    return kSuccess;
}

CUresult cuCtxGetDevice(int* device) {
    if (CUresult r = injected("cuCtxGetDevice")) return r;
    if (!current_context()) return kInvalidContext;
    *device = 0;
    return kSuccess;
}

CUresult cuCtxSynchronize() {
    if (CUresult r = injected("cuCtxSynchronize")) return r;
    if (!current_context()) return kInvalidContext;
    std::lock_guard<std::mutex> lock(mutex);
    state.synchronizes++;
    return kSuccess;
}

CUresult cuMemAlloc_v2(CUdeviceptr* address, size_t bytes) {
    if (CUresult r = injected("cuMemAlloc_v2")) return r;
    if (!current_context()) return kInvalidContext;
    if (bytes == 0) return kInvalidValue;
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p) return kOutOfMemory;
    std::lock_guard<std::mutex> lock(mutex);
    *address = reinterpret_cast<CUdeviceptr>(p);
    allocations[*address] = bytes;
    state.mem_allocs++;
    state.live_allocations++;
    return kSuccess;
}

CUresult cuMemFree_v2(CUdeviceptr address) {
    if (CUresult r = injected("cuMemFree_v2")) return r;
    if (!current_context()) return kInvalidContext;
    std::lock_guard<std::mutex> lock(mutex);
    if (allocations.erase(address) == 0) return kInvalidValue;
    std::free(reinterpret_cast<void*>(address));
    state.mem_frees++;
    state.live_allocations--;
    return kSuccess;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
    if (CUresult r = injected("cuMemcpyHtoD_v2")) return r;
    if (!current_context()) return kInvalidContext;
    std::lock_guard<std::mutex> lock(mutex);
    if (!is_device_range(dst, bytes)) return kInvalidValue;
    std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
    state.copies_to_device++;
    return kSuccess;
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
    if (CUresult r = injected("cuMemcpyDtoH_v2")) return r;
    if (!current_context()) return kInvalidContext;
    std::lock_guard<std::mutex> lock(mutex);
    if (!is_device_range(src, bytes)) return kInvalidValue;
    std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
    state.copies_to_host++;
    return kSuccess;
}

CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned num_options, int* options,
                            void** values) {
    if (CUresult r = injected("cuModuleLoadDataEx")) {
        write_log(num_options, options, values, "fake: failure injected by FAKE_CUDA_FAIL");
        return r;
    }
    if (!current_context()) return kInvalidContext;
    const std::string ptx = static_cast<const char*>(image);
    if (ptx_target(ptx) > capability()) {
        write_log(num_options, options, values, "fake: the PTX targets a newer GPU than the device");
        return kNoBinaryForGpu;
    }
    std::lock_guard<std::mutex> lock(mutex);
    modules.push_back({ptx, current_context()});
    *module = &modules.back();
    state.module_loads++;
    state.last_module_context = current_context();
    return kSuccess;
}

CUresult cuModuleUnload(void* /*module*/) {
    if (CUresult r = injected("cuModuleUnload")) return r;
    return kSuccess;
}

CUresult cuModuleGetFunction(void** function, void* module, const char* name) {
    if (CUresult r = injected("cuModuleGetFunction")) return r;
    if (!current_context()) return kInvalidContext;
    const Module* m = static_cast<const Module*>(module);
    if (m->ptx.find(std::string(".entry ") + name) == std::string::npos) return kNotFound;
    std::lock_guard<std::mutex> lock(mutex);
    functions.push_back({m, name});
    *function = &functions.back();
    return kSuccess;
}

CUresult cuFuncSetAttribute(void* /*function*/, int attribute, int value) {
    if (CUresult r = injected("cuFuncSetAttribute")) return r;
    if (attribute == 8 && value > 227 * 1024) return kInvalidValue;
    std::lock_guard<std::mutex> lock(mutex);
    state.function_attribute_sets++;
    if (attribute == 8) state.last_max_dynamic_shared_bytes = value;
    return kSuccess;
}

CUresult cuLaunchKernel(void* function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                        unsigned block_y, unsigned block_z, unsigned shared_bytes, void* /*stream*/,
                        void** params, void** /*extra*/) {
    if (CUresult r = injected("cuLaunchKernel")) return r;
    if (!current_context()) return kInvalidContext;
    const Function* f = static_cast<const Function*>(function);
    std::lock_guard<std::mutex> lock(mutex);
    state.launches++;
    std::strncpy(state.last_entry, f->name.c_str(), sizeof(state.last_entry) - 1);
    state.last_entry[sizeof(state.last_entry) - 1] = 0;
    const unsigned grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
    std::memcpy(state.last_grid, grid, sizeof(grid));
    std::memcpy(state.last_block, block, sizeof(block));
    state.last_shared_bytes = shared_bytes;
    state.last_params = params;
    state.last_launch_context = current_context();
    return f->name == "add_one" ? run_add_one(params) : kSuccess;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
    const ErrorText* e = find_error(error);
    *name = e ? e->name : nullptr;
    return e ? kSuccess : kInvalidValue;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
    const ErrorText* e = find_error(error);
    *text = e ? e->text : nullptr;
    return e ? kSuccess : kInvalidValue;
}

}  // extern "C"
