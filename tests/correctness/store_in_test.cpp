// store_in: a Func's storage in the heap, on the stack or in registers gives the bits of the
// default placement, and the compiler places constant-size storage on the stack by itself.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <cmath>
#include <regex>

#include "tests/correctness/blur_reference.h"
#include "tests/scratch_files.h"

using namespace tessera;
using namespace blur_reference;

namespace {

// The lowered statement of f, as compile_to_lowered_stmt writes it.
std::string lowered_text(Func& f) {
    const std::filesystem::path path = scratch_files::fresh_dir("store_in_" + f.name()) / "lowered.stmt";
    f.compile_to_lowered_stmt(path.string(), {});
    return scratch_files::read_file(path);
}

// The indices of every load and store of `tile` in the lowered statement of `out`.
std::vector<std::string> tile_indices(Func& out, const Func& tile) {
    const std::string text = lowered_text(out);
    std::string name;  // the tile's name, its $ escaped
    for (char ch : tile.name())
        name += std::isalnum(static_cast<unsigned char>(ch)) ? std::string(1, ch) : std::string("\\") + ch;
    const std::regex access(name + R"(\[([^\]]*)\])");
    std::vector<std::string> indices;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), access); it != std::sregex_iterator();
         ++it) {
        const std::string index = (*it)[1];
        if (index.find("float32") == std::string::npos) indices.push_back(index);  // not the allocation
    }
    return indices;
}

}  // namespace

TEST_CASE("a producer computed per tile gives the same bits in every memory type") {
    const int w = 67, h = 45;  // not multiples of the 16 x 8 tiles
    Buffer<uint16_t> in = random_image(w, h, 11);
    for (MemoryType memory : {MemoryType::Auto, MemoryType::Heap, MemoryType::Stack, MemoryType::Register}) {
        CAPTURE(memory_type_name(memory));
        Blur blur(in);
        blur.blur_y.tile(blur.x, blur.y, blur.xi, blur.yi, 16, 8).vectorize(blur.xi, 8).parallel(blur.y);
        blur.blur_x.compute_at(blur.blur_y, blur.x).vectorize(blur.x, 8).store_in(memory);
        check_equal<uint16_t>(blur.blur_y.realize({w, h}), reference_blur(in));
    }
}

TEST_CASE("a producer stored on the stack inside a parallel loop has memory of its own per task") {
    Func producer("producer"), consumer("consumer");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    producer(x, y) = x * 7 + y;
    consumer(x, y) = producer(x, y) + producer(x + 1, y) * 3;
    consumer.split(x, xo, xi, 16).parallel(y);
    producer.compute_at(consumer, xo).store_in(MemoryType::Stack);
    Buffer<int> out = consumer.realize({101, 57});
    for (int y = 0; y < 57; y++)
        for (int x = 0; x < 101; x++) REQUIRE(out(x, y) == (x * 7 + y) + ((x + 1) * 7 + y) * 3);
}

TEST_CASE("constant-size storage goes on the stack by itself, large or unknown sizes on the heap") {
    Func small("small"), small_out("small_out");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    small(x) = x * 2;
    small_out(x) = small(x) + small(x + 1);
    small_out.split(x, xo, xi, 16);
    small.compute_at(small_out, xo);
    CHECK(lowered_text(small_out).find("allocate small[int32 * 17] in Stack") != std::string::npos);

    Func unknown("unknown"), unknown_out("unknown_out");
    unknown(x) = x * 2;
    unknown_out(x) = unknown(x) + unknown(x + 1);
    unknown.compute_root();
    const std::string text = lowered_text(unknown_out);
    CHECK(text.find("allocate unknown[") != std::string::npos);
    CHECK(text.find("in Heap") != std::string::npos);
}

TEST_CASE("store_in(Heap) keeps a small constant-size Func on the heap") {
    Func f("f"), out("out");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x * 2;
    out(x) = f(x) + f(x + 1);
    out.split(x, xo, xi, 16);
    f.compute_at(out, xo).store_in(MemoryType::Heap);
    CHECK(lowered_text(out).find("allocate f[int32 * 17] in Heap") != std::string::npos);
    Buffer<int> result = out.realize({40});
    for (int i = 0; i < 40; i++) REQUIRE(result(i) == 4 * i + 2);
}

TEST_CASE("align_storage pads rows to a multiple of the alignment and keeps the values") {
    Func f("f"), g("g");
    Var x("x"), y("y");
    f(x, y) = x + y * 100;
    g(x, y) = f(x, y) * 3 + f(x + 1, y + 1);
    f.compute_at(g, y).align_storage(x, 8);
    g.bound(x, 0, 13);
    // Two rows of 14 values each, stored 16 apart.
    CHECK(lowered_text(g).find("allocate f[int32 * 16 * 2] in Stack") != std::string::npos);
    Buffer<int> out = g.realize({13, 5});
    out.for_each_element(
        [&](int i, int j) { REQUIRE(out(i, j) == (i + j * 100) * 3 + (i + 1) + (j + 1) * 100); });
    CHECK_THROWS_WITH_AS(f.align_storage(x, 0), doctest::Contains("the alignment is 0; give a positive one"),
                         CompileError);
}

TEST_CASE("a register tile unrolled in two dimensions is indexed by constants, and gives the bits") {
    // A tile of 8 channels (vectorized) by 3 columns by 2 output blocks, accumulated over r, with
    // ragged edges (ShiftInwards): flattened, its indices multiply by extents written in the
    // stage's lets, which cancel only once substituted. Any variable index would keep the whole
    // tile on the stack.
    const int channels = 8, width = 11, blocks = 5, taps = 4;
    Buffer<float> in(channels, width + taps), weights(channels, taps, blocks);
    in.for_each_element([&](int c, int x) { in(c, x) = float((c * 7 + x * 3) % 11) - 5.0f; });
    weights.for_each_element(
        [&](int c, int r, int b) { weights(c, r, b) = float((c + r * 5 + b * 3) % 7) - 3.0f; });
    Func out("out");
    Var c("c"), x("x"), b("b"), xo("xo"), xi("xi"), bo("bo"), bi("bi");
    RDom r(0, taps, "r");
    out(c, x, b) = 0.0f;
    out(c, x, b) = fma(in(c, x + r), weights(c, r, b), out(c, x, b));
    Func tile = cache_write(out, MemoryType::Register);
    out.bound(c, 0, channels)
        .split(x, xo, xi, 3, TailStrategy::ShiftInwards)
        .split(b, bo, bi, 2, TailStrategy::ShiftInwards)
        .reorder(c, xi, bi, xo, bo)
        .vectorize(c)
        .unroll(xi)
        .unroll(bi);
    tile.compute_at(out, xo).vectorize(c, channels).unroll(x, 3).unroll(b, 2);
    tile.update().reorder(c, x, b, r).vectorize(c, channels).unroll(x, 3).unroll(b, 2);

    Buffer<float> result = out.realize({channels, width, blocks});
    result.for_each_element([&](int cc, int xx, int bb) {
        float expected = 0.0f;
        for (int k = 0; k < taps; k++) expected = std::fma(in(cc, xx + k), weights(cc, k, bb), expected);
        CHECK_MESSAGE(result(cc, xx, bb) == expected, "at (" << cc << ", " << xx << ", " << bb << ")");
    });
    const std::vector<std::string> indices = tile_indices(out, tile);
    for (const std::string& index : indices)
        CHECK_MESSAGE(std::regex_match(index, std::regex(R"(ramp\([0-9]+, 1, 8\))")), "index " << index);
    CHECK(indices.size() >= 3 * 2 * 3);  // initialized, updated and read for each of the 6 vectors
}

TEST_CASE("a register tile inside a strip of rows is indexed by constants, its row loop of one iteration") {
    // As above, one row at a time, rows in strips of 4 (ShiftInwards): the tile's row loop runs
    // once, its extent a difference of two lets that cancel only once substituted.
    const int channels = 8, width = 11, height = 7, taps = 3;
    Buffer<float> in(channels, width + taps, height), weights(channels, taps);
    in.for_each_element([&](int c, int x, int y) { in(c, x, y) = float((c * 7 + x * 3 + y) % 11) - 5.0f; });
    weights.for_each_element([&](int c, int r) { weights(c, r) = float((c + r * 5) % 7) - 3.0f; });
    Func out("out");
    Var c("c"), x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    RDom r(0, taps, "r");
    out(c, x, y) = 0.0f;
    out(c, x, y) = fma(in(c, x + r, y), weights(c, r), out(c, x, y));
    Func tile = cache_write(out, MemoryType::Register);
    out.bound(c, 0, channels)
        .split(y, yo, yi, 4, TailStrategy::ShiftInwards)
        .split(x, xo, xi, 3, TailStrategy::ShiftInwards)
        .reorder(c, xi, xo, yi, yo)
        .vectorize(c)
        .unroll(xi);
    tile.compute_at(out, xo).vectorize(c, channels).unroll(x, 3);
    tile.update().reorder(c, x, r).vectorize(c, channels).unroll(x, 3);

    Buffer<float> result = out.realize({channels, width, height});
    result.for_each_element([&](int cc, int xx, int yy) {
        float expected = 0.0f;
        for (int k = 0; k < taps; k++) expected = std::fma(in(cc, xx + k, yy), weights(cc, k), expected);
        CHECK_MESSAGE(result(cc, xx, yy) == expected, "at (" << cc << ", " << xx << ", " << yy << ")");
    });
    const std::vector<std::string> indices = tile_indices(out, tile);
    for (const std::string& index : indices)
        CHECK_MESSAGE(std::regex_match(index, std::regex(R"(ramp\([0-9]+, 1, 8\))")), "index " << index);
    CHECK(indices.size() >= 3 * 3);  // initialized, updated and read for each of the 3 vectors
}
