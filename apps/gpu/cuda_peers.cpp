// The CUDA driver and cuBLAS, opened with dlopen at first use and never closed, and the timed
// device work of the GPU benchmarks' peers built on them.

#include "cuda_peers.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gpu_bench {
namespace {

// The few types and constants of cuda.h that these calls need, declared here so that the
// benchmarks build where CUDA is not installed. Values as in CUDA 13's cuda.h.
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUevent = void*;
using CUstream = void*;
using CUdeviceptr = uint64_t;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
// The null stream: the legacy default stream, since these entry points are the plain ones, not the
// per-thread (_ptsz, _ptds) ones. cuBLAS's handles default to it too, so events recorded here
// bracket both the copies and the sgemms.
constexpr CUstream kLegacyDefaultStream = nullptr;

// The driver's entry points, and device 0 with its primary context once they have been set up.
struct Driver {
    CUresult (*cuInit)(unsigned flags);
    CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
    CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device);
    CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
    CUresult (*cuCtxPushCurrent_v2)(CUcontext context);
    CUresult (*cuCtxSynchronize)();
    CUresult (*cuMemAlloc_v2)(CUdeviceptr* address, size_t bytes);
    CUresult (*cuMemFree_v2)(CUdeviceptr address);
    CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr dst, const void* src, size_t bytes);
    CUresult (*cuMemcpyDtoH_v2)(void* dst, CUdeviceptr src, size_t bytes);
    CUresult (*cuMemcpyDtoD_v2)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
    CUresult (*cuMemsetD8_v2)(CUdeviceptr dst, unsigned char value, size_t bytes);
    CUresult (*cuEventCreate)(CUevent* event, unsigned flags);
    CUresult (*cuEventRecord)(CUevent event, CUstream stream);
    CUresult (*cuEventSynchronize)(CUevent event);
    CUresult (*cuEventElapsedTime)(float* milliseconds, CUevent start, CUevent stop);
    CUresult (*cuEventDestroy_v2)(CUevent event);
    CUresult (*cuGetErrorName)(CUresult result,
                               const char** name);  // may be null: messages then say the number

    CUdevice device = 0;
    CUcontext context = nullptr;  // retained for the life of the process, never released
    std::string unavailable;      // why the device cannot be used; empty when it can
};

// Looks `name` up in the library into entry; whether it is there.
template <typename F>
bool resolve(void* library, const char* name, F& entry) {
    entry = reinterpret_cast<F>(dlsym(library, name));
    return entry != nullptr;
}

// Fills d's entry points from the library; returns the name of the first one missing, or null.
const char* resolve_driver(void* library, Driver& d) {
    // Each entry is looked up under its own name, so that the two cannot drift apart.
#define GPU_BENCH_REQUIRE(name) \
    if (!resolve(library, #name, d.name)) return #name
    GPU_BENCH_REQUIRE(cuInit);
    GPU_BENCH_REQUIRE(cuDeviceGet);
    GPU_BENCH_REQUIRE(cuDeviceGetName);
    GPU_BENCH_REQUIRE(cuDeviceGetAttribute);
    GPU_BENCH_REQUIRE(cuDevicePrimaryCtxRetain);
    GPU_BENCH_REQUIRE(cuCtxPushCurrent_v2);
    GPU_BENCH_REQUIRE(cuCtxSynchronize);
    GPU_BENCH_REQUIRE(cuMemAlloc_v2);
    GPU_BENCH_REQUIRE(cuMemFree_v2);
    GPU_BENCH_REQUIRE(cuMemcpyHtoD_v2);
    GPU_BENCH_REQUIRE(cuMemcpyDtoH_v2);
    GPU_BENCH_REQUIRE(cuMemcpyDtoD_v2);
    GPU_BENCH_REQUIRE(cuMemsetD8_v2);
    GPU_BENCH_REQUIRE(cuEventCreate);
    GPU_BENCH_REQUIRE(cuEventRecord);
    GPU_BENCH_REQUIRE(cuEventSynchronize);
    GPU_BENCH_REQUIRE(cuEventDestroy_v2);
#undef GPU_BENCH_REQUIRE
    // CUDA 13's cuda.h maps cuEventElapsedTime to the _v2 entry point; older drivers have only the
    // plain one.
    if (!resolve(library, "cuEventElapsedTime_v2", d.cuEventElapsedTime) &&
        !resolve(library, "cuEventElapsedTime", d.cuEventElapsedTime))
        return "cuEventElapsedTime";
    resolve(library, "cuGetErrorName", d.cuGetErrorName);
    return nullptr;
}

// "call failed: CUDA_ERROR_NAME (number)".
std::string failed_call(const Driver& d, const char* call, CUresult result) {
    const char* name = nullptr;
    if (!d.cuGetErrorName || d.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) name = "CUDA error";
    return std::string(call) + " failed: " + name + " (" + std::to_string(result) + ")";
}

// Throws std::runtime_error naming the call unless it succeeded.
void check(const Driver& d, const char* call, CUresult result) {
    if (result != CUDA_SUCCESS) throw std::runtime_error(failed_call(d, call, result));
}

// Opens the driver, initializes it and retains device 0's primary context; on any failure, the
// Driver says why in `unavailable`.
Driver load_driver() {
    Driver d{};
    const char* configured = std::getenv("TESSERA_CUDA_DRIVER");
    const std::string path = configured && *configured ? configured : "libcuda.so.1";
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char* error = dlerror();
        d.unavailable = "cannot load the CUDA driver: " + std::string(error ? error : path.c_str());
        return d;
    }
    if (const char* missing = resolve_driver(library, d)) {
        dlclose(library);
        d.unavailable = "the CUDA driver " + path + " has no entry point " + missing +
                        ": not a CUDA driver, or one too old";
        return d;
    }
    // From here on the library stays open: a driver that has run cuInit is not to be unloaded.
    const CUresult init = d.cuInit(0);
    if (init == CUDA_ERROR_NO_DEVICE) {
        d.unavailable = "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)";
        return d;
    }
    if (init != CUDA_SUCCESS) {
        d.unavailable = failed_call(d, "cuInit", init);
    } else if (CUresult r = d.cuDeviceGet(&d.device, 0); r != CUDA_SUCCESS) {
        d.unavailable = failed_call(d, "cuDeviceGet(0)", r);
    } else if (CUresult r = d.cuDevicePrimaryCtxRetain(&d.context, d.device); r != CUDA_SUCCESS) {
        d.unavailable = failed_call(d, "cuDevicePrimaryCtxRetain", r);
    }
    return d;
}

// The driver, loaded by the first caller (thread-safely, by the static's initialization).
const Driver& loaded_driver() {
    static const Driver driver = load_driver();
    return driver;
}

// The driver, with device 0's primary context current on the calling thread; throws when there is
// no usable device.
const Driver& driver() {
    const Driver& d = loaded_driver();
    if (!d.unavailable.empty()) throw std::runtime_error("CUDA is unavailable: " + d.unavailable);
    // The current context is a property of the thread, so each thread pushes it once and leaves it
    // there until it ends. The Tessera runtime pushes and pops the same context around its own
    // work, which nests on top of this.
    thread_local bool pushed = false;
    if (!pushed) {
        check(d, "cuCtxPushCurrent_v2", d.cuCtxPushCurrent_v2(d.context));
        pushed = true;
    }
    return d;
}

// Device 0's value of a CUdevice_attribute.
int device_attribute(int attribute, const char* name) {
    const Driver& d = driver();
    int value = 0;
    check(d, name, d.cuDeviceGetAttribute(&value, attribute, d.device));
    return value;
}

// Throws unless `bytes` bytes fit in the allocation m, for the call `call`.
void check_fits(const char* call, size_t bytes, const DeviceMemory& m) {
    if (bytes > m.bytes())
        throw std::runtime_error(std::string(call) + ": " + std::to_string(bytes) +
                                 " bytes do not fit in a device allocation of " + std::to_string(m.bytes()));
}

// A new event that records time (CU_EVENT_DEFAULT does; CU_EVENT_DISABLE_TIMING would not).
CUevent create_event(const Driver& d) {
    CUevent event = nullptr;
    check(d, "cuEventCreate", d.cuEventCreate(&event, CU_EVENT_DEFAULT));
    return event;
}

}  // namespace

bool cuda_available(std::string* why) {
    const Driver& d = loaded_driver();
    if (why) *why = d.unavailable;
    return d.unavailable.empty();
}

std::string device_name() {
    const Driver& d = driver();
    char name[256] = {};
    check(d, "cuDeviceGetName", d.cuDeviceGetName(name, sizeof(name) - 1, d.device));
    return name;
}

int compute_capability() {
    return 10 *
               device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cuDeviceGetAttribute(major)") +
           device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cuDeviceGetAttribute(minor)");
}

int multiprocessor_count() {
    return device_attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                            "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
}

void synchronize_device() {
    const Driver& d = driver();
    check(d, "cuCtxSynchronize", d.cuCtxSynchronize());
}

GpuTimer::GpuTimer() {
    const Driver& d = driver();
    start_event_ = create_event(d);
    try {
        stop_event_ = create_event(d);
    } catch (...) {
        d.cuEventDestroy_v2(start_event_);
        throw;
    }
}

// Destructors cannot throw, and a failure to free at the end is no reason to fail a benchmark:
// their results go unchecked.
GpuTimer::~GpuTimer() {
    const Driver& d = loaded_driver();
    d.cuEventDestroy_v2(start_event_);
    d.cuEventDestroy_v2(stop_event_);
}

void GpuTimer::start() {
    const Driver& d = driver();
    check(d, "cuEventRecord(start)", d.cuEventRecord(start_event_, kLegacyDefaultStream));
}

double GpuTimer::stop_seconds() {
    const Driver& d = driver();
    check(d, "cuEventRecord(stop)", d.cuEventRecord(stop_event_, kLegacyDefaultStream));
    check(d, "cuEventSynchronize", d.cuEventSynchronize(stop_event_));
    float milliseconds = 0;
    check(d, "cuEventElapsedTime", d.cuEventElapsedTime(&milliseconds, start_event_, stop_event_));
    return milliseconds / 1e3;
}

DeviceMemory::DeviceMemory(size_t bytes) : bytes_(bytes) {
    const Driver& d = driver();
    check(d, "cuMemAlloc_v2", d.cuMemAlloc_v2(&address_, bytes));
}

DeviceMemory::~DeviceMemory() {
    if (address_) loaded_driver().cuMemFree_v2(address_);
}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : address_(std::exchange(other.address_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
    std::swap(address_, other.address_);
    std::swap(bytes_, other.bytes_);
    return *this;
}

void copy_to_device(const DeviceMemory& dst, const void* src, size_t bytes) {
    check_fits("copy_to_device", bytes, dst);
    const Driver& d = driver();
    check(d, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD_v2(dst.address(), src, bytes));
}

void copy_to_host(void* dst, const DeviceMemory& src, size_t bytes) {
    check_fits("copy_to_host", bytes, src);
    const Driver& d = driver();
    check(d, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH_v2(dst, src.address(), bytes));
}

void set_bytes(const DeviceMemory& dst, unsigned char value) {
    const Driver& d = driver();
    check(d, "cuMemsetD8_v2", d.cuMemsetD8_v2(dst.address(), value, dst.bytes()));
}

double device_copy_seconds(const DeviceMemory& dst, const DeviceMemory& src, size_t bytes) {
    check_fits("device_copy_seconds (source)", bytes, src);
    check_fits("device_copy_seconds (destination)", bytes, dst);
    const Driver& d = driver();
    GpuTimer timer;
    timer.start();
    check(d, "cuMemcpyDtoD_v2", d.cuMemcpyDtoD_v2(dst.address(), src.address(), bytes));
    return timer.stop_seconds();
}

namespace {

// The cuBLAS types, as in cublas_api.h: cublasStatus_t, cublasOperation_t and cublasMath_t are
// enums (ints), a cublasHandle_t a pointer.
using cublasStatus_t = int;
using cublasHandle_t = void*;
constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr int CUBLAS_OP_N = 0;
// FP32 throughout, with no TF32: in cuBLAS 11 and later the default math mode lets sgemm use
// neither TF32 tensor cores (that takes CUBLAS_TF32_TENSOR_OP_MATH, 3) nor the BF16x9 emulation
// (CUBLAS_FP32_EMULATED_BF16X9_MATH, 4), so the comparison is with Tessera's FP32 arithmetic.
constexpr int CUBLAS_DEFAULT_MATH = 0;

// cuBLAS's entry points, or why it could not be opened.
struct CublasLibrary {
    cublasStatus_t (*cublasCreate_v2)(cublasHandle_t* handle);
    cublasStatus_t (*cublasDestroy_v2)(cublasHandle_t handle);
    cublasStatus_t (*cublasSetMathMode)(cublasHandle_t handle, int mode);
    cublasStatus_t (*cublasSgemm_v2)(cublasHandle_t handle, int transa, int transb, int m, int n, int k,
                                     const float* alpha, const float* a, int lda, const float* b, int ldb,
                                     const float* beta, float* c, int ldc);
    const char* (*cublasGetStatusName)(cublasStatus_t status);  // may be null: messages then say the number
    std::string unavailable;                                    // empty when opened
};

// The paths to try, best first: $TESSERA_CUBLAS_DIR, the dynamic loader's own search
// (LD_LIBRARY_PATH, ldconfig's cache), then where the CUDA toolkit installs itself.
std::vector<std::string> cublas_candidates() {
    std::vector<std::string> directories;
    if (const char* dir = std::getenv("TESSERA_CUBLAS_DIR"); dir && *dir)
        directories.push_back(dir + std::string("/"));
    directories.push_back("");
    directories.push_back("/usr/local/cuda/lib64/");
    std::vector<std::string> paths;
    for (const std::string& directory : directories)
        for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
            paths.push_back(directory + name);
    return paths;
}

// Fills c's entry points from the library; returns the name of the first one missing, or null.
const char* resolve_cublas(void* library, CublasLibrary& c) {
#define GPU_BENCH_REQUIRE(name) \
    if (!resolve(library, #name, c.name)) return #name
    GPU_BENCH_REQUIRE(cublasCreate_v2);
    GPU_BENCH_REQUIRE(cublasDestroy_v2);
    GPU_BENCH_REQUIRE(cublasSetMathMode);
    GPU_BENCH_REQUIRE(cublasSgemm_v2);
#undef GPU_BENCH_REQUIRE
    resolve(library, "cublasGetStatusName", c.cublasGetStatusName);
    return nullptr;
}

// Opens the first candidate that loads and has every entry point.
CublasLibrary load_cublas() {
    CublasLibrary c{};
    const std::vector<std::string> candidates = cublas_candidates();
    for (const std::string& path : candidates) {
        void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) continue;
        if (const char* missing = resolve_cublas(library, c)) {
            c.unavailable = path + " has no entry point " + missing;
            dlclose(library);
            continue;
        }
        c.unavailable.clear();
        return c;
    }
    if (c.unavailable.empty())
        c.unavailable = "cuBLAS not found (tried libcublas.so.13, .so.12 and .so, " +
                        std::to_string(candidates.size()) +
                        " paths; set TESSERA_CUBLAS_DIR to its directory)";
    return c;
}

// cuBLAS, opened by the first caller.
const CublasLibrary& cublas_library() {
    static const CublasLibrary library = load_cublas();
    return library;
}

// Throws std::runtime_error naming the call and its status unless it succeeded.
void check(const CublasLibrary& c, const char* call, cublasStatus_t status) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    const char* name = c.cublasGetStatusName ? c.cublasGetStatusName(status) : nullptr;
    throw std::runtime_error(std::string(call) + " failed: " + (name ? name : "cuBLAS status") + " (" +
                             std::to_string(status) + ")");
}

}  // namespace

Cublas::Cublas() {
    if (!cuda_available(&unavailable_)) return;
    const CublasLibrary& c = cublas_library();
    if (!c.unavailable.empty()) {
        unavailable_ = c.unavailable;
        return;
    }
    // cuBLAS creates its handle on the current context: device 0's primary one.
    driver();
    check(c, "cublasCreate_v2", c.cublasCreate_v2(&handle_));
    try {
        check(c, "cublasSetMathMode(CUBLAS_DEFAULT_MATH)", c.cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
    } catch (...) {
        c.cublasDestroy_v2(handle_);
        throw;
    }
}

Cublas::~Cublas() {
    if (handle_) cublas_library().cublasDestroy_v2(handle_);
}

bool Cublas::available(std::string* why) const {
    if (why) *why = unavailable_;
    return unavailable_.empty();
}

void Cublas::sgemm(int m, int n, int k, uint64_t a, uint64_t b, uint64_t c) {
    if (!handle_) throw std::runtime_error("Cublas::sgemm: cuBLAS is unavailable: " + unavailable_);
    driver();
    // cuBLAS is column-major, and a row-major matrix is its transpose read column-major. So ask for
    // C^T (n x m) = B^T (n x k) * A^T (k x m): the same bytes as the row-major C = A * B.
    const float alpha = 1, beta = 0;
    const CublasLibrary& library = cublas_library();
    check(library, "cublasSgemm_v2",
          library.cublasSgemm_v2(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
                                 reinterpret_cast<const float*>(b), n, reinterpret_cast<const float*>(a), k,
                                 &beta, reinterpret_cast<float*>(c), n));
}

}  // namespace gpu_bench
