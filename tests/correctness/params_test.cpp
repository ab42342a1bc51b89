// Param, ImageParam and Pipeline with several outputs; recompilation only on change.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

using namespace tessera;

TEST_CASE("a Param's value is read at each run without recompiling") {
    Param<float> scale("scale");
    Param<int> offset("offset", 3);
    Func f("f");
    Var x("x");
    f(x) = cast<float>(x + offset) * scale;
    Pipeline p(f);
    scale.set(2.0f);
    Buffer<float> a = p.realize({7});
    const double first_compile = p.last_compile_time_ms();
    scale.set(-1.5f);
    offset.set(10);
    Buffer<float> b = p.realize({7});
    CHECK(p.last_compile_time_ms() == first_compile);
    for (int i = 0; i < 7; i++) {
        CHECK(a(i) == float(i + 3) * 2.0f);
        CHECK(b(i) == float(i + 10) * -1.5f);
    }
}

TEST_CASE("an ImageParam reads whatever buffer is bound, with its own min and extent") {
    ImageParam in(Int(32), 2, "in");
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = in(x, y) * 2 + in.width() + in.dim(1).min();
    Buffer<int> a(4, 3);
    a.set_min(2, 5);
    for (int yy = 5; yy < 8; yy++)
        for (int xx = 2; xx < 6; xx++) a(xx, yy) = xx * 10 + yy;
    in.set(a);
    Buffer<int> out(4, 3);
    out.set_min(2, 5);
    f.realize(out);
    for (int yy = 5; yy < 8; yy++)
        for (int xx = 2; xx < 6; xx++) CHECK(out(xx, yy) == (xx * 10 + yy) * 2 + 4 + 5);
}

TEST_CASE("a pipeline with two outputs fills both buffers") {
    Func g("g"), h("h");
    Var x("x");
    g(x) = x * 2;
    h(x) = g(x) + 1;
    Pipeline p({g, h});
    Realization r = p.realize({8});
    Buffer<int> go = r[0], ho = r[1];
    for (int i = 0; i < 8; i++) {
        CHECK(go(i) == i * 2);
        CHECK(ho(i) == i * 2 + 1);
    }
}

TEST_CASE("changing a schedule or a definition recompiles; an unchanged pipeline does not") {
    Func f("f"), g("g");
    Var x("x");
    f(x) = x + 1;
    g(x) = f(x) * 2;
    Buffer<int> a = g.realize({5});
    Pipeline p(g);
    p.compile_jit();
    const double t = p.last_compile_time_ms();
    p.compile_jit();
    CHECK(p.last_compile_time_ms() == t);
    f.compute_root();
    Buffer<int> b = g.realize({5});
    g(x) = g(x) + 1;
    Buffer<int> c = g.realize({5});
    for (int i = 0; i < 5; i++) {
        CHECK(a(i) == (i + 1) * 2);
        CHECK(b(i) == (i + 1) * 2);
        CHECK(c(i) == (i + 1) * 2 + 1);
    }
}

TEST_CASE("the loop nest and the lowered statement show the schedule") {
    Func f("f"), g("g");
    Var x("x"), y("y");
    f(x, y) = x + y;
    g(x, y) = f(x, y) * 2;
    f.compute_root();
    std::string nest = g.loop_nest();
    CHECK(nest.find("produce f:") != std::string::npos);
    CHECK(nest.find("produce g:") != std::string::npos);
    CHECK(nest.find("for y:") != std::string::npos);
    CHECK(nest.find("produce f:") < nest.find("produce g:"));
}
