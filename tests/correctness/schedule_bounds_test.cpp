// Schedules whose regions bounds inference must find, each once rejected with "cannot infer the
// region" or an output written out of bounds although Halide 14 accepts it (found by
// random_schedule_test): guarded splits of inner loops, fused loops computed inside other loops,
// nests of compute_at levels deep enough that substituted bounds outgrew their size limit, and
// storage outside a loop whose bounds, bounded over the loop, lost that they move together, and
// regions over fused and split loops whose ends repeat the same subexpressions past that limit, and
// a sliding window that moved what the Funcs computed beside the slid one read.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace tessera;

TEST_CASE("a GuardWithIf split of an inner loop writes no point past the output") {
    Func f("f");
    Var x("x"), y("y"), yo("yo"), yi("yi"), yio("yio"), yii("yii");
    f(x, y) = x + 100 * y;
    // yi has extent 2; splitting it by 5 with a guard must keep y below 51.
    f.split(y, yo, yi, 2).split(yi, yio, yii, 5, TailStrategy::GuardWithIf);
    Buffer<int> out = f.realize({4, 51});
    for (int yy = 0; yy < 51; yy++)
        for (int xx = 0; xx < 4; xx++) CHECK_MESSAGE(out(xx, yy) == xx + 100 * yy, "at " << xx << ", " << yy);
}

TEST_CASE("fusing the outer loops of a RoundUp tile keeps the region bounded") {
    Func g("g"), f("f");
    Var x("x"), y("y"), xi("xi"), yi("yi"), t("t");
    g(x, y) = x * 3 + y;
    f(x, y) = g(x, y - 1);
    g.compute_root().tile(x, y, xi, yi, 6, 13, TailStrategy::RoundUp).fuse(x, y, t);
    Buffer<int> out = f.realize({23, 10});
    for (int yy = 0; yy < 10; yy++)
        for (int xx = 0; xx < 23; xx++)
            CHECK_MESSAGE(out(xx, yy) == xx * 3 + yy - 1, "at " << xx << ", " << yy);
}

TEST_CASE("a Func computed inside a fused loop of a Func computed per tile") {
    Func in("in"), a("a"), b("b"), out("out");
    Var x("x"), y("y"), xi("xi"), yi("yi"), t("t");
    in(x, y) = x + 2 * y;
    a(x, y) = in(x, y) * 5;
    b(x, y) = a(x, y) + 1;
    out(x, y) = b(x, y);
    out.tile(x, y, xi, yi, 8, 8);
    b.compute_at(out, x).fuse(x, y, t);
    a.compute_at(b, t);
    in.compute_root();
    Buffer<int> result = out.realize({60, 20});
    for (int yy = 0; yy < 20; yy++)
        for (int xx = 0; xx < 60; xx++)
            CHECK_MESSAGE(result(xx, yy) == (xx + 2 * yy) * 5 + 1, "at " << xx << ", " << yy);
}

TEST_CASE("a fused Func computed at an RVar loop of an update") {
    Func in("in"), a("a"), f("f");
    Var x("x"), y("y"), t("t");
    RDom r(11, 5, "r");
    in(x, y) = x + y;
    a(x, y) = in(x, y) * 2;
    f(x, y) = x;
    f(r, y) = f(r, y) + a(r - 1, y + 2);
    a.compute_at(f, r.x).fuse(x, y, t);
    in.compute_root();
    Buffer<int> out = f.realize({34, 6});
    for (int yy = 0; yy < 6; yy++)
        for (int xx = 0; xx < 34; xx++) {
            const int expected = xx >= 11 && xx < 16 ? xx + (xx - 1 + yy + 2) * 2 : xx;
            CHECK_MESSAGE(out(xx, yy) == expected, "at " << xx << ", " << yy);
        }
}

TEST_CASE("a chain of seven Funcs, each split and computed inside the next") {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    std::vector<Func> f;
    Func in("in");
    in(x, y) = x + y;
    f.push_back(in);
    for (int i = 1; i <= 7; i++) {
        Func g("f" + std::to_string(i));
        g(x, y) = f.back()(x, y) + f.back()(x + 1, y);
        f.push_back(g);
    }
    // Every split shifts its last tile inwards: the regions of the inner Funcs are nests of min().
    f[7].split(x, xo, xi, 8);
    for (int i = 6; i >= 1; i--) f[size_t(i)].compute_at(f[size_t(i) + 1], xo).split(x, xo, xi, 8);
    in.compute_root();
    Buffer<int> out = f[7].realize({40, 4});
    static const int binomial[] = {1, 7, 21, 35, 35, 21, 7, 1};
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 40; xx++) {
            int expected = 0;
            for (int k = 0; k <= 7; k++) expected += binomial[k] * (xx + k + yy);
            CHECK_MESSAGE(out(xx, yy) == expected, "at " << xx << ", " << yy);
        }
}

TEST_CASE("a Func stored at the root and computed per row, read there by a fused and split Func") {
    Func in("in"), a("a"), b("b"), out("out");
    Var x("x"), y("y"), xo("xo"), xi("xi"), t("t"), to("to"), ti("ti");
    in(x, y) = x + 2 * y;
    a(x, y) = in(x + 1, y + 1) + in(x - 1, y - 4);
    b(x, y) = a(x, y) + in(x, y);
    out(x, y) = b(x + 1, y + 1);
    b.compute_at(out, x).store_at(out, y).split(x, xo, xi, 7);
    // In each row of out, a covers one row: the bounds of its y loop are both out's y + 1. The
    // storage of in, bounded over all rows, must see that they differ by 0 to stay bounded.
    a.compute_at(out, y).fuse(x, y, t).split(t, to, ti, 8, TailStrategy::GuardWithIf);
    in.compute_at(out, y).store_root();
    Buffer<int> result = out.realize({60, 57});
    for (int yy = 0; yy < 57; yy++)
        for (int xx = 0; xx < 60; xx++)
            CHECK_MESSAGE(result(xx, yy) == 3 * xx + 6 * yy + 3, "at " << xx << ", " << yy);
}

TEST_CASE("a fused update computed per parallel task of a fused, vectorized Func") {
    // The region of the boundary condition's Func, computed at the fused loop, is bounded over the
    // fused and split loops around it; written out, its ends repeated the same subexpressions past
    // the size limit of interval arithmetic, which dropped them ("cannot infer the region").
    Buffer<int32_t> input(3, 2);
    for (int yy = 0; yy < 2; yy++)
        for (int xx = 0; xx < 3; xx++) input(xx, yy) = 40503 * xx - 27211 * yy + 1234;
    Func in = BoundaryConditions::constant_exterior(input, 196);
    Func s0("s0"), s1("s1");
    Var x("x"), y("y"), xy("xy"), xy_task("xy_task"), xo("xo"), xi("xi"), uv("uv");
    RDom r(-2, 2, "r");
    RVar rx("rx");
    s0(x, y) = max(in(x, y) & 0xffff, y);
    r.where(r.x % 2 != 0);
    s0(x, r.x) = ((s0(x, r.x) & 0xffff) * 3) ^ ((r.x + r.x) * 2);
    s1(x, y) = cast<uint16_t>(select(min(s0(x - 2, y - 1) & 0xffff, s0(x - 2, y) & 0xffff) * 4 <
                                         (((s0(x + 2, y + 1) & 0xffff) / 8) ^ (s0(x - 1, y - 1) & 0xffff)),
                                     (s0(x - 2, y) & 0xffff) - (x - (in(x + 1, y - 2) & 0xffff)),
                                     ((s0(x - 2, y) & 0xffff) ^ (s0(x - 2, y + 1) & 0xffff)) - 8));
    s1.fuse(x, y, xy).vectorize(xy, 15, TailStrategy::GuardWithIf).parallel(xy, 4, TailStrategy::GuardWithIf);
    s0.compute_at(s1, xy_task).split(x, xo, xi, 7).reorder_storage(y, x);
    s0.update(0).fuse(r.x, x, rx);
    in.compute_at(s1, xy).fuse(_0, _1, uv);
    Buffer<uint16_t> result = s1.realize({5, 1});

    auto in_ref = [&](int xx, int yy) {
        return xx >= 0 && xx < 3 && yy >= 0 && yy < 2 ? input(xx, yy) : 196;
    };
    auto s0_ref = [&](int xx, int yy) {
        const int v = std::max(in_ref(xx, yy) & 0xffff, yy);
        return yy == -1 ? ((v & 0xffff) * 3) ^ -4 : v;  // the update's only r.x with r.x % 2 != 0
    };
    for (int xx = 0; xx < 5; xx++) {
        const int yy = 0;
        const bool first = std::min(s0_ref(xx - 2, yy - 1) & 0xffff, s0_ref(xx - 2, yy) & 0xffff) * 4 <
                           (((s0_ref(xx + 2, yy + 1) & 0xffff) / 8) ^ (s0_ref(xx - 1, yy - 1) & 0xffff));
        const int expected = first ? (s0_ref(xx - 2, yy) & 0xffff) - (xx - (in_ref(xx + 1, yy - 2) & 0xffff))
                                   : ((s0_ref(xx - 2, yy) & 0xffff) ^ (s0_ref(xx - 2, yy + 1) & 0xffff)) - 8;
        CHECK_MESSAGE(result(xx, 0) == uint16_t(expected), "at x = " << xx);
    }
}

TEST_CASE("a Func slid over a loop does not slide the Funcs computed beside it past their regions") {
    Func in("in"), shifted("shifted"), window("window"), out("out");
    Var x("x"), y("y"), xi("xi"), yi("yi"), yo("yo"), yii("yii");
    in(x, y) = x + 100 * y;
    shifted(x, y) = in(x, y - 1) * 2;
    window(x, y) = shifted(x, y) + 1;
    out(x, y) = window(x, y) + window(x, y + 2);
    out.tile(x, y, xi, yi, 3, 2);
    in.compute_at(out, y);
    // window is stored per tile and computed per row of it: from the second row on, it computes
    // only its new row. shifted, computed beside it in rows of 8 from the min, must still read only
    // the rows of `in` computed for the tile.
    window.compute_at(out, yi).store_at(out, x);
    shifted.compute_at(out, yi).split(y, yo, yii, 8, TailStrategy::RoundUp);
    for (const char* target : {"host", "host-check_bounds"}) {
        Buffer<int> result = out.realize({3, 11}, Target(target));
        for (int yy = 0; yy < 11; yy++)
            for (int xx = 0; xx < 3; xx++) {
                const int expected = (xx + 100 * (yy - 1)) * 2 + 1 + (xx + 100 * (yy + 1)) * 2 + 1;
                CHECK_MESSAGE(result(xx, yy) == expected, target << " at " << xx << ", " << yy);
            }
    }
}
