// GPU schedules give the bits of the default schedule and of plain C++ (in emulation, and on the
// GPU in a device run), and their kernels' PTX assembles (see gpu_test_support.h): blocks,
// threads, lanes, tails of every strategy, producers staged in shared memory or computed per
// thread, register tiles with shared tiles staged by a block's threads together, vector accesses
// of shared memory, shared memory beyond 48 KiB, updates, rfactor and cache_read.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <random>

#include "tests/correctness/blur_reference.h"
#include "tests/gpu/gpu_test_support.h"

using namespace tessera;
using namespace blur_reference;

namespace {

template <typename T>
void check_same_bits(const Buffer<T>& actual, const Buffer<T>& expected) {
    gpu_test::check_same_bits(actual, expected, "the GPU schedule's result");
}

Buffer<float> random_floats(int w, int h, unsigned seed) {
    Buffer<float> b(w, h);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    b.for_each_value([&](float& v) { v = dist(rng); });
    return b;
}

}  // namespace

TEST_CASE("a blur tiled onto blocks and threads gives the reference's bits under every tail strategy") {
    const int w = 67, h = 45;  // divisible by no tile size below
    Buffer<uint16_t> in = random_image(w, h, 1);
    for (TailStrategy tail : {TailStrategy::Auto, TailStrategy::GuardWithIf, TailStrategy::ShiftInwards}) {
        CAPTURE(int(tail));
        Blur blur(in);
        blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 16, 8, tail);
        check_equal<uint16_t>(gpu_test::realize_on_gpu<uint16_t>(blur.blur_y, {w, h}), reference_blur(in));
    }
}

TEST_CASE("a producer computed per block lives in shared memory and gives the reference's bits") {
    const int w = 67, h = 45;
    Buffer<uint16_t> in = random_image(w, h, 2);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 16, 8,
                         TailStrategy::GuardWithIf);
    blur.blur_x.compute_at(blur.blur_y, blur.xo).gpu_threads(blur.x, blur.y);
    check_equal<uint16_t>(gpu_test::realize_on_gpu<uint16_t>(blur.blur_y, {w, h}), reference_blur(in));
}

TEST_CASE("a producer computed per thread gives the reference's bits") {
    const int w = 61, h = 37;
    Buffer<uint16_t> in = random_image(w, h, 3);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 8, 4);
    blur.blur_x.compute_at(blur.blur_y, blur.xi);
    check_equal<uint16_t>(gpu_test::realize_on_gpu<uint16_t>(blur.blur_y, {w, h}), reference_blur(in));
}

TEST_CASE("one-, two- and three-dimensional gpu_tile give the default schedule's bits") {
    Func f("f"), g("g");
    Var x("x"), y("y"), z("z"), bx("bx"), by("by"), bz("bz"), tx("tx"), ty("ty"), tz("tz");
    f(x, y, z) = x * 7 + y * 13 - z * 5 + (x * y) % 11;
    g(x, y, z) = f(x, y, z) * 3 + f(x + 1, y, z) - f(x, y + 1, z + 1);
    const Buffer<int> expected = g.realize({21, 10, 7});
    g.gpu_tile(x, bx, tx, 8, TailStrategy::GuardWithIf);
    check_same_bits<int>(gpu_test::realize_on_gpu<int>(g, {21, 10, 7}), expected);
    Func g2("g2");
    g2(x, y, z) = f(x, y, z) * 3 + f(x + 1, y, z) - f(x, y + 1, z + 1);
    g2.gpu_tile(x, y, z, bx, by, bz, tx, ty, tz, 4, 3, 2, TailStrategy::GuardWithIf);
    f.compute_at(g2, bx).gpu_threads(x, y, z);
    check_same_bits<int>(gpu_test::realize_on_gpu<int>(g2, {21, 10, 7}), expected);
}

TEST_CASE("gpu_blocks, gpu_threads, gpu_lanes and gpu on split loops give the default schedule's bits") {
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    auto define = [&](Func& f) { f(x, y) = cast<float>(x) * 0.5f - cast<float>(y * y) * 0.25f; };
    Func plain("plain");
    define(plain);
    const Buffer<float> expected = plain.realize({50, 19});
    Func lanes("lanes");
    define(lanes);
    lanes.split(x, xo, xi, 32, TailStrategy::GuardWithIf).gpu_blocks(xo, y).gpu_lanes(xi);
    check_same_bits<float>(gpu_test::realize_on_gpu<float>(lanes, {50, 19}), expected);
    Func both("both");
    define(both);
    both.split(x, xo, xi, 16, TailStrategy::GuardWithIf)
        .split(y, yo, yi, 4, TailStrategy::GuardWithIf)
        .reorder(xi, yi, xo, yo)
        .gpu(xo, yo, xi, yi);
    check_same_bits<float>(gpu_test::realize_on_gpu<float>(both, {50, 19}), expected);
    Func single("single");
    define(single);
    single.gpu_single_thread();
    check_same_bits<float>(gpu_test::realize_on_gpu<float>(single, {50, 19}), expected);
}

TEST_CASE("an update scheduled on threads and a reduction by rfactor give the default schedule's bits") {
    const Buffer<float> in = random_floats(70, 33, 4);
    Var x("x"), y("y"), xo("xo"), xi("xi"), u("u");
    RDom r(0, 70, "r");
    // Row sums, the reduction inside each thread.
    Func sums("sums");
    sums(y) = 0.0f;
    sums(y) += in(r, y);
    const Buffer<float> expected = sums.realize({33});
    sums.gpu_tile(y, xo, xi, 8, TailStrategy::GuardWithIf);
    sums.update().gpu_tile(y, xo, xi, 8, TailStrategy::GuardWithIf);
    check_same_bits<float>(gpu_test::realize_on_gpu<float>(sums, {33}), expected);
    // rfactor: partial sums over slices of r, each slice a thread, reassociated as on the CPU.
    Func cpu("cpu"), gpu("gpu");
    RVar ro("ro"), ri("ri");
    for (Func* f : {&cpu, &gpu}) {
        (*f)(y) = 0.0f;
        (*f)(y) += in(r, y);
    }
    Func cpu_partial = cpu.update().split(r, ro, ri, 8).rfactor(ri, u);
    cpu_partial.compute_root();
    const Buffer<float> rfactored = cpu.realize({33});
    Func gpu_partial = gpu.update().split(r, ro, ri, 8).rfactor(ri, u);
    // The intermediate is gpu_partial(y, u): blocks over the slices of r and tiles of rows, a
    // thread per row.
    gpu_partial.compute_root().gpu_tile(y, xo, xi, 16, TailStrategy::GuardWithIf).gpu_blocks(u);
    gpu_partial.update().gpu_tile(y, xo, xi, 16, TailStrategy::GuardWithIf).gpu_blocks(u);
    gpu.gpu_tile(y, xo, xi, 16, TailStrategy::GuardWithIf);
    gpu.update().gpu_tile(y, xo, xi, 16, TailStrategy::GuardWithIf);
    check_same_bits<float>(gpu_test::realize_on_gpu<float>(gpu, {33}), rfactored);
}

TEST_CASE(
    "register tiles per thread, with shared tiles that the block's threads stage together, give the "
    "default schedule's bits") {
    const int n = 37, m = 29, depth = 23;  // divisible by no tile or step below
    Buffer<int> a(depth, m), b(n, depth);
    std::mt19937 rng(9);
    a.for_each_value([&](int& v) { v = int(rng() % 19) - 9; });
    b.for_each_value([&](int& v) { v = int(rng() % 23) - 11; });
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), xt("xt"), yt("yt"), xr("xr"), yr("yr"),
        s("s");
    RVar ko("ko"), ki("ki");
    RDom k(0, depth, "k");
    Func a_tile("a_tile"), b_tile("b_tile"), sums("sums"), c("c");
    a_tile(x, y) = a(x, clamp(y, 0, m - 1));
    b_tile(x, y) = b(clamp(x, 0, n - 1), y);
    sums(x, y) = 0;
    sums(x, y) += a_tile(k, y) * b_tile(x, k) + x - y;
    c(x, y) = sums(x, y) * 2;
    const Buffer<int> expected = c.realize({n, m});
    // Blocks of 16 x 12 outputs, 8 x 4 threads each computing a 2 x 3 tile held in registers
    // across steps of 4 values of k; per step the 32 threads together copy the 4 x 12 values of
    // a and the 16 x 4 of b that the block reads into shared memory.
    c.tile(x, y, xo, yo, xi, yi, 16, 12, TailStrategy::GuardWithIf)
        .tile(xi, yi, xt, yt, xr, yr, 2, 3)
        .gpu_blocks(xo, yo)
        .gpu_threads(xt, yt);
    sums.compute_at(c, xt).bound_extent(x, 2).bound_extent(y, 3).unroll(x).unroll(y);
    sums.update().split(k, ko, ki, 4, TailStrategy::GuardWithIf).reorder(x, y, ki, ko).unroll(x).unroll(y);
    a_tile.compute_at(sums, ko).split(y, yt, s, 3).reorder(s, x, yt).gpu_threads(x, yt);
    b_tile.compute_at(sums, ko).split(x, s, xt, 8).reorder(s, xt, y).gpu_threads(xt, y);
    check_same_bits<int>(gpu_test::realize_on_gpu<int>(c, {n, m}), expected);
}

TEST_CASE(
    "a thread's vector of 4 floats at a multiple of 4 in shared memory is one 16-byte access, and "
    "elsewhere is not") {
    // g's threads each take 4 consecutive x (vectorized) of a tile of f staged in shared memory,
    // reading f at x + offset: 16-byte aligned for offsets that are multiples of 4 only.
    for (int offset : {0, 4, 1, 2}) {
        CAPTURE(offset);
        Func f("f"), g("g");
        Var x("x"), xo("xo"), xi("xi"), xt("xt"), xv("xv");
        f(x) = cast<float>(x * 3 - 5) * 0.5f;
        g(x) = f(x + offset) * 2.0f + f(x + 8);
        const Buffer<float> expected = g.realize({45});
        g.split(x, xo, xi, 32, TailStrategy::GuardWithIf)
            .split(xi, xt, xv, 4)
            .vectorize(xv)
            .gpu_blocks(xo)
            .gpu_threads(xt);
        f.compute_at(g, xo).gpu_threads(x);
        check_same_bits<float>(gpu_test::realize_on_gpu<float>(g, {45}), expected);
        const std::string ptx = gpu_test::ptx_of(g, 80, {});
        int vector_loads = 0;
        for (size_t at = ptx.find("ld.shared.v4.f32"); at != std::string::npos;
             at = ptx.find("ld.shared.v4.f32", at + 1))
            vector_loads++;
        // f(x + 8) is always aligned; f(x + offset) only for the multiples of 4.
        CHECK(vector_loads == (offset % 4 == 0 ? 2 : 1));
    }
}

TEST_CASE(
    "a block with more than 48 KiB of shared memory takes it dynamically and gives the default "
    "schedule's bits") {
    Func f("f"), g("g");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), fo("fo"), fi("fi");
    f(x, y) = cast<double>(x * 3 - y);
    g(x, y) = f(x, y) + f(x + 100, y);  // a tile of f 116 wide by 64 rows: 59,392 bytes
    const Buffer<double> expected = g.realize({37, 70});
    g.gpu_tile(x, y, xo, yo, xi, yi, 16, 64, TailStrategy::GuardWithIf);
    f.compute_at(g, xo).split(x, fo, fi, 16).gpu_threads(fi);
    check_same_bits<double>(gpu_test::realize_on_gpu<double>(g, {37, 70}), expected);
    CHECK(gpu_test::ptx_of(g, 80, {}).find(".extern .shared .align 16 .b8 tessera_dynamic_shared_memory[]") !=
          std::string::npos);
}

TEST_CASE("cache_read into GPUShared memory stages a tile for a block and gives the reference's bits") {
    const int w = 67, h = 45;
    Buffer<uint16_t> in = random_image(w, h, 5);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 16, 8,
                         TailStrategy::GuardWithIf);
    blur.blur_x.compute_root().gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 32, 4,
                                        TailStrategy::GuardWithIf);
    Func staged = cache_read(blur.blur_x, {blur.blur_y}, MemoryType::GPUShared);
    staged.compute_at(blur.blur_y, blur.xo).gpu_threads(blur.x, blur.y);
    check_equal<uint16_t>(gpu_test::realize_on_gpu<uint16_t>(blur.blur_y, {w, h}), reference_blur(in));
}

TEST_CASE("TESSERA_GPU_EMULATION runs a GPU schedule on the CPU without the target feature") {
    const int w = 40, h = 23;
    Buffer<uint16_t> in = random_image(w, h, 6);
    setenv("TESSERA_GPU_EMULATION", "1", 1);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 8, 8);
    const Buffer<uint16_t> out = blur.blur_y.realize({w, h});
    unsetenv("TESSERA_GPU_EMULATION");
    check_equal<uint16_t>(out, reference_blur(in));
}
