// Update definitions over RDoms and inline reductions against plain C++.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <random>

using namespace tessera;

namespace {

Buffer<uint8_t> random_bytes(int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    Buffer<uint8_t> b(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = uint8_t(rng());
    return b;
}

}  // namespace

TEST_CASE("a histogram writes at data-dependent locations") {
    Buffer<uint8_t> in = random_bytes(53, 31, 7);
    Func hist("hist");
    Var i("i");
    RDom r(in);
    hist(i) = 0;
    hist(in(r.x, r.y)) += 1;
    Buffer<int> out = hist.realize({256});
    std::vector<int> expected(256, 0);
    for (int y = 0; y < 31; y++)
        for (int x = 0; x < 53; x++) expected[in(x, y)]++;
    for (int k = 0; k < 256; k++) CHECK_MESSAGE(out(k) == expected[k], "bin " << k);
}

TEST_CASE("a two-dimensional RDom sums each column, and where() skips points") {
    Buffer<uint8_t> in = random_bytes(13, 17, 8);
    Func col("col"), odd("odd");
    Var x("x");
    RDom r(0, 17, "r");
    col(x) = 0;
    col(x) += cast<int>(in(x, r));
    RDom s(0, 13, 0, 17, "s");
    s.where((s.x + s.y) % 2 == 1);
    odd() = 0;
    odd() += cast<int>(in(s.x, s.y));
    Buffer<int> c = col.realize({13});
    Buffer<int> o = odd.realize();
    int odd_sum = 0;
    for (int xx = 0; xx < 13; xx++) {
        int sum = 0;
        for (int y = 0; y < 17; y++) {
            sum += in(xx, y);
            if ((xx + y) % 2 == 1) odd_sum += in(xx, y);
        }
        CHECK(c(xx) == sum);
    }
    CHECK(o() == odd_sum);
}

TEST_CASE("a recursive scan reads values its own update wrote") {
    Func f("f");
    Var x("x");
    RDom r(1, 19);
    f(x) = x % 3;
    f(r) = f(r - 1) * 2 + f(r);
    Buffer<int> out = f.realize({20});
    std::vector<int> expected(20);
    for (int i = 0; i < 20; i++) expected[i] = i % 3;
    for (int i = 1; i < 20; i++) expected[i] = expected[i - 1] * 2 + expected[i];
    for (int i = 0; i < 20; i++) CHECK_MESSAGE(out(i) == expected[i], "at " << i);
}

TEST_CASE("compound updates -=, *= and /= apply in order") {
    Func f("f");
    Var x("x");
    f(x) = x + 100;
    f(x) -= 7;
    f(x) *= 3;
    f(x) /= 4;
    Buffer<int> out = f.realize({9});
    for (int i = 0; i < 9; i++) CHECK(out(i) == ((i + 100 - 7) * 3) / 4);
}

TEST_CASE("inline reductions sum, product, maximum and minimum") {
    Buffer<uint8_t> in = random_bytes(11, 6, 9);
    Func s("s"), p("p"), mx("mx"), mn("mn");
    Var x("x");
    RDom r(0, 6);
    s(x) = sum(cast<int>(in(x, r)));
    p(x) = product(cast<double>(in(x, r)) / 100.0);
    mx(x) = maximum(in(x, r));
    mn(x) = minimum(in(x, r));
    Buffer<int> so = s.realize({11});
    Buffer<double> po = p.realize({11});
    Buffer<uint8_t> mxo = mx.realize({11}), mno = mn.realize({11});
    for (int i = 0; i < 11; i++) {
        int es = 0, emx = 0, emn = 255;
        double ep = 1;
        for (int y = 0; y < 6; y++) {
            es += in(i, y);
            ep *= in(i, y) / 100.0;
            emx = std::max(emx, int(in(i, y)));
            emn = std::min(emn, int(in(i, y)));
        }
        CHECK(so(i) == es);
        CHECK(po(i) == ep);
        CHECK(mxo(i) == emx);
        CHECK(mno(i) == emn);
    }
}

TEST_CASE("argmax and argmin find the first extreme point") {
    Buffer<uint8_t> in = random_bytes(9, 7, 10);
    in(4, 2) = 255;
    in(6, 5) = 255;
    in(1, 1) = 0;
    Func am("am"), an("an");
    RDom r(0, 9, 0, 7);
    am() = argmax(in(r.x, r.y));
    an() = argmin(in(r.x, r.y));
    Realization ra = am.realize(), rn = an.realize();
    Buffer<int> ax = ra[0], ay = ra[1], nx = rn[0], ny = rn[1];
    Buffer<uint8_t> av = ra[2];
    int bx = 0, by = 0, cx = 0, cy = 0;
    for (int y = 0; y < 7; y++) {
        for (int x = 0; x < 9; x++) {
            if (in(x, y) > in(bx, by)) bx = x, by = y;
            if (in(x, y) < in(cx, cy)) cx = x, cy = y;
        }
    }
    CHECK(ax() == bx);
    CHECK(ay() == by);
    CHECK(av() == 255);
    CHECK(nx() == cx);
    CHECK(ny() == cy);
}

TEST_CASE("Tuple-valued Funcs and updates compute every element") {
    Func f("f");
    Var x("x");
    RDom r(0, 5);
    f(x) = Tuple(x, cast<float>(x) * 0.5f);
    f(x) = Tuple(f(x)[0] + r, f(x)[1] * 2.0f);
    Realization out = f.realize({6});
    Buffer<int> a = out[0];
    Buffer<float> b = out[1];
    for (int i = 0; i < 6; i++) {
        CHECK(a(i) == i + 0 + 1 + 2 + 3 + 4);
        CHECK(b(i) == i * 0.5f * 32.0f);
    }
}

TEST_CASE("an update covers what later updates of the same Func read, whatever region is needed") {
    // f's first update doubles every point; the scan after it reads f(r - 1, y) for r in [1, 9],
    // so the doubling must reach x = 0 even though the consumer needs only x in [4, 9].
    for (bool tiled : {false, true}) {
        Func f("f"), g("g");
        Var x("x"), y("y"), xo("xo"), xi("xi");
        RDom r(1, 9, "r");
        f(x, y) = x + 10 * y;
        f(x, y) = f(x, y) * 2;
        f(r, y) = f(r - 1, y) + f(r, y);
        g(x, y) = f(x, y);
        if (tiled) {
            g.split(x, xo, xi, 3);
            f.compute_at(g, xo);
        } else {
            f.compute_root();
        }
        Buffer<int> out(6, 2);
        out.set_min(4, 0);
        g.realize(out);
        for (int yy = 0; yy < 2; yy++) {
            std::vector<int> row(10);
            for (int xx = 0; xx < 10; xx++) row[xx] = (xx + 10 * yy) * 2;
            for (int rr = 1; rr < 10; rr++) row[rr] += row[rr - 1];
            for (int xx = 4; xx < 10; xx++)
                CHECK_MESSAGE(out(xx, yy) == row[xx], (tiled ? "tiled" : "root")
                                                          << " at " << xx << ", " << yy);
        }
    }
}
