#pragma once
// The GPU peers of the GPU benchmarks: device-to-device copies and cuBLAS's sgemm, timed with CUDA
// events. The CUDA driver and cuBLAS are opened with dlopen at first use, never linked, so that the
// benchmarks build and run on machines without CUDA and report rows without a device there.
//
// Everything runs on device 0, in its primary context (the one the Tessera runtime uses too), on
// the legacy default stream. Every call that needs the device makes that context current on the
// calling thread, once per thread, and leaves it current. A failed CUDA or cuBLAS call throws
// std::runtime_error naming the call and its result code; so does any use of the device where
// cuda_available() says there is none.

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpu_bench {

// Whether the CUDA driver loads (from $TESSERA_CUDA_DRIVER, else libcuda.so.1) and device 0 and its
// primary context can be had; if not, says why in *why (when given), e.g. "no CUDA device".
bool cuda_available(std::string* why);

// Device 0's name, as the driver gives it ("NVIDIA H100 80GB HBM3").
std::string device_name();

// Device 0's compute capability as major * 10 + minor: 90 for sm_90.
int compute_capability();

// Device 0's number of streaming multiprocessors.
int multiprocessor_count();

// Waits until all the work queued on device 0 so far has finished.
void synchronize_device();

// Times work on the legacy default stream between start() and stop_seconds() with two CUDA events,
// so that what is measured is the device's time, not the host's: for Google Benchmark's manual
// timing (state.SetIterationTime(timer.stop_seconds())).
class GpuTimer {
public:
    GpuTimer();
    ~GpuTimer();
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;

    // Records the start event; returns at once.
    void start();
    // Records the stop event, waits for it, and returns the seconds between the two events.
    double stop_seconds();

private:
    void* start_event_ = nullptr;  // CUevent
    void* stop_event_ = nullptr;
};

// `bytes` bytes of device memory on device 0, uninitialized, freed with the object.
class DeviceMemory {
public:
    explicit DeviceMemory(size_t bytes);
    ~DeviceMemory();
    DeviceMemory(DeviceMemory&& other) noexcept;
    DeviceMemory& operator=(DeviceMemory&& other) noexcept;
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;

    // The device address (a CUdeviceptr), as cuBLAS and kernels take it.
    uint64_t address() const { return address_; }
    size_t bytes() const { return bytes_; }

private:
    uint64_t address_ = 0;
    size_t bytes_ = 0;
};

// Copies `bytes` bytes from host memory to the start of dst, and returns when they are there.
void copy_to_device(const DeviceMemory& dst, const void* src, size_t bytes);

// Copies `bytes` bytes from the start of src to host memory, and returns when they are there.
void copy_to_host(void* dst, const DeviceMemory& src, size_t bytes);

// Sets every byte of dst to `value`, on the legacy default stream.
void set_bytes(const DeviceMemory& dst, unsigned char value);

// Copies the first `bytes` bytes of src to dst with one cuMemcpyDtoD on the legacy default stream,
// and returns the device's seconds for it (GpuTimer): the device-to-device copy bandwidth row.
double device_copy_seconds(const DeviceMemory& dst, const DeviceMemory& src, size_t bytes);

// cuBLAS, opened from the first of libcublas.so.13, .so.12 and .so that loads, looked for in
// $TESSERA_CUBLAS_DIR (when set), then where the dynamic loader looks, then /usr/local/cuda/lib64.
// One handle per object, on device 0's primary context and the legacy default stream.
class Cublas {
public:
    // Opens cuBLAS and creates a handle if CUDA and the library are there; otherwise remembers why
    // not for available(). Throws only when a call into a cuBLAS that is there fails.
    Cublas();
    ~Cublas();
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;

    // Whether sgemm() can run; if not, says why in *why (when given).
    bool available(std::string* why) const;

    // C = A * B in FP32 (no TF32: see the .cpp), for row-major dense float matrices on the device at
    // addresses a (m x k), b (k x n) and c (m x n). Queued on the legacy default stream; returns
    // without waiting for it.
    void sgemm(int m, int n, int k, uint64_t a, uint64_t b, uint64_t c);

private:
    void* handle_ = nullptr;  // cublasHandle_t
    std::string unavailable_;
};

}  // namespace gpu_bench
