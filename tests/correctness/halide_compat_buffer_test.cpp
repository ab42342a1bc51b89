// Buffer as a Halide 14 program uses it: owning and wrapping constructors, shapes, views, element
// access and iteration, and as input and output of pipelines.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

using namespace tessera;

TEST_CASE("owning buffers: sizes, shape queries and element access") {
    Buffer<float> a(13, 7, 3);
    CHECK(a.dimensions() == 3);
    CHECK(a.width() == 13);
    CHECK(a.height() == 7);
    CHECK(a.channels() == 3);
    CHECK(a.dim(0).min() == 0);
    CHECK(a.dim(0).extent() == 13);
    CHECK(a.dim(0).stride() == 1);
    CHECK(a.dim(1).stride() == 13);
    CHECK(a.dim(2).stride() == 13 * 7);
    CHECK(a.dim(2).max() == 2);
    CHECK(a.number_of_elements() == 13 * 7 * 3);
    CHECK(a.type() == Float(32));
    CHECK(a.all_equal(0.0f));  // new buffers are zeroed

    Buffer<int> b(std::vector<int>{5, 9});
    Buffer<uint8_t> named(11, 3, "named_input");
    CHECK(named.name() == "named_input");
    CHECK(b.extent(1) == 9);
    Buffer<int16_t> scalar = Buffer<int16_t>::make_scalar();
    scalar() = -12;
    CHECK(scalar.dimensions() == 0);
    CHECK(scalar() == -12);

    std::mt19937 rng(1);
    a.for_each_element([&](int x, int y, int c) { a(x, y, c) = float(x + 100 * y + 10000 * c); });
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < 7; y++)
            for (int x = 0; x < 13; x++) CHECK(a(x, y, c) == float(x + 100 * y + 10000 * c));
    int pos[3] = {4, 5, 1};
    CHECK(a(pos) == 4 + 500 + 10000);
    CHECK(a.data()[4 + 5 * 13 + 1 * 91] == a(4, 5, 1));
    CHECK(a.end() - a.begin() == 13 * 7 * 3);
    CHECK(a.contains(12, 6, 2));
    CHECK_FALSE(a.contains(13, 0, 0));
    CHECK(a.copy_to_host() == 0);
}

TEST_CASE("wrapping the caller's memory: dense, with a shape, and a C array") {
    std::vector<int> memory(6 * 4);
    std::iota(memory.begin(), memory.end(), 0);
    Buffer<int> dense(memory.data(), 6, 4);
    CHECK(dense(5, 3) == 23);
    dense(1, 1) = -1;
    CHECK(memory[7] == -1);

    // Column-major: dimension 1 innermost.
    halide_dimension_t shape[2] = {{0, 6, 4, 0}, {0, 4, 1, 0}};
    Buffer<int> transposed_view(memory.data(), 2, shape);
    CHECK(transposed_view(2, 3) == memory[2 * 4 + 3]);

    int array[3][5];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) array[y][x] = x * 10 + y;
    Buffer<int> from_array(array);
    CHECK(from_array.dimensions() == 2);
    CHECK(from_array.width() == 5);
    CHECK(from_array.height() == 3);
    CHECK(from_array(4, 2) == 42);

    Func doubled;
    Var x, y;
    doubled(x, y) = from_array(x, y) * 2 + transposed_view(y % 6, x % 4);
    Buffer<int> out = doubled.realize({5, 3});
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 5; i++) CHECK(out(i, j) == array[j][i] * 2 + memory[(j % 6) * 4 + i % 4]);
}

TEST_CASE("an interleaved buffer as a pipeline input") {
    const int w = 9, h = 5;
    Buffer<uint8_t> in = Buffer<uint8_t>::make_interleaved(w, h, 3);
    CHECK(in.dim(2).stride() == 1);
    CHECK(in.dim(0).stride() == 3);
    std::mt19937 rng(2);
    in.for_each_value([&](uint8_t& v) { v = uint8_t(rng()); });
    Func swap_channels;
    Var x, y, c;
    swap_channels(x, y, c) = in(x, y, 2 - c);
    Buffer<uint8_t> planar = swap_channels.realize({w, h, 3});
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) CHECK(planar(i, j, k) == in(i, j, 2 - k));
}

TEST_CASE("set_min, translate, crop, slice, transpose and embed change the view, not the data") {
    Buffer<int> b(8, 6);
    b.for_each_element([&](int x, int y) { b(x, y) = x + 10 * y; });
    Buffer<int> shifted = b.copy();
    shifted.set_min(3, -2);
    CHECK(shifted.min(0) == 3);
    CHECK(shifted(3, -2) == 0);
    CHECK(shifted(10, 3) == 7 + 50);
    shifted.translate(0, -3);
    CHECK(shifted(0, -2) == 0);

    Buffer<int> crop = b.copy();
    crop.crop(0, 2, 4);
    CHECK(crop.width() == 4);
    CHECK(crop.dim(0).min() == 2);
    CHECK(crop(2, 1) == b(2, 1));
    Buffer<int> row = b.sliced(1, 4);
    CHECK(row.dimensions() == 1);
    CHECK(row(5) == b(5, 4));
    Buffer<int> t = b.transposed(0, 1);
    CHECK(t.width() == 6);
    CHECK(t(3, 7) == b(7, 3));
    Buffer<int> e = b.embedded(2, 5);
    CHECK(e.dimensions() == 3);
    CHECK(e.dim(2).min() == 5);
    CHECK(e(7, 5, 5) == b(7, 5));

    // A view of part of another buffer's memory is a valid pipeline output: only it is written.
    Func f;
    Var x, y;
    f(x, y) = x * y;
    Buffer<int> target = b.copy();
    halide_dimension_t shape[2] = {{1, 3, 1, 0}, {2, 2, 8, 0}};
    Buffer<int> window(&target(1, 2), 2, shape);
    f.realize(window);
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 8; i++) {
            const bool inside = i >= 1 && i < 4 && j >= 2 && j < 4;
            CHECK(target(i, j) == (inside ? i * j : i + 10 * j));
        }
}

TEST_CASE("fill, for_each_value over several buffers, copy and copy_from") {
    Buffer<float> a(7, 3), b(7, 3);
    a.fill(1.5f);
    b.fill([](int x, int y) { return float(x - y); });
    float total = 0;
    a.for_each_value([&](float& va, const float& vb) { va += vb; }, b);
    a.for_each_value([&](float v) { total += v; });
    float expected = 0;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 7; x++) expected += 1.5f + float(x - y);
    CHECK(total == expected);

    Buffer<float> c = a.copy();
    c(0, 0) = 100;
    CHECK(a(0, 0) == 1.5f);
    Buffer<float> bigger(9, 5);
    bigger.set_min(-1, -1);
    bigger.fill(-7.0f);
    bigger.copy_from(a);
    CHECK(bigger(-1, -1) == -7.0f);
    CHECK(bigger(6, 2) == a(6, 2));
    CHECK(bigger(7, 3) == -7.0f);
}

TEST_CASE("Buffer<> with a run-time type, Func(buffer), RDom(buffer) and Realizations") {
    Buffer<> any(UInt(16), 11, 4);
    CHECK(any.type() == UInt(16));
    Buffer<uint16_t> typed = any.as<uint16_t>();
    std::mt19937 rng(3);
    typed.for_each_value([&](uint16_t& v) { v = uint16_t(rng()); });
    CHECK_THROWS((Buffer<float>(any)));

    Func wrapped(typed);
    CHECK(wrapped.dimensions() == 2);
    CHECK(wrapped.output_types()[0] == UInt(16));
    Func scaled;
    Var x, y;
    scaled(x, y) = cast<uint32_t>(wrapped(x, y)) * 3;
    Buffer<> out = scaled.realize({11, 4});
    CHECK(out.type() == UInt(32));
    Buffer<uint32_t> out32 = out;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 11; i++) CHECK(out32(i, j) == uint32_t(typed(i, j)) * 3);

    Func total;
    RDom r(typed);
    CHECK(r.dimensions() == 2);
    CHECK(r.x.extent().type() == Int(32));
    total() = cast<uint64_t>(0);
    total() += cast<uint64_t>(typed(r.x, r.y));
    Buffer<uint64_t> sum = total.realize();
    uint64_t expected = 0;
    typed.for_each_value([&](uint16_t v) { expected += v; });
    CHECK(sum() == expected);

    Func pair;
    pair(x) = Tuple(x * 2, cast<float>(x) / 2);
    Buffer<int> first(6);
    Buffer<float> second(6);
    pair.realize({first, second});
    Realization both = pair.realize({6});
    Buffer<int> again = both[0];
    for (int i = 0; i < 6; i++) {
        CHECK(first(i) == i * 2);
        CHECK(second(i) == float(i) / 2);
        CHECK(again(i) == i * 2);
    }
}

TEST_CASE("the placeholder _ in a buffer access stands for the remaining dimensions") {
    Buffer<int> in(6, 5, 3);
    in.for_each_element([&](int x, int y, int c) { in(x, y, c) = x + 10 * y + 100 * c; });
    Func doubled = lambda(in(_)*2);
    CHECK(doubled.dimensions() == 3);
    Buffer<int> out = doubled.realize({6, 5, 3});
    in.for_each_element([&](int x, int y, int c) { CHECK(out(x, y, c) == in(x, y, c) * 2); });
}
