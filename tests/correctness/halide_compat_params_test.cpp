// Params, ImageParams, Pipelines with several outputs, boundary conditions, lambda and implicit
// Vars as a Halide 14 program uses them, checked against plain C++ on random inputs.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

using namespace tessera;

namespace {

Buffer<uint8_t> random_image(int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    Buffer<uint8_t> b(w, h);
    b.for_each_value([&](uint8_t& v) { v = uint8_t(rng()); });
    return b;
}

}  // namespace

TEST_CASE("Params: constructors, ranges, and new values without recompiling") {
    Param<int> offset;
    Param<float> gain("gain", 2.0f);
    Param<uint8_t> threshold(uint8_t(100), 0, 255);
    Param<double> unused("unused", 0.5, Expr(0.0), Expr(1.0));
    Param<int16_t> named("named");
    CHECK(gain.get() == 2.0f);
    CHECK(threshold.get() == 100);
    CHECK(gain.type() == Float(32));
    CHECK(named.name() == "named");
    CHECK(unused.min_value().defined());
    offset.set_range(-10, 10);
    offset.set_estimate(3);
    named.set(int16_t(-7));

    Buffer<uint8_t> in = random_image(19, 13, 1);
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = select(in(x, y) > threshold, cast<float>(in(x, y)) * gain + offset, cast<float>(named));
    for (int round = 0; round < 2; round++) {
        offset.set(round * 5 - 3);
        gain.set(1.0f + round);
        threshold.set(uint8_t(50 + 100 * round));
        Buffer<float> out = f.realize({19, 13});
        for (int j = 0; j < 13; j++)
            for (int i = 0; i < 19; i++) {
                const float expected = in(i, j) > threshold.get()
                                           ? float(in(i, j)) * gain.get() + float(offset.get())
                                           : float(named.get());
                CHECK(out(i, j) == expected);
            }
    }
}

TEST_CASE("ImageParam: shape queries, rebinding, and use through a Func") {
    ImageParam input(UInt(8), 2, "input");
    CHECK(input.dimensions() == 2);
    CHECK(input.type() == UInt(8));
    CHECK(input.name() == "input");
    input.dim(0).set_estimate(0, 64);
    Func mirrored("mirrored");
    Var x("x"), y("y");
    Expr w = input.width(), h = input.dim(1).extent();
    mirrored(x, y) = input(w - 1 - x + input.dim(0).min() * 2, y) / 2 + cast<uint8_t>(input.top() + h % 7);
    Func as_func = input;
    Func doubled("doubled");
    doubled(x, y) = cast<uint16_t>(as_func(x, y)) * 2;
    for (int round = 0; round < 2; round++) {
        Buffer<uint8_t> image = random_image(17 + round * 6, 9 + round, 2 + round);
        input.set(image);
        CHECK(input.get().width() == image.width());
        Buffer<uint8_t> out = mirrored.realize({image.width(), image.height()});
        Buffer<uint16_t> out2 = doubled.realize({image.width(), image.height()});
        for (int j = 0; j < image.height(); j++)
            for (int i = 0; i < image.width(); i++) {
                CHECK(out(i, j) == uint8_t(image(image.width() - 1 - i, j) / 2 + image.height() % 7));
                CHECK(out2(i, j) == image(i, j) * 2);
            }
    }
}

TEST_CASE("boundary conditions on Buffers and ImageParams") {
    Buffer<uint8_t> image = random_image(11, 7, 3);
    ImageParam input(UInt(8), 2);
    input.set(image);
    Var x("x"), y("y");
    const int w = 11, h = 7;
    auto reflect = [](int i, int n) {  // mirror_image: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ...
        i = ((i % (2 * n)) + 2 * n) % (2 * n);
        return i < n ? i : 2 * n - 1 - i;
    };
    auto interior = [](int i, int n) {  // mirror_interior: ... 2 1 | 0 1 ... n-1 | n-2 ...
        if (n == 1) return 0;
        const int period = 2 * (n - 1);
        i = ((i % period) + period) % period;
        return i < n ? i : period - i;
    };
    Func ce = BoundaryConditions::constant_exterior(image, 7);
    Func re = BoundaryConditions::repeat_edge(input);
    Func ri = BoundaryConditions::repeat_image(image);
    Func mi = BoundaryConditions::mirror_image(input);
    Func mn = BoundaryConditions::mirror_interior(image);
    Func all("all");
    all(x, y) = Tuple(ce(x, y), re(x, y), ri(x, y), mi(x, y), mn(x, y));
    Buffer<uint8_t> o0(31, 25), o1(31, 25), o2(31, 25), o3(31, 25), o4(31, 25);
    for (Buffer<uint8_t>* b : {&o0, &o1, &o2, &o3, &o4}) b->set_min(-10, -9);
    all.realize({o0, o1, o2, o3, o4});
    for (int j = -9; j < 16; j++)
        for (int i = -10; i < 21; i++) {
            const bool inside = i >= 0 && i < w && j >= 0 && j < h;
            CHECK(o0(i, j) == (inside ? image(i, j) : 7));
            CHECK(o1(i, j) == image(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1)));
            CHECK(o2(i, j) == image(((i % w) + w) % w, ((j % h) + h) % h));
            CHECK(o3(i, j) == image(reflect(i, w), reflect(j, h)));
            CHECK(o4(i, j) == image(interior(i, w), interior(j, h)));
        }
}

TEST_CASE("a Pipeline with several outputs, realized into sizes and into buffers") {
    Buffer<uint8_t> in = random_image(15, 8, 4);
    Func blur("blur"), edge("edge"), stats("stats");
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(in);
    blur(x, y) = cast<uint8_t>((cast<uint16_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
    edge(x, y) = cast<int16_t>(clamped(x + 1, y)) - clamped(x - 1, y);
    Pipeline p({blur, edge});
    Realization r = p.realize({15, 8});
    CHECK(r.size() == 2);
    Buffer<uint8_t> b1 = r[0];
    Buffer<int16_t> e1 = r[1];
    Buffer<uint8_t> b2(15, 8);
    Buffer<int16_t> e2(15, 8);
    p.realize({b2, e2});
    auto at = [&](int i, int j) { return int(in(std::clamp(i, 0, 14), std::clamp(j, 0, 7))); };
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 15; i++) {
            const uint8_t blurred = uint8_t((at(i - 1, j) + at(i, j) + at(i + 1, j)) / 3);
            CHECK(b1(i, j) == blurred);
            CHECK(b2(i, j) == blurred);
            CHECK(e1(i, j) == at(i + 1, j) - at(i - 1, j));
            CHECK(e2(i, j) == e1(i, j));
        }
    std::vector<Func> outs = p.outputs();
    CHECK(outs.size() == 2);
    CHECK(outs[0].name() == "blur");
}

TEST_CASE("lambda, Func(Expr), the implicit Vars _0 and _1, and Func introspection") {
    Var x("x"), y("y");
    Func ramp = lambda(x, y, x * 10 + y);
    Func half = lambda(x, cast<float>(x) / 2);
    Func implicit = lambda(_0 * 3 + _1);
    Func constant(Expr(42));
    Func g("g");
    g(x, y) = ramp(x, y) + implicit(y, x) + constant();
    CHECK(ramp.dimensions() == 2);
    CHECK(implicit.dimensions() == 2);
    CHECK(constant.dimensions() == 0);
    CHECK(g.args().size() == 2);
    CHECK(g.args()[0].name() == "x");
    CHECK(implicit.args()[1].name() == Var(_1).name());
    CHECK(g.value().defined());
    CHECK(g.output_types()[0] == Int(32));
    CHECK_FALSE(g.has_update_definition());
    Func h("h");
    h(x) = x;
    h(0) = 5;
    CHECK(h.has_update_definition());
    CHECK(h.num_update_definitions() == 1);
    CHECK(h.update_args(0).size() == 1);
    Buffer<int> out = g.realize({6, 5});
    Buffer<float> halves = half.realize({7});
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 6; i++) CHECK(out(i, j) == i * 10 + j + j * 3 + i + 42);
    for (int i = 0; i < 7; i++) CHECK(halves(i) == float(i) / 2);
}
