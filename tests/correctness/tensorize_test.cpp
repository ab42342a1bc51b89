// Tensorized schedules against the untensorized ones and plain C++, bit for bit, on random inputs
// whose sizes do not divide the tiles: the built-in kernels (f32 FMA, u8 x s8 and bf16 dot
// products) and an intrinsic implemented by a C function of this program.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tessera/tessera.h"
#include "tests/scratch_files.h"

using namespace tessera;

namespace {

template <typename T>
Buffer<T> random_matrix(int columns, int rows, std::mt19937& rng, double lo, double hi) {
    Buffer<T> b(columns, rows);
    std::uniform_real_distribution<double> d(lo, hi);
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < columns; x++) b(x, y) = T(d(rng));
    return b;
}

// bfloat16 bits of random normal floats of either sign.
Buffer<uint16_t> random_bfloat16(int columns, int rows, std::mt19937& rng) {
    Buffer<float> f = random_matrix<float>(columns, rows, rng, 0.25, 4.0);
    Buffer<uint16_t> b(columns, rows);
    std::bernoulli_distribution negative(0.5);
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < columns; x++) {
            uint32_t bits;
            std::memcpy(&bits, &f(x, y), 4);
            b(x, y) = uint16_t((bits >> 16) | (negative(rng) ? 0x8000 : 0));
        }
    return b;
}

float bfloat16_value(uint16_t bits) {
    uint32_t wide = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &wide, 4);
    return f;
}

// The lowered statement of f, in which a kernel shows by its name.
std::string lowered(Func f, const std::vector<Argument>& args) {
    const auto path = scratch_files::fresh_dir("tensorize") / "lowered.stmt";
    f.compile_to_lowered_stmt(path.string(), args);
    return scratch_files::read_file(path);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

template <typename T>
int count_differences(const Buffer<T>& a, const Buffer<T>& b) {
    int differences = 0;
    for (int y = 0; y < a.height(); y++)
        for (int x = 0; x < a.width(); x++) differences += a(x, y) != b(x, y);
    return differences;
}

// The product of a (depth x height) and b (width x depth) in plain C++: each element the chain of
// fma over k in order.
Buffer<float> plain_product(const Buffer<float>& a, const Buffer<float>& b) {
    Buffer<float> c(b.width(), a.height());
    for (int y = 0; y < a.height(); y++)
        for (int x = 0; x < b.width(); x++) {
            float sum = 0.0f;
            for (int k = 0; k < a.width(); k++) sum = std::fma(a(k, y), b(x, k), sum);
            c(x, y) = sum;
        }
    return c;
}

// C(x, y) = sum over k of A(k, y) * B(x, k), each step one fma, k in order.
struct FloatMatmul {
    ImageParam a{Float(32), 2, "a"}, b{Float(32), 2, "b"};
    Func c{"c"};
    Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"};
    RDom k{0, a.dim(0).extent(), "k"};
    FloatMatmul() {
        c(x, y) = 0.0f;
        c(x, y) = fma(a(k, y), b(x, k), c(x, y));
    }
};

// Runs m on random inputs of the given size: the number of elements that differ from plain C++.
int differences_from_plain(FloatMatmul& m, int width, int height, int depth, std::mt19937& rng) {
    Buffer<float> a = random_matrix<float>(depth, height, rng, -1, 1);
    Buffer<float> b = random_matrix<float>(width, depth, rng, -1, 1);
    m.a.set(a);
    m.b.set(b);
    Buffer<float> out = m.c.realize({width, height});
    return count_differences(out, plain_product(a, b));
}

}  // namespace

TEST_CASE(
    "an f32 matrix product tensorized with the FMA kernel gives the bits of its untensorized schedule") {
    std::mt19937 rng(11);
    const int width = 45, height = 26, depth = 19;  // tiles of 16 x 6 and 32 x 4 do not divide them
    Buffer<float> a = random_matrix<float>(depth, height, rng, -1, 1);
    Buffer<float> b = random_matrix<float>(width, depth, rng, -1, 1);
    Buffer<float> expected = plain_product(a, b);
    FloatMatmul plain;
    plain.a.set(a);
    plain.b.set(b);
    Buffer<float> untensorized = plain.c.realize({width, height});
    CHECK(count_differences(untensorized, expected) == 0);

    for (auto [columns, rows] : {std::pair{16, 6}, std::pair{32, 4}, std::pair{8, 3}}) {
        CAPTURE(columns);
        CAPTURE(rows);
        FloatMatmul m;
        m.a.set(a);
        m.b.set(b);
        Stage update = m.c.update();
        update.tile(m.x, m.y, m.xi, m.yi, columns, rows).reorder(m.xi, m.yi, m.k, m.x, m.y);
        // The tiles the edges cut short run the loops, vectorized and unrolled as scheduled.
        if (rows == 4) update.vectorize(m.xi).unroll(m.yi);
        update.tensorize(m.k, intrinsics::fma_f32(columns, rows));
        Buffer<float> tensorized = m.c.realize({width, height});
        CHECK(count_differences(tensorized, expected) == 0);
        CHECK(contains(lowered(m.c, {m.a, m.b}), "fma_f32_" + std::to_string(columns) + "x" +
                                                     std::to_string(rows) + ".0.acc[float32 * " +
                                                     std::to_string(columns * rows) + "] in Register"));
    }
}

TEST_CASE("a tensorize in a specialization leaves the general definition's loop of that name alone") {
    std::mt19937 rng(12);
    FloatMatmul m;
    // Tiles of 16 x 6 where the width is a multiple of 16; elsewhere the default loops, whose k loop
    // has the tensorized loop's name but holds one point.
    Stage update = m.c.update();
    Stage tiled = update.specialize(m.c.output_buffer().dim(0).extent() % 16 == 0);
    tiled.tile(m.x, m.y, m.xi, m.yi, 16, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .tensorize(m.k, intrinsics::fma_f32(16, 6));
    for (int width : {48, 45}) {
        CAPTURE(width);
        CHECK(differences_from_plain(m, width, 13, 7, rng) == 0);
    }
    // The kernel is in the specialized branch only: one call, for the whole tiles.
    const std::string text = lowered(m.c, {m.a, m.b});
    CHECK(contains(text, "fma_f32_16x6.0.acc"));
    CHECK(!contains(text, "fma_f32_16x6.1.acc"));
}

TEST_CASE("a specialization renames its reduction loop to tensorize it with another intrinsic") {
    std::mt19937 rng(13);
    FloatMatmul m;
    RVar k32("k32");
    Stage update = m.c.update();
    update.specialize(m.c.output_buffer().dim(0).extent() % 32 == 0)
        .tile(m.x, m.y, m.xi, m.yi, 32, 6)
        .rename(m.k, k32)
        .reorder(m.xi, m.yi, k32, m.x, m.y)
        .tensorize(k32, intrinsics::fma_f32(32, 6));
    update.tile(m.x, m.y, m.xi, m.yi, 16, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .tensorize(m.k, intrinsics::fma_f32(16, 6));
    for (int width : {64, 40}) {
        CAPTURE(width);
        CHECK(differences_from_plain(m, width, 13, 9, rng) == 0);
    }
    const std::string text = lowered(m.c, {m.a, m.b});
    CHECK(contains(text, "fma_f32_32x6.0.acc"));
    CHECK(contains(text, "fma_f32_16x6.1.acc"));
}

TEST_CASE("the operands of the product in fma may come in either order") {
    std::mt19937 rng(16);
    const int width = 33, height = 20, depth = 9;  // whole tiles of 16 x 6 and 6 x 16, and ragged ones
    Buffer<float> a = random_matrix<float>(depth, height, rng, -1, 1);
    Buffer<float> b = random_matrix<float>(width, depth, rng, -1, 1);
    FloatMatmul plain;
    plain.a.set(a);
    plain.b.set(b);
    ImageParam ap(Float(32), 2, "ap"), bp(Float(32), 2, "bp");
    ap.set(a);
    bp.set(b);
    Func c("c");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    RDom k(0, depth, "k");
    c(x, y) = 0.0f;
    c(x, y) = fma(bp(x, k), ap(k, y), c(x, y));  // b first, where the declaration has a
    c.update().tile(x, y, xi, yi, 16, 6).reorder(xi, yi, k, x, y).tensorize(k, intrinsics::fma_f32(16, 6));
    Buffer<float> expected = plain.c.realize({width, height}), swapped = c.realize({width, height});
    CHECK(count_differences(swapped, expected) == 0);
    CHECK(contains(lowered(c, {ap, bp}), "fma_f32_16x6.0.acc"));

    // Transposed tiles match too, the operands' roles swapped: the kernel's vectors then run down
    // columns of c, slowly but with the same bits.
    Func t("t");
    t(x, y) = 0.0f;
    t(x, y) = fma(ap(k, y), bp(x, k), t(x, y));
    t.update().tile(x, y, xi, yi, 6, 16).reorder(yi, xi, k, x, y).tensorize(k, intrinsics::fma_f32(16, 6));
    Buffer<float> transposed = t.realize({width, height});
    CHECK(count_differences(transposed, expected) == 0);
    CHECK(contains(lowered(t, {ap, bp}), "fma_f32_16x6.0.acc"));
}

TEST_CASE("a tensorized kernel reads a packed copy made by cache_read, and runs inside parallel tiles") {
    std::mt19937 rng(12);
    const int width = 70, height = 31, depth = 23;
    Buffer<float> a = random_matrix<float>(depth, height, rng, -1, 1);
    Buffer<float> b = random_matrix<float>(width, depth, rng, -1, 1);
    FloatMatmul plain, m;
    for (FloatMatmul* p : {&plain, &m}) {
        p->a.set(a);
        p->b.set(b);
    }
    Var xo("xo"), yo("yo");
    Func packed = cache_read(m.b, {m.c});
    m.c.update()
        .tile(m.x, m.y, xo, yo, m.xi, m.yi, 16, 4)
        .reorder(m.xi, m.yi, m.k, xo, yo)
        .parallel(yo)
        .tensorize(m.k, intrinsics::fma_f32(16, 4));
    packed.compute_at(m.c, yo).vectorize(packed.args()[0], 8);
    Buffer<float> expected = plain.c.realize({width, height});
    Buffer<float> tensorized = m.c.realize({width, height});
    CHECK(count_differences(tensorized, expected) == 0);
    CHECK(contains(lowered(m.c, {m.a, m.b}), "fma_f32_16x4.0.acc"));
}

TEST_CASE("a u8 x s8 matrix product tensorized with the VNNI dot product equals plain C++") {
    std::mt19937 rng(13);
    const int width = 37, height = 23, depth = 4 * 13;
    Buffer<uint8_t> a = random_matrix<uint8_t>(depth, height, rng, 0, 255.99);
    Buffer<int8_t> b = random_matrix<int8_t>(width, depth, rng, -128, 127.99);
    Buffer<int32_t> expected(width, height);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            int32_t sum = 0;
            for (int k = 0; k < depth; k++) sum += int32_t(a(k, y)) * int32_t(b(x, k));
            expected(x, y) = sum;
        }
    for (bool tensorize : {false, true}) {
        CAPTURE(tensorize);
        ImageParam ap(UInt(8), 2, "a"), bp(Int(8), 2, "b");
        ap.set(a);
        bp.set(b);
        Func packed("packed"), c("c");
        Var q("q"), x("x"), y("y"), ko("ko"), xi("xi"), yi("yi");
        // Four consecutive k of one column side by side, as vpdpbusd reads them.
        packed(q, x, ko) = bp(x, 4 * ko + q);
        RDom r(0, 4, 0, ap.dim(0).extent() / 4, "r");
        c(x, y) = 0;
        c(x, y) += cast<int32_t>(ap(4 * r.y + r.x, y)) * cast<int32_t>(packed(r.x, x, r.y));
        packed.compute_root();
        Stage update = c.update();
        update.tile(x, y, xi, yi, 16, 4).reorder(r.x, xi, yi, r.y, x, y);
        if (tensorize) update.tensorize(r.y, intrinsics::dot_u8s8(16, 4));
        Buffer<int32_t> out = c.realize({width, height});
        CHECK(count_differences(out, expected) == 0);
        CHECK(contains(lowered(c, {ap, bp}), "dot4_u8s8(") == tensorize);
    }
}

TEST_CASE("a bf16 matrix product tensorized with the BF16 dot product equals plain C++ in its order") {
    std::mt19937 rng(14);
    const int width = 41, height = 13, depth = 2 * 9;
    Buffer<uint16_t> a = random_bfloat16(depth, height, rng), b = random_bfloat16(width, depth, rng);
    Buffer<float> expected(width, height);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float sum = 0.0f;
            for (int ko = 0; ko < depth / 2; ko++) {
                // vdpbf16ps's order: the odd product, then the even one (each product is exact).
                volatile float odd = bfloat16_value(a(2 * ko + 1, y)) * bfloat16_value(b(x, 2 * ko + 1));
                sum = sum + odd;
                volatile float even = bfloat16_value(a(2 * ko, y)) * bfloat16_value(b(x, 2 * ko));
                sum = sum + even;
            }
            expected(x, y) = sum;
        }
    for (bool tensorize : {false, true}) {
        CAPTURE(tensorize);
        ImageParam ap(UInt(16), 2, "a"), bp(UInt(16), 2, "b");
        ap.set(a);
        bp.set(b);
        Func packed("packed"), c("c");
        Var p("p"), x("x"), y("y"), xi("xi"), yi("yi");
        packed(p, x, y) = bp(x, 2 * y + p);
        RDom r(0, 2, 0, ap.dim(0).extent() / 2, "r");
        c(x, y) = 0.0f;
        c(x, y) = c(x, y) + intrinsics::bfloat16_to_float(ap(2 * r.y + 1 - r.x, y)) *
                                intrinsics::bfloat16_to_float(packed(1 - r.x, x, r.y));
        packed.compute_root();
        Stage update = c.update();
        update.tile(x, y, xi, yi, 16, 2).reorder(r.x, xi, yi, r.y, x, y);
        if (tensorize) update.tensorize(r.y, intrinsics::dot_bf16(16, 2));
        Buffer<float> out = c.realize({width, height});
        CHECK(count_differences(out, expected) == 0);
        CHECK(contains(lowered(c, {ap, bp}), "dot2_bf16(") == tensorize);
    }
}

namespace {

int scale_add_calls = 0;

// out(i, j) = 2 * a(i, j) + b(j) over the view's extents: an intrinsic implemented in C.
extern "C" int tessera_test_scale_add(tessera_buffer_t* a, tessera_buffer_t* b, tessera_buffer_t* out) {
    scale_add_calls++;
    if (a->dimensions != 2 || b->dimensions != 1 || out->dimensions != 2) return -100;
    for (int j = 0; j < out->dim[1].extent; j++)
        for (int i = 0; i < out->dim[0].extent; i++) {
            const float* ai =
                reinterpret_cast<const float*>(a->host) + i * a->dim[0].stride + j * a->dim[1].stride;
            const float* bj = reinterpret_cast<const float*>(b->host) + j * b->dim[0].stride;
            float* o = reinterpret_cast<float*>(out->host) + i * out->dim[0].stride + j * out->dim[1].stride;
            *o = 2.0f * *ai + *bj;
        }
    return 0;
}

extern "C" int tessera_test_failing(tessera_buffer_t*, tessera_buffer_t*, tessera_buffer_t*) { return -42; }

TensorIntrinsic scale_add_intrinsic(const char* name, const void* function) {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 1, "b");
    Func out("out");
    Var i("i"), j("j");
    out(i, j) = 2.0f * a(i, j) + b(j);
    out.bound(i, 0, 4).bound(j, 0, 3);
    return TensorIntrinsic::extern_function(name, out, {a, b}, function);
}

}  // namespace

TEST_CASE("an intrinsic implemented by a C function gets views of its operands, whole tiles only") {
    std::mt19937 rng(15);
    const int width = 18, height = 11;  // 4 x 3 tiles: 4 x 3 whole, the rest cut short
    Buffer<float> a = random_matrix<float>(width, height, rng, -1, 1);
    Buffer<float> b = random_matrix<float>(height, 1, rng, -1, 1);
    Buffer<float> b1(height);
    for (int y = 0; y < height; y++) b1(y) = b(y, 0);
    ImageParam ap(Float(32), 2, "ap"), bp(Float(32), 1, "bp");
    ap.set(a);
    bp.set(b1);
    Func f("f");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    f(x, y) = 2.0f * ap(x, y) + bp(y);
    f.tile(x, y, xi, yi, 4, 3, TailStrategy::GuardWithIf)
        .tensorize(yi, scale_add_intrinsic("tessera_test_scale_add",
                                           reinterpret_cast<const void*>(&tessera_test_scale_add)));
    scale_add_calls = 0;
    Buffer<float> out = f.realize({width, height});
    CHECK(scale_add_calls == (width / 4) * (height / 3));
    int differences = 0;
    for (int yy = 0; yy < height; yy++)
        for (int xx = 0; xx < width; xx++) differences += out(xx, yy) != 2.0f * a(xx, yy) + b1(yy);
    CHECK(differences == 0);

    Func g("g");
    g(x, y) = 2.0f * ap(x, y) + bp(y);
    g.tile(x, y, xi, yi, 4, 3)
        .tensorize(yi, scale_add_intrinsic("tessera_test_failing",
                                           reinterpret_cast<const void*>(&tessera_test_failing)));
    try {
        g.realize({width, height});
        FAIL("the failing intrinsic's error was not reported");
    } catch (const RuntimeError& e) {
        CHECK(std::string(e.what()).find("tessera_test_failing") != std::string::npos);
        CHECK(std::string(e.what()).find("-42") != std::string::npos);
    }
}

namespace {

std::vector<int> row_sum_extents;

// out(i) += a(k, i) for k in [0, extent): sums of rows, in order, by a C function.
extern "C" int tessera_test_row_sums(tessera_buffer_t* a, tessera_buffer_t* out, int32_t extent) {
    row_sum_extents.push_back(extent);
    for (int i = 0; i < out->dim[0].extent; i++) {
        float* o = reinterpret_cast<float*>(out->host) + i * out->dim[0].stride;
        for (int k = 0; k < extent; k++)
            *o += reinterpret_cast<const float*>(a->host)[k * a->dim[0].stride + i * a->dim[1].stride];
    }
    return 0;
}

TensorIntrinsic row_sums_intrinsic() {
    ImageParam a(Float(32), 2, "a");
    Param<int> depth("depth");
    RDom k(0, depth, "k");
    Func out("out");
    Var i("i");
    out(i) = 0.0f;
    out(i) += a(k, i);
    out.bound(i, 0, 2);
    out.update().reorder(i, k);
    return TensorIntrinsic::extern_function("tessera_test_row_sums", out, {a},
                                            reinterpret_cast<const void*>(&tessera_test_row_sums), {depth});
}

}  // namespace

TEST_CASE("the last, shorter block of a split reduction runs in the kernel, for what remains of it") {
    std::mt19937 rng(17);
    const int rows = 10, depth = 19;  // blocks of 8, 8 and 3
    Buffer<float> m = random_matrix<float>(depth, rows, rng, -1, 1);
    ImageParam in(Float(32), 2, "in");
    in.set(m);
    Func sums("sums");
    Var x("x"), xo("xo"), xi("xi");
    RDom r(0, in.dim(0).extent(), "r");
    RVar ro("ro"), ri("ri");
    sums(x) = 0.0f;
    sums(x) += in(r, x);
    sums.update()
        .split(x, xo, xi, 2)
        .split(r, ro, ri, 8)
        .reorder(xi, ri, ro, xo)
        .tensorize(ri, row_sums_intrinsic());
    row_sum_extents.clear();
    Buffer<float> out = sums.realize({rows});
    std::vector<int> expected_extents;
    for (int tile = 0; tile < rows / 2; tile++) expected_extents.insert(expected_extents.end(), {8, 8, 3});
    CHECK(row_sum_extents == expected_extents);
    for (int y = 0; y < rows; y++) {
        float sum = 0.0f;
        for (int k = 0; k < depth; k++) sum += m(k, y);
        CHECK(out(y) == sum);
    }
}

TEST_CASE("a packed copy indexed by x % 16 and x / 16 matches in its tiles, with the output's min set to 0") {
    std::mt19937 rng(18);
    const int width = 45, height = 26, depth = 19;
    Buffer<float> a = random_matrix<float>(depth, height, rng, -1, 1);
    Buffer<float> b = random_matrix<float>(width, depth, rng, -1, 1);
    FloatMatmul plain;
    plain.a.set(a);
    plain.b.set(b);
    Buffer<float> expected = plain.c.realize({width, height});

    // B in panels of 16 columns, each panel's rows adjacent: packed(xi, k, xo) = B(xo * 16 + xi, k),
    // clamped at the last column so that the last panel reads inside B.
    ImageParam ap(Float(32), 2, "ap"), bp(Float(32), 2, "bp");
    ap.set(a);
    bp.set(b);
    Func packed("packed"), c("c");
    Var x("x"), y("y"), pi("pi"), pk("pk"), po("po"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    RDom k(0, ap.dim(0).extent(), "k");
    RVar ko("ko"), ki("ki");
    packed(pi, pk, po) = bp(min(po * 16 + pi, bp.dim(0).extent() - 1), pk);
    c(x, y) = 0.0f;
    c(x, y) = fma(ap(k, y), packed(x % 16, k, x / 16), c(x, y));
    c.output_buffer().dim(0).set_min(0);
    c.update()
        .split(k, ko, ki, 8)
        .tile(x, y, xo, yo, xi, yi, 16, 6, TailStrategy::GuardWithIf)
        .reorder(xi, yi, ki, yo, xo, ko)
        .tensorize(ki, intrinsics::fma_f32(16, 6));
    packed.compute_at(c, ko).vectorize(pi);
    Buffer<float> tensorized = c.realize({width, height});
    CHECK(count_differences(tensorized, expected) == 0);
    CHECK(contains(lowered(c, {ap, bp}), "fma_f32_16x6.0.acc"));
}

TEST_CASE("for an AVX-512 machine the kernels are vfmadd on zmm registers, vpdpbusd and vdpbf16ps") {
    // This machine may lack these instructions, so the code is compiled, not run; the tests above run
    // the same kernels through this machine's vector instructions.
    const Target avx512 = Target(
        "x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake-avx512_cannonlake-avx512_sapphirerapids");
    const Target avx2 = Target("x86-64-linux-sse41-avx-avx2-fma-f16c");
    Var x("x"), y("y"), xi("xi"), yi("yi"), q("q");
    auto assembly = [&](Func f, const std::vector<Argument>& args, const Target& t) {
        const auto path = scratch_files::fresh_dir("tensorize_assembly_" + f.name()) / "kernel.s";
        f.compile_to_assembly(path.string(), args, "kernel", t);
        return scratch_files::read_file(path);
    };

    FloatMatmul m;
    m.c.update()
        .tile(m.x, m.y, m.xi, m.yi, 32, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .tensorize(m.k, intrinsics::fma_f32(32, 6));
    CHECK(contains(assembly(m.c, {m.a, m.b}, avx512), "vfmadd231ps\t%zmm"));

    ImageParam a8(UInt(8), 2, "a"), b8(Int(8), 3, "b");
    Func c8("c8");
    RDom r4(0, 4, 0, a8.dim(0).extent() / 4, "r");
    c8(x, y) = 0;
    c8(x, y) += cast<int32_t>(a8(4 * r4.y + r4.x, y)) * cast<int32_t>(b8(r4.x, x, r4.y));
    c8.update()
        .tile(x, y, xi, yi, 16, 4)
        .reorder(r4.x, xi, yi, r4.y, x, y)
        .tensorize(r4.y, intrinsics::dot_u8s8(16, 4));
    CHECK(contains(assembly(c8, {a8, b8}, avx512), "vpdpbusd"));
    CHECK(!contains(assembly(c8, {a8, b8}, avx2), "vpdpbusd"));

    ImageParam a16(UInt(16), 2, "a"), b16(UInt(16), 3, "b");
    Func c16("c16");
    RDom r2(0, 2, 0, a16.dim(0).extent() / 2, "r");
    c16(x, y) = 0.0f;
    c16(x, y) = c16(x, y) + intrinsics::bfloat16_to_float(a16(2 * r2.y + 1 - r2.x, y)) *
                                intrinsics::bfloat16_to_float(b16(1 - r2.x, x, r2.y));
    c16.update()
        .tile(x, y, xi, yi, 16, 2)
        .reorder(r2.x, xi, yi, r2.y, x, y)
        .tensorize(r2.y, intrinsics::dot_bf16(16, 2));
    CHECK(contains(assembly(c16, {a16, b16}, avx512), "vdpbf16ps"));
    CHECK(!contains(assembly(c16, {a16, b16}, avx2), "vdpbf16ps"));
}
