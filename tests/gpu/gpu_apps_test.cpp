// The schedules of the GPU benchmarks (apps/gpu/gpu_pipelines.h) give the bits of plain C++, in
// emulation and, in a device run, on the GPU; their kernels' PTX assembles (gpu_test_support.h).
// Sizes divide none of the tiles.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <cmath>
#include <random>

#include "apps/gpu/gpu_pipelines.h"
#include "tests/gpu/gpu_test_support.h"

using namespace tessera;

namespace {

// Pixels of 12 bits; floats of many magnitudes, whose sums and chains of multiply-adds round
// differently in another order: the bits checked are those of the order the pipeline defines.
template <typename T>
Buffer<T> random_buffer(int w, int h, uint32_t seed) {
    Buffer<T> b(w, h);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> pixel(0, 0xfff), exponent(-20, 20);
    std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
    b.for_each_value([&](T& v) {
        if constexpr (std::is_floating_point_v<T>)
            v = std::ldexp(mantissa(rng), exponent(rng));
        else
            v = T(pixel(rng));
    });
    return b;
}

}  // namespace

TEST_CASE("the GPU blur gives the plain loop's bits") {
    const int w = 70, h = 45;
    const Buffer<uint16_t> in = random_buffer<uint16_t>(w, h, 1);
    gpu_apps::BlurPipeline p = gpu_apps::blur_pipeline();
    gpu_apps::schedule_blur_for_gpu(p);
    p.input.set(in);
    const Buffer<uint16_t> out = gpu_test::realize_on_gpu<uint16_t>(p.blur_y, {w, h}, {p.input});
    auto at = [&](int x, int y) { return int(in(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1))); };
    auto blur_x = [&](int x, int y) { return (at(x - 1, y) + at(x, y) + at(x + 1, y)) / 3; };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            REQUIRE_MESSAGE(out(x, y) == (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3,
                            "at " << x << ", " << y);
}

TEST_CASE("the GPU SGEMM gives the plain loop's chain of fused multiply-adds") {
    const int n = 40, m = 37, k = 50;
    const Buffer<float> a = random_buffer<float>(k, m, 2), b = random_buffer<float>(n, k, 3);
    gpu_apps::SgemmPipeline p = gpu_apps::sgemm_pipeline();
    gpu_apps::schedule_sgemm_for_gpu(p);
    p.A.set(a);
    p.B.set(b);
    const Buffer<float> c = gpu_test::realize_on_gpu<float>(p.C, {n, m}, {p.A, p.B});
    int where_order_shows = 0;
    for (int y = 0; y < m; y++) {
        for (int x = 0; x < n; x++) {
            float expected = 0.0f, backwards = 0.0f;
            for (int i = 0; i < k; i++) expected = std::fma(a(i, y), b(x, i), expected);
            for (int i = k - 1; i >= 0; i--) backwards = std::fma(a(i, y), b(x, i), backwards);
            REQUIRE_MESSAGE(c(x, y) == expected, "at " << x << ", " << y);
            where_order_shows += backwards != expected;
        }
    }
    CHECK(where_order_shows > 0);  // the check could tell another order of k
    // Each thread's row of 4 values of B is one 16-byte load from shared memory.
    CHECK(gpu_test::ptx_of(p.C, 90, {p.A, p.B}).find("ld.shared.v4.f32") != std::string::npos);
}

TEST_CASE("the GPU row sum adds in the order of its 256 slices") {
    const int w = 1000, h = 13;
    const Buffer<float> in = random_buffer<float>(w, h, 4);
    gpu_apps::RowSumPipeline p = gpu_apps::row_sum_pipeline();
    gpu_apps::schedule_row_sum_for_gpu(p);
    p.input.set(in);
    const Buffer<float> sums = gpu_test::realize_on_gpu<float>(p.sum, {h}, {p.input});
    int rows_where_order_shows = 0;
    for (int y = 0; y < h; y++) {
        float partial[256] = {}, in_order = 0.0f;
        for (int x = 0; x < w; x++) {
            partial[x % 256] += in(x, y);
            in_order += in(x, y);
        }
        float expected = 0.0f;
        for (float s : partial) expected += s;
        REQUIRE_MESSAGE(sums(y) == expected, "row " << y);
        rows_where_order_shows += in_order != expected;
    }
    // The check could tell another order of the additions.
    CHECK(rows_where_order_shows > 0);
}
