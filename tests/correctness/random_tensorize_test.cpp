// Random tensorized and cached schedules of matrix products: each case draws sizes that the tiles
// do not divide, a kernel (f32 FMA, u8 x s8 or bf16 dot products) and its tile, and whether to
// accumulate through cache_write, pack an operand through cache_read, run tiles in parallel and
// vectorize the initialization; the result must equal the default schedule's and plain C++'s bit
// for bit. A failure prints the case's seed and its schedule.
//
//   TESSERA_RANDOM_SCHEDULES=200 [TESSERA_RANDOM_SCHEDULE_SEED=1] ./correctness_random_tensorize_test
// runs a longer sweep.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

#include "tessera/tessera.h"
#include "tests/scratch_files.h"

using namespace tessera;

namespace {

enum class Kernel { F32, U8S8, BF16 };

const char* kernel_name(Kernel k) { return k == Kernel::F32 ? "f32" : k == Kernel::U8S8 ? "u8s8" : "bf16"; }

int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
bool chance(std::mt19937& rng, double p) { return std::bernoulli_distribution(p)(rng); }

float bfloat16_value(uint16_t bits) {
    uint32_t wide = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &wide, 4);
    return f;
}

// One random case: the inputs, the product computed by plain C++, and the definition.
struct Case {
    Kernel kernel;
    int width, height, depth;
    Buffer<> a, b;
    Buffer<> expected;
    int group;  // reduction values one instruction takes: 1, 4 or 2

    Case(std::mt19937& rng, Kernel k) : kernel(k) {
        group = k == Kernel::F32 ? 1 : k == Kernel::U8S8 ? 4 : 2;
        width = pick(rng, 1, 70);
        height = pick(rng, 1, 30);
        depth = group * pick(rng, 1, 12);
        fill(rng);
    }

    void fill(std::mt19937& rng) {
        std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
        if (kernel == Kernel::F32) {
            Buffer<float> fa(depth, height), fb(width, depth), out(width, height);
            fa.for_each_value([&](float& v) { v = unit(rng); });
            fb.for_each_value([&](float& v) { v = unit(rng); });
            for (int y = 0; y < height; y++)
                for (int x = 0; x < width; x++) {
                    float sum = 0.0f;
                    for (int k = 0; k < depth; k++) sum = std::fma(fa(k, y), fb(x, k), sum);
                    out(x, y) = sum;
                }
            a = fa, b = fb, expected = out;
        } else if (kernel == Kernel::U8S8) {
            Buffer<uint8_t> ua(depth, height);
            Buffer<int8_t> sb(width, depth);
            Buffer<int32_t> out(width, height);
            ua.for_each_value([&](uint8_t& v) { v = uint8_t(pick(rng, 0, 255)); });
            sb.for_each_value([&](int8_t& v) { v = int8_t(pick(rng, -128, 127)); });
            for (int y = 0; y < height; y++)
                for (int x = 0; x < width; x++) {
                    int32_t sum = 0;
                    for (int k = 0; k < depth; k++) sum += int32_t(ua(k, y)) * int32_t(sb(x, k));
                    out(x, y) = sum;
                }
            a = ua, b = sb, expected = out;
        } else {
            Buffer<uint16_t> ha(depth, height), hb(width, depth);
            Buffer<float> out(width, height);
            auto random_bf16 = [&](uint16_t& v) {
                const float f = std::ldexp(1.0f + unit(rng) * 0.5f, pick(rng, -3, 3));
                uint32_t bits;
                std::memcpy(&bits, &f, 4);
                v = uint16_t((bits >> 16) | (chance(rng, 0.5) ? 0x8000 : 0));
            };
            ha.for_each_value(random_bf16);
            hb.for_each_value(random_bf16);
            for (int y = 0; y < height; y++)
                for (int x = 0; x < width; x++) {
                    float sum = 0.0f;
                    for (int ko = 0; ko < depth / 2; ko++) {
                        volatile float odd =
                            bfloat16_value(ha(2 * ko + 1, y)) * bfloat16_value(hb(x, 2 * ko + 1));
                        sum = sum + odd;
                        volatile float even = bfloat16_value(ha(2 * ko, y)) * bfloat16_value(hb(x, 2 * ko));
                        sum = sum + even;
                    }
                    out(x, y) = sum;
                }
            a = ha, b = hb, expected = out;
        }
    }
};

// The product as a Tessera definition, with the packed copy of b the dot products read.
struct Product {
    ImageParam a, b;
    Func packed{"packed"}, c{"c"};
    Var x{"x"}, y{"y"}, q{"q"};
    RDom r;
    RVar outer_reduction;  // the loop the kernel is tensorized at

    explicit Product(const Case& t)
        : a(t.a.type(), 2, "a"),
          b(t.b.type(), 2, "b"),
          r(t.kernel == Kernel::F32 ? RDom(0, t.depth, "k") : RDom(0, t.group, 0, t.depth / t.group, "r")) {
        a.set(t.a);
        b.set(t.b);
        if (t.kernel == Kernel::F32) {
            c(x, y) = 0.0f;
            c(x, y) = fma(a(r.x, y), b(x, r.x), c(x, y));
            outer_reduction = r.x;
            return;
        }
        packed(q, x, y) = b(x, t.group * y + q);
        outer_reduction = r.y;
        if (t.kernel == Kernel::U8S8) {
            c(x, y) = 0;
            c(x, y) += cast<int32_t>(a(4 * r.y + r.x, y)) * cast<int32_t>(packed(r.x, x, r.y));
        } else {
            c(x, y) = 0.0f;
            c(x, y) = c(x, y) + intrinsics::bfloat16_to_float(a(2 * r.y + 1 - r.x, y)) *
                                    intrinsics::bfloat16_to_float(packed(1 - r.x, x, r.y));
        }
        packed.compute_root();
    }
};

// Schedules the product at random, writing the C++ of each call to `code`.
struct Scheduled {
    TensorIntrinsic intrinsic;
    bool whole_tiles = false;  // whether the loops the kernel replaces can be whole
};

Scheduled schedule_at_random(Product& p, const Case& t, std::mt19937& rng, std::ostringstream& code) {
    const int columns = 8 * pick(rng, 1, 4), rows = pick(rng, 1, t.kernel == Kernel::F32 ? 6 : 4);
    TensorIntrinsic intrinsic = t.kernel == Kernel::F32    ? intrinsics::fma_f32(columns, rows)
                                : t.kernel == Kernel::U8S8 ? intrinsics::dot_u8s8(columns, rows)
                                                           : intrinsics::dot_bf16(columns, rows);
    Func worker = p.c;
    bool whole_tiles = t.width >= columns && t.height >= rows;
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), xt("xt"), yt("yt");
    if (chance(rng, 0.5)) {
        const MemoryType memory = chance(rng, 0.5) ? MemoryType::Auto : MemoryType::Heap;
        // Tiles shifted inwards, no larger than the output, keep every read inside the inputs.
        const int tile_x = std::min(columns * pick(rng, 1, 3), t.width);
        const int tile_y = std::min(rows * pick(rng, 1, 3), t.height);
        worker = cache_write(p.c, memory);
        whole_tiles = tile_x >= columns && tile_y >= rows;
        p.c.tile(p.x, p.y, xo, yo, xt, yt, tile_x, tile_y, TailStrategy::ShiftInwards);
        worker.compute_at(p.c, xo);
        code << "Func local = cache_write(c, " << (memory == MemoryType::Auto ? "Auto" : "Heap") << ");\n"
             << "c.tile(x, y, xo, yo, xt, yt, " << tile_x << ", " << tile_y
             << ", ShiftInwards);\nlocal.compute_at(c, xo);\n";
        if (chance(rng, 0.5)) {
            p.c.parallel(yo);
            code << "c.parallel(yo);\n";
        }
    }
    if (chance(rng, 0.4)) {
        worker.vectorize(p.x, 8, TailStrategy::GuardWithIf);
        code << "worker.vectorize(x, 8, GuardWithIf);\n";
    }
    if (t.kernel == Kernel::F32 && chance(rng, 0.5)) {
        Func copy = cache_read(p.b, {worker});
        copy.compute_root();
        code << "cache_read(b, {worker}).compute_root();\n";
    }
    Stage update = worker.update();
    // Guarded, so that no tile reads past the inputs (rounding up would, on a cache_write stage).
    update.split(p.x, p.x, xi, columns, TailStrategy::GuardWithIf)
        .split(p.y, p.y, yi, rows, TailStrategy::GuardWithIf);
    if (t.kernel == Kernel::F32)
        update.reorder(xi, yi, p.outer_reduction, p.x, p.y);
    else
        update.reorder(p.r.x, xi, yi, p.outer_reduction, p.x, p.y);
    // The loops the kernel replaces may be vectorized and unrolled for the tiles left to them.
    const bool vector_tails = chance(rng, 0.4);
    if (vector_tails) {
        update.vectorize(xi).unroll(yi);
        code << "worker.update().vectorize(xi).unroll(yi);\n";
    }
    update.tensorize(p.outer_reduction, intrinsic);
    code << "worker.update().split(x, x, xi, " << columns << ").split(y, y, yi, " << rows
         << ").reorder(...).tensorize(" << p.outer_reduction.name() << ", " << intrinsic.name() << ");\n";
    if (worker.name() == p.c.name() && chance(rng, 0.4)) {
        update.parallel(p.y);
        code << "worker.update().parallel(y);\n";
    }
    return {intrinsic, whole_tiles};
}

// Whether the lowered statement holds the kernel: the loops matched.
bool kernel_used(Product& p, const TensorIntrinsic& intrinsic) {
    const auto path = scratch_files::fresh_dir("random_tensorize") / "lowered.stmt";
    p.c.compile_to_lowered_stmt(path.string(), {p.a, p.b});
    return scratch_files::read_file(path).find(intrinsic.name() + ".0.acc") != std::string::npos;
}

template <typename T>
int differences(const Buffer<>& x, const Buffer<>& y) {
    Buffer<T> a(x), b(y);
    int n = 0;
    for (int j = 0; j < a.height(); j++)
        for (int i = 0; i < a.width(); i++) n += a(i, j) != b(i, j);
    return n;
}

int count_differences(Kernel k, const Buffer<>& x, const Buffer<>& y) {
    return k == Kernel::U8S8 ? differences<int32_t>(x, y) : differences<float>(x, y);
}

void run_cases(Kernel kernel, uint32_t default_seed, int default_count) {
    const char* n = std::getenv("TESSERA_RANDOM_SCHEDULES");
    const char* s = std::getenv("TESSERA_RANDOM_SCHEDULE_SEED");
    const uint32_t first = s ? uint32_t(std::strtoul(s, nullptr, 10)) : default_seed;
    const int count = n ? std::atoi(n) : default_count;
    for (uint32_t seed = first; seed < first + uint32_t(count); seed++) {
        std::mt19937 rng(seed);
        Case t(rng, kernel);
        Product plain(t), scheduled(t);
        std::ostringstream code;
        const Scheduled s = schedule_at_random(scheduled, t, rng, code);
        INFO("kernel " << std::string(kernel_name(kernel)) << ", seed " << seed << ", " << t.width << " x "
                       << t.height << " x " << t.depth << ", schedule:\n"
                       << code.str());
        Buffer<> default_result = plain.c.realize({t.width, t.height});
        Buffer<> result;
        CHECK_NOTHROW(result = scheduled.c.realize({t.width, t.height}));
        CHECK(count_differences(kernel, default_result, t.expected) == 0);
        if (result.defined()) CHECK(count_differences(kernel, result, t.expected) == 0);
        // Unless no tile can be whole, or the reduction is a single step, whose loop simplification
        // removes.
        if (s.whole_tiles && t.depth > t.group) CHECK(kernel_used(scheduled, s.intrinsic));
    }
}

}  // namespace

TEST_CASE("random tensorized and cached schedules of an f32 product") { run_cases(Kernel::F32, 100, 6); }
TEST_CASE("random tensorized and cached schedules of a u8 x s8 product") { run_cases(Kernel::U8S8, 200, 5); }
TEST_CASE("random tensorized and cached schedules of a bf16 product") { run_cases(Kernel::BF16, 300, 5); }
