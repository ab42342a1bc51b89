// Multi-stage stencil pipelines, boundary conditions and placement against plain C++.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <algorithm>
#include <random>
#include "tests/correctness/blur_reference.h"

using namespace tessera;
using namespace blur_reference;

namespace {}  // namespace

TEST_CASE("the 3x3 blur with repeated edges matches plain C++, inlined and computed at root") {
    Buffer<uint16_t> in = random_image(37, 23, 5);
    Buffer<uint16_t> expected = reference_blur(in);
    Blur inlined(in);
    check_equal<uint16_t>(inlined.blur_y.realize({37, 23}), expected);
    Blur rooted(in);
    rooted.blur_x.compute_root();
    check_equal<uint16_t>(rooted.blur_y.realize({37, 23}), expected);
}

TEST_CASE("realize into a buffer with non-zero mins computes that region") {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x * 100 + y;
    Buffer<int> out(5, 4);
    out.set_min(-3, 7);
    f.realize(out);
    for (int y = 7; y < 11; y++)
        for (int x = -3; x < 2; x++) CHECK_MESSAGE(out(x, y) == x * 100 + y, "at " << x << ", " << y);
}

TEST_CASE("a producer computed at root covers exactly the region its consumers read") {
    Func producer("producer"), consumer("consumer");
    Var x("x");
    producer(x) = x * x;
    consumer(x) = producer(x - 2) + producer(x + 5);
    producer.compute_root();
    Buffer<int> out = consumer.realize({11});
    for (int i = 0; i < 11; i++) CHECK(out(i) == (i - 2) * (i - 2) + (i + 5) * (i + 5));
}

TEST_CASE("boundary conditions give the values of Halide's definitions") {
    Buffer<int> in(5);
    for (int i = 0; i < 5; i++) in(i) = 10 * i + 1;
    Var x("x");
    Func edge("edge"), tiled("tiled"), mirror("mirror"), interior("interior"), constant("constant");
    Func e = BoundaryConditions::repeat_edge(in), t = BoundaryConditions::repeat_image(in),
         m = BoundaryConditions::mirror_image(in), mi = BoundaryConditions::mirror_interior(in),
         c = BoundaryConditions::constant_exterior(in, -1);
    edge(x) = e(x - 7);
    tiled(x) = t(x - 7);
    mirror(x) = m(x - 7);
    interior(x) = mi(x - 7);
    constant(x) = c(x - 7);
    Buffer<int> eo = edge.realize({19}), to = tiled.realize({19}), mo = mirror.realize({19}),
                io = interior.realize({19}), co = constant.realize({19});
    auto value = [&](int i) { return 10 * i + 1; };
    for (int k = 0; k < 19; k++) {
        const int i = k - 7;
        CHECK(eo(k) == value(std::clamp(i, 0, 4)));
        CHECK(to(k) == value(((i % 5) + 5) % 5));
        int p = ((i % 10) + 10) % 10;
        CHECK_MESSAGE(mo(k) == value(p < 5 ? p : 9 - p), "mirror_image at " << i);
        int q = ((i % 8) + 8) % 8;
        CHECK_MESSAGE(io(k) == value(q < 5 ? q : 8 - q), "mirror_interior at " << i);
        CHECK(co(k) == (i >= 0 && i < 5 ? value(i) : -1));
    }
}

TEST_CASE("a chain of two hundred stages lowers and runs") {
    Var x("x");
    std::vector<Func> stages(200);
    stages[0](x) = x;
    for (size_t i = 1; i < stages.size(); i++) {
        stages[i](x) = stages[i - 1](x) + 1;
        if (i % 2 == 0) stages[i].compute_root();
    }
    Buffer<int> out = stages.back().realize({10});
    for (int i = 0; i < 10; i++) CHECK(out(i) == i + 199);
}
