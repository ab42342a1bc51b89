// cache_read: staging a producer or an input through a copy for some consumers gives the bits of
// the schedule without the copy, whatever the copy's placement, memory and layout.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <random>
#include "tests/correctness/blur_reference.h"

using namespace tessera;
using namespace blur_reference;

namespace {

Buffer<float> random_matrix(int columns, int rows, unsigned seed) {
    Buffer<float> m(columns, rows);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    m.for_each_value([&](float& v) { v = dist(rng); });
    return m;
}

// C(j, i) = sum_k A(k, i) * B(j, k): j is the column of C and B, i the row of C and A.
struct MatMul {
    Func c{"c"};
    Var j{"j"}, i{"i"}, jo{"jo"}, ji{"ji"}, io{"io"}, ii{"ii"};
    RDom k;
    MatMul(const Func& a, const Func& b, int depth) : k(0, depth, "k") {
        c(j, i) = 0.0f;
        c(j, i) += a(k, i) * b(j, k);
    }
};

}  // namespace

TEST_CASE("a producer read through a copy computed per tile gives the bits of the plain schedule") {
    const int w = 67, h = 45;
    Buffer<uint16_t> in = random_image(w, h, 5);
    for (MemoryType memory : {MemoryType::Auto, MemoryType::Heap, MemoryType::Stack}) {
        CAPTURE(memory_type_name(memory));
        Blur blur(in);
        blur.blur_y.tile(blur.x, blur.y, blur.xi, blur.yi, 16, 8).vectorize(blur.xi, 8);
        blur.blur_x.compute_root();
        Func staged = cache_read(blur.blur_x, {blur.blur_y}, memory);
        staged.compute_at(blur.blur_y, blur.x).vectorize(blur.x, 8);
        CHECK(blur.blur_y.loop_nest().find("produce " + staged.name()) != std::string::npos);
        check_equal<uint16_t>(blur.blur_y.realize({w, h}), reference_blur(in));
    }
}

TEST_CASE("an input Buffer packed into another layout by cache_read gives the bits of the unpacked product") {
    const int m = 37, n = 29, depth = 23;  // not multiples of the 8 x 4 tiles
    Buffer<float> a = random_matrix(depth, m, 1), b = random_matrix(n, depth, 2);
    MatMul plain(Func(a), Func(b), depth);
    Buffer<float> expected = plain.c.realize({n, m});

    Func fa(a), fb(b);
    MatMul packed(fa, fb, depth);
    // The copy of B is stored with k innermost: each column j of B becomes contiguous.
    Func b_packed = cache_read(b, {fb});
    b_packed.compute_root().reorder_storage(b_packed.args()[1], b_packed.args()[0]);
    packed.c.update().tile(packed.j, packed.i, packed.jo, packed.io, packed.ji, packed.ii, 8, 4,
                           TailStrategy::GuardWithIf);
    CHECK(packed.c.loop_nest().find("produce " + b_packed.name()) != std::string::npos);
    Buffer<float> result = packed.c.realize({n, m});
    result.for_each_element([&](int x, int y) { REQUIRE(result(x, y) == expected(x, y)); });
}

TEST_CASE("a panel copied per guarded tile, vectorized past the last tile's edge, gives the plain bits") {
    // The copy of B covers the tile's columns: 16, or fewer in the last tile, whose vector then
    // shifts inwards, or is guarded. Its region over all tiles is that of the tiles: never before
    // column 0, nor past the last.
    const int depth = 23;
    for (auto [n, tail] :
         {std::pair{64, TailStrategy::Auto}, std::pair{61, TailStrategy::Auto},
          std::pair{16, TailStrategy::Auto}, std::pair{13, TailStrategy::Auto},
          std::pair{61, TailStrategy::GuardWithIf}, std::pair{13, TailStrategy::GuardWithIf}}) {
        CAPTURE(n);
        CAPTURE(int(tail));
        const int m = 11;
        Buffer<float> a = random_matrix(depth, m, 3), b = random_matrix(n, depth, 4);
        MatMul plain(Func(a), Func(b), depth);
        Buffer<float> expected = plain.c.realize({n, m});

        Func fa(a), fb(b);
        MatMul tiled(fa, fb, depth);
        Func panel = cache_read(b, {fb});
        tiled.c.update()
            .tile(tiled.j, tiled.i, tiled.jo, tiled.io, tiled.ji, tiled.ii, 16, 4, TailStrategy::GuardWithIf)
            .reorder(tiled.ji, tiled.ii, tiled.k, tiled.io, tiled.jo);
        panel.compute_at(tiled.c, tiled.jo).vectorize(panel.args()[0], 8, tail);
        Buffer<float> result = tiled.c.realize({n, m});
        result.for_each_element([&](int x, int y) { REQUIRE(result(x, y) == expected(x, y)); });
    }
}

TEST_CASE("an ImageParam staged per row of the consumer gives the bits of the plain pipeline") {
    ImageParam input(Int(32), 2, "input");
    Func sum_rows("sum_rows");
    Var x("x"), y("y");
    sum_rows(x, y) = input(x, y) + input(x + 1, y) * 3 + input(x, y + 1);
    Buffer<int> data(50, 40);
    std::mt19937 rng(3);
    data.for_each_value([&](int& v) { v = int(rng() % 1000); });
    input.set(data);
    Buffer<int> expected = sum_rows.realize({49, 39});

    Func staged = cache_read(input, {sum_rows}, MemoryType::Stack);
    Var xo("xo"), xi("xi");
    sum_rows.split(x, xo, xi, 8);
    staged.compute_at(sum_rows, xo).vectorize(staged.args()[0], 4);
    CHECK(sum_rows.loop_nest().find("produce " + staged.name()) != std::string::npos);
    Buffer<int> result = sum_rows.realize({49, 39});
    result.for_each_element([&](int i, int j) { REQUIRE(result(i, j) == expected(i, j)); });
}

TEST_CASE("ImageParam::in() stages the image for one consumer or for all, as Halide's wrappers do") {
    ImageParam input(Int(32), 2, "input");
    Func edges("edges"), total("total");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    edges(x, y) = input(x + 1, y) - input(x, y);
    total(x, y) = edges(x, y) * 5 + input(x, y + 1);
    Buffer<int> data(50, 40);
    std::mt19937 rng(4);
    data.for_each_value([&](int& v) { v = int(rng() % 1000) - 500; });
    input.set(data);
    Buffer<int> expected(49, 39);
    expected.for_each_element(
        [&](int i, int j) { expected(i, j) = (data(i + 1, j) - data(i, j)) * 5 + data(i, j + 1); });
    check_equal<int>(total.realize({49, 39}), expected);

    // For edges alone: total still reads the image itself.
    Func for_edges = input.in(edges);
    CHECK(input.in(edges).name() == for_edges.name());
    CHECK(for_edges.args()[0].name() == "_0");
    edges.compute_root().split(x, xo, xi, 8);
    for_edges.compute_at(edges, xo).vectorize(_0, 4);
    std::string nest = total.loop_nest();
    CHECK_MESSAGE(nest.find("produce " + for_edges.name()) != std::string::npos, nest);
    check_equal<int>(total.realize({49, 39}), expected);

    // For every consumer: the copy for edges still serves edges.
    Func everywhere = input.in();
    CHECK(everywhere.name() != for_edges.name());
    everywhere.compute_root();
    nest = total.loop_nest();
    CHECK_MESSAGE(nest.find("produce " + everywhere.name()) != std::string::npos, nest);
    check_equal<int>(total.realize({49, 39}), expected);
}

TEST_CASE("cache_read for a Func that does not read the input is an error that names both") {
    ImageParam input(Int(32), 1, "input");
    Func reads("reads"), ignores("ignores");
    Var x("x");
    reads(x) = input(x);
    ignores(x) = x;
    CHECK_THROWS_WITH_AS(cache_read(input, {ignores}), doctest::Contains("ignores does not read input"),
                         CompileError);
    CHECK_THROWS_WITH_AS(cache_read(input, {}), doctest::Contains("name the Funcs that should read the copy"),
                         CompileError);
}

TEST_CASE("cache_write accumulates each tile of a product in local storage and gives the plain bits") {
    const int m = 37, n = 29, depth = 23;
    Buffer<float> a = random_matrix(depth, m, 4), b = random_matrix(n, depth, 5);
    // The vectorized accumulation reads B past its last column at the ragged edge (bounds are
    // over-estimated there), so B's edge is repeated; the extra columns are never copied out.
    Func b_edge = BoundaryConditions::repeat_edge(b);
    MatMul plain(Func(a), b_edge, depth);
    Buffer<float> expected = plain.c.realize({n, m});

    for (MemoryType memory : {MemoryType::Auto, MemoryType::Heap, MemoryType::Stack}) {
        CAPTURE(memory_type_name(memory));
        MatMul cached(Func(a), b_edge, depth);
        Func local = cache_write(cached.c, memory);
        // ShiftInwards keeps every tile 8 x 4, so the local tile has a constant size (needed for Stack).
        cached.c.tile(cached.j, cached.i, cached.jo, cached.io, cached.ji, cached.ii, 8, 4,
                      TailStrategy::ShiftInwards);
        local.compute_at(cached.c, cached.jo);
        local.update()
            .reorder(cached.j, cached.i, cached.k)
            .vectorize(cached.j, 4, TailStrategy::GuardWithIf);
        CHECK(cached.c.loop_nest().find("produce " + local.name()) != std::string::npos);
        Buffer<float> result = cached.c.realize({n, m});
        result.for_each_element([&](int x, int y) { REQUIRE(result(x, y) == expected(x, y)); });
    }
}

TEST_CASE("cache_write after scheduling: the pure schedule stays with the copy out, updates move") {
    const int m = 13, n = 21, depth = 9;
    Buffer<float> a = random_matrix(depth, m, 6), b = random_matrix(n, depth, 7);
    MatMul plain(Func(a), Func(b), depth);
    Buffer<float> expected = plain.c.realize({n, m});

    MatMul scheduled(Func(a), Func(b), depth);
    scheduled.c.split(scheduled.j, scheduled.jo, scheduled.ji, 4, TailStrategy::GuardWithIf)
        .vectorize(scheduled.ji);
    scheduled.c.update().split(scheduled.i, scheduled.io, scheduled.ii, 3, TailStrategy::GuardWithIf);
    Func local = cache_write(scheduled.c);
    local.compute_at(scheduled.c, scheduled.jo);
    const std::string nest = scheduled.c.loop_nest();
    CAPTURE(nest);
    // The copy out keeps its split of j; the local Func's pure loops are its own (not split), and
    // its update keeps the split of i.
    const size_t produce = nest.find("produce " + local.name()),
                 consume = nest.find("consume " + local.name());
    REQUIRE(produce < consume);
    const std::string local_loops = nest.substr(produce, consume - produce);
    CHECK(nest.find("for j.jo:") < produce);
    CHECK(nest.find("vectorized j.ji:") > consume);
    CHECK(local_loops.find("j.jo") == std::string::npos);
    CHECK(local_loops.find("for i.io:") != std::string::npos);
    Buffer<float> result = scheduled.c.realize({n, m});
    result.for_each_element([&](int x, int y) { REQUIRE(result(x, y) == expected(x, y)); });
}

TEST_CASE("cache_write of a Tuple-valued Func copies every value out") {
    Func f("f");
    Var x("x");
    RDom r(0, 5, "r");
    f(x) = Tuple(x, x * 2);
    f(x) = Tuple(f(x)[0] + r, f(x)[1] * 2);
    Func local = cache_write(f);
    local.compute_root();
    Realization out = f.realize({9});
    Buffer<int> first = out[0], second = out[1];
    for (int i = 0; i < 9; i++) {
        REQUIRE(first(i) == i + 0 + 1 + 2 + 3 + 4);
        REQUIRE(second(i) == i * 2 * 32);
    }
}
