// Checks the GPU peers on this machine: says whether CUDA is there (and why not), and if it is,
// measures a device-to-device copy and cuBLAS's sgemm, and checks both against the host. Exits 77
// (ctest's skip code) when there is no CUDA device, 1 when a check or a CUDA call fails.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_peers.h"

namespace {

using gpu_bench::DeviceMemory;

// Copies 256 MiB of a known byte device to device, checks every byte arrived, and prints the
// bandwidth of the best of ten copies, counting each byte read and written once, as NVIDIA's
// bandwidthTest does.
bool check_device_copy() {
    const size_t bytes = size_t(256) << 20;
    DeviceMemory src(bytes), dst(bytes);
    gpu_bench::set_bytes(src, 0x5a);
    gpu_bench::set_bytes(dst, 0);
    double best = gpu_bench::device_copy_seconds(dst, src, bytes);  // also the warm-up
    for (int trial = 0; trial < 10; trial++)
        best = std::min(best, gpu_bench::device_copy_seconds(dst, src, bytes));
    std::vector<unsigned char> copied(bytes);
    gpu_bench::copy_to_host(copied.data(), dst, bytes);
    const auto wrong = std::find_if(copied.begin(), copied.end(), [](unsigned char b) { return b != 0x5a; });
    if (wrong != copied.end()) {
        std::printf("device copy: FAILED: byte %zu is 0x%02x, not 0x5a\n", size_t(wrong - copied.begin()),
                    *wrong);
        return false;
    }
    std::printf("device copy, 256 MiB: %.3f ms, %.1f GB/s (read + write)\n", best * 1e3,
                2.0 * bytes / best / 1e9);
    return true;
}

// Checks row-major C = A * B on a 64 x 48 x 32 problem (no two sizes alike, so that a transposed
// operand or a wrong leading dimension shows) against a double-precision reference. The tolerance
// is ten times FP32's rounding bound for a 32-term dot product, so TF32 (10 bits of mantissa to
// FP32's 23) would fail it.
bool check_sgemm_values(gpu_bench::Cublas& cublas) {
    const int m = 64, n = 48, k = 32;
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1, 1);
    std::vector<float> a(m * k), b(k * n), c(m * n);
    for (float& x : a) x = uniform(random);
    for (float& x : b) x = uniform(random);
    DeviceMemory da(a.size() * 4), db(b.size() * 4), dc(c.size() * 4);
    gpu_bench::copy_to_device(da, a.data(), da.bytes());
    gpu_bench::copy_to_device(db, b.data(), db.bytes());
    cublas.sgemm(m, n, k, da.address(), db.address(), dc.address());
    gpu_bench::copy_to_host(c.data(), dc, dc.bytes());
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double exact = 0, magnitude = 0;
            for (int p = 0; p < k; p++) {
                exact += double(a[i * k + p]) * b[p * n + j];
                magnitude += std::abs(double(a[i * k + p]) * b[p * n + j]);
            }
            const double tolerance = 10 * k * 0x1p-24 * magnitude;
            if (std::abs(c[i * n + j] - exact) > tolerance) {
                std::printf("sgemm %dx%dx%d: FAILED: C(%d, %d) = %.9g, expected %.9g (tolerance %.3g)\n", m,
                            n, k, i, j, c[i * n + j], exact, tolerance);
                return false;
            }
        }
    std::printf("sgemm %dx%dx%d: matches the host reference\n", m, n, k);
    return true;
}

// Prints the rate of the best of ten 1024^3 sgemms on inputs of ones, whose products are exact:
// checks that every element of C is 1024.
bool check_sgemm_rate(gpu_bench::Cublas& cublas) {
    const int size = 1024;
    const size_t bytes = size_t(size) * size * 4;
    DeviceMemory a(bytes), b(bytes), c(bytes);
    const std::vector<float> ones(size_t(size) * size, 1.0f);
    gpu_bench::copy_to_device(a, ones.data(), bytes);
    gpu_bench::copy_to_device(b, ones.data(), bytes);
    gpu_bench::GpuTimer timer;
    double best = 1e30;
    for (int trial = 0; trial < 11; trial++) {  // the first is the warm-up
        timer.start();
        cublas.sgemm(size, size, size, a.address(), b.address(), c.address());
        const double seconds = timer.stop_seconds();
        if (trial > 0) best = std::min(best, seconds);
    }
    std::vector<float> result(size_t(size) * size);
    gpu_bench::copy_to_host(result.data(), c, bytes);
    if (std::any_of(result.begin(), result.end(), [&](float x) { return x != size; })) {
        std::printf("sgemm 1024^3: FAILED: C is not all 1024\n");
        return false;
    }
    std::printf("sgemm 1024^3: %.3f ms, %.0f GFLOPS\n", best * 1e3, 2.0 * size * size * size / best / 1e9);
    return true;
}

}  // namespace

int main() {
    std::string why;
    if (!gpu_bench::cuda_available(&why)) {
        std::printf("CUDA: unavailable: %s\nskipped: no CUDA device\n", why.c_str());
        return 77;
    }
    try {
        std::printf("CUDA: %s, sm_%d, %d SMs\n", gpu_bench::device_name().c_str(),
                    gpu_bench::compute_capability(), gpu_bench::multiprocessor_count());
        bool ok = check_device_copy();
        gpu_bench::Cublas cublas;
        if (!cublas.available(&why)) {
            std::printf("cuBLAS: FAILED: unavailable: %s\n", why.c_str());
            return 1;
        }
        ok = check_sgemm_values(cublas) && ok;
        ok = check_sgemm_rate(cublas) && ok;
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::printf("FAILED: %s\n", e.what());
        return 1;
    }
}
