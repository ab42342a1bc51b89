// Halide 14 programs around Func definitions: the placeholder _, updates of one Tuple element,
// compound updates of undefined Funcs and with Tuples, Int(64) constants, the Error base class
// and boundary conditions with explicit bounds. Each was checked against Halide 14 itself.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <cstdint>

using namespace tessera;

TEST_CASE("the placeholder _ stands for the remaining dimensions") {
    Func g("g"), f("f"), h("h");
    Var x("x"), y("y");
    g(x, y) = x * 10 + y;
    f(_) = g(_) + 1;
    h(x, _) = g(x, _) * 2;
    Buffer<int> a = f.realize({4, 3}), b = h.realize({4, 3});
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++) {
            CHECK(a(i, j) == i * 10 + j + 1);
            CHECK(b(i, j) == (i * 10 + j) * 2);
        }
}

TEST_CASE("an update of one Tuple element leaves the others unchanged") {
    Func f("f");
    Var x("x");
    RDom r(0, 5);
    f(x) = Tuple(x, x * 2);
    f(x)[1] = f(x)[1] + r;
    f(x)[0] += 3;
    Realization rr = f.realize({4});
    Buffer<int> a = rr[0], b = rr[1];
    for (int i = 0; i < 4; i++) {
        CHECK(a(i) == i + 3);
        CHECK(b(i) == i * 2 + 10);
    }
}

TEST_CASE("a compound update of an undefined Func defines it over the update's own Vars") {
    Func p("p");
    Var x("x");
    RDom r(0, 3);
    p(x) *= x + r + 1;
    Buffer<int> out = p.realize({4});
    for (int i = 0; i < 4; i++) CHECK(out(i) == (i + 1) * (i + 2) * (i + 3));
}

TEST_CASE("compound updates with Tuples") {
    Func f("f");
    Var x("x");
    RDom r(0, 4);
    f(x) = Tuple(0, 1.0f);
    f(x) += Tuple(r, 0.5f);
    Func g("g");
    g(x) += Tuple(x + r, cast<float>(r));
    Realization a = f.realize({3}), b = g.realize({3});
    Buffer<int> a0 = a[0], b0 = b[0];
    Buffer<float> a1 = a[1], b1 = b[1];
    for (int i = 0; i < 3; i++) {
        CHECK(a0(i) == 6);
        CHECK(a1(i) == 3.0f);
        CHECK(b0(i) == 4 * i + 6);
        CHECK(b1(i) == 6.0f);
    }
}

TEST_CASE("an int64_t constant is an Int(64) Expr") {
    CHECK(Expr(int64_t(5)).type() == Int(64));
    Var x;
    Func f;
    f(x) = x + Expr(int64_t(7));
    Buffer<int64_t> out = f.realize({3});
    CHECK(out(2) == 9);
}

TEST_CASE("errors share the base class Error") {
    Func f("f");
    Var x("x");
    f(x) = x;
    bool caught = false;
    try {
        Buffer<float> wrong = f.realize({3});
    } catch (const tessera::Error&) {
        caught = true;
    }
    CHECK(caught);
}

TEST_CASE("boundary conditions with explicit bounds on a Buffer") {
    Buffer<int> b(5, 4);
    b.for_each_element([&](int i, int j) { b(i, j) = i + 10 * j; });
    Func f = BoundaryConditions::repeat_edge(b, {{1, 3}, {0, 4}});
    Func g = BoundaryConditions::constant_exterior(b, 0, {{0, 5}, {1, 2}});
    Func c = BoundaryConditions::constant_exterior(b, 7, 0, 5, 1, 2);
    Func u = BoundaryConditions::repeat_edge(b, {{0, 5}, {Expr(), Expr()}});
    Buffer<int> fo = f.realize({7, 4}), go = g.realize({7, 4}), co = c.realize({6, 5}),
                uo = u.realize({7, 4});
    CHECK(fo(0, 0) == b(1, 0));
    CHECK(fo(6, 3) == b(3, 3));
    CHECK(go(0, 0) == 0);
    CHECK(go(2, 1) == b(2, 1));
    CHECK(co(0, 0) == 7);
    CHECK(co(1, 1) == b(1, 1));
    CHECK(uo(6, 3) == b(4, 3));
}
