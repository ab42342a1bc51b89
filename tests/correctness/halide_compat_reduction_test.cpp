// Reductions as Halide 14 spells them: RDom constructors and queries, where(), updates over
// several dimensions, Tuple updates, and every form of the inline reductions, checked against
// plain C++ on random inputs.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

using namespace tessera;

namespace {

Buffer<int> random_ints(int w, int h, unsigned seed, int lo, int hi) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    Buffer<int> b(w, h);
    b.for_each_value([&](int& v) { v = dist(rng); });
    return b;
}

}  // namespace

TEST_CASE("RDom constructors and queries") {
    RDom a(2, 5);
    CHECK(a.dimensions() == 1);
    CHECK(evaluate<int>(a.x.min()) == 2);
    CHECK(evaluate<int>(a.x.extent()) == 5);
    RDom named(0, 3, 1, 4, "named");
    CHECK(named.dimensions() == 2);
    CHECK(evaluate<int>(named[1].min()) == 1);
    CHECK(evaluate<int>(named.y.extent()) == 4);
    RDom five(0, 2, 0, 3, 0, 1, 0, 2, 0, 3);
    CHECK(five.dimensions() == 5);
    CHECK(evaluate<int>(five[4].extent()) == 3);
    Region region = {Range(-1, 3), Range(4, 2)};
    RDom from_region(region);
    CHECK(from_region.dimensions() == 2);
    CHECK(evaluate<int>(from_region.x.min()) == -1);
    Buffer<float> image(7, 6, 2);
    RDom over_image(image);
    CHECK(over_image.dimensions() == 3);
    CHECK(evaluate<int>(over_image.z.extent()) == 2);
    CHECK(over_image.same_as(over_image));
    CHECK_FALSE(over_image.same_as(a));

    // Sums over each: a five-dimensional RDom and a Region RDom.
    Func count_five, count_region;
    count_five() = 0;
    count_five() += 1 + five[4] * 0;
    count_region() = 0;
    count_region() += from_region.x * from_region.y;
    CHECK(evaluate<int>(count_five()) == 2 * 3 * 1 * 2 * 3);
    int expected = 0;
    for (int y = 4; y < 6; y++)
        for (int x = -1; x < 2; x++) expected += x * y;
    Buffer<int> cr = count_region.realize();
    CHECK(cr() == expected);
}

TEST_CASE("where() restricts an RDom, and several where() clauses combine") {
    Buffer<int> in = random_ints(23, 19, 1, -50, 50);
    RDom r(0, in.width(), 0, in.height());
    r.where(r.x < r.y);
    r.where(in(r.x, r.y) > 0);
    Func lower("lower");
    lower() = 0;
    lower() += in(r.x, r.y);
    Func count_odd("count_odd");
    RDom s(in);
    s.where(in(s.x, s.y) % 2 == 1);
    Var y("y");
    count_odd(y) = 0;
    count_odd(s.y) += 1;
    Buffer<int> out = lower.realize();
    Buffer<int> odd = count_odd.realize({in.height()});
    int expected = 0;
    for (int y = 0; y < in.height(); y++) {
        int odd_here = 0;
        for (int x = 0; x < in.width(); x++) {
            if (x < y && in(x, y) > 0) expected += in(x, y);
            if (((in(x, y) % 2) + 2) % 2 == 1) odd_here++;
        }
        CHECK(odd(y) == odd_here);
    }
    CHECK(out() == expected);
}

TEST_CASE("histograms, with the update compounding into the bins") {
    std::mt19937 rng(2);
    Buffer<uint8_t> in(37, 29);
    in.for_each_value([&](uint8_t& v) { v = uint8_t(rng() % 16); });
    Func hist("hist"), weighted("weighted"), equalize("equalize");
    Var i("i"), x("x"), y("y");
    RDom r(in);
    hist(i) = 0;
    hist(clamp(cast<int>(in(r.x, r.y)), 0, 15)) += 1;  // clamped: bounds follow from the index
    weighted(i) = 0.0f;
    weighted(clamp(cast<int>(in(r.x, r.y)) / 4, 0, 3)) += cast<float>(r.x) * 0.5f;
    // The cumulative histogram as a scan, then a look-up.
    Func cdf("cdf");
    cdf(i) = hist(i);
    RDom b(1, 15);
    cdf(b) = cdf(b - 1) + hist(b);
    equalize(x, y) = cdf(cast<int>(in(x, y)));
    Buffer<int> h = hist.realize({16});
    Buffer<float> w = weighted.realize({4});
    Buffer<int> eq = equalize.realize({in.width(), in.height()});
    std::vector<int> expected(16, 0);
    std::vector<float> expected_w(4, 0.0f);
    for (int yy = 0; yy < in.height(); yy++)
        for (int xx = 0; xx < in.width(); xx++) {
            expected[in(xx, yy)]++;
            expected_w[in(xx, yy) / 4] += float(xx) * 0.5f;
        }
    for (int k = 0; k < 16; k++) CHECK(h(k) == expected[k]);
    for (int k = 0; k < 4; k++) CHECK(w(k) == expected_w[k]);
    std::vector<int> cumulative(16);
    std::partial_sum(expected.begin(), expected.end(), cumulative.begin());
    for (int yy = 0; yy < in.height(); yy++)
        for (int xx = 0; xx < in.width(); xx++) CHECK(eq(xx, yy) == cumulative[in(xx, yy)]);
}

TEST_CASE("updates with the compound operators, over pure Vars and RVars together") {
    Buffer<int> in = random_ints(17, 11, 3, -9, 9);
    Func f("f");
    Var x("x"), y("y");
    RDom r(0, in.height());
    f(x) = 1;
    f(x) += in(x, r);
    f(x) *= 2;
    f(x) -= in(x, 0);
    f(x) /= 3;
    Func g("g");
    g(x, y) = x + y;
    RDom k(0, 3);
    g(x, k) = g(x, k) * 10 + k;  // rows 0..2 rewritten, x stays pure
    Func p("p");
    p(x) = 1;
    p(x) *= in(x, r) % 3 + 2;
    Func s("s");
    s(clamp(in(r, 0), 0, 9) + 9) += 1;  // no pure definition: starts at 0
    Buffer<int> fo = f.realize({in.width()});
    Buffer<int> go = g.realize({in.width(), 5});
    Buffer<int> po = p.realize({in.width()});
    Buffer<int> so = s.realize({19});
    auto floor_div = [](int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    std::vector<int> bins(19, 0);
    for (int yy = 0; yy < in.height(); yy++) bins[std::clamp(in(yy, 0), 0, 9) + 9]++;
    for (int k = 0; k < 19; k++) CHECK(so(k) == bins[k]);
    for (int xx = 0; xx < in.width(); xx++) {
        int column = 0, prod = 1;
        for (int yy = 0; yy < in.height(); yy++) {
            column += in(xx, yy);
            prod *= ((in(xx, yy) % 3) + 3) % 3 + 2;
        }
        CHECK(fo(xx) == floor_div((1 + column) * 2 - in(xx, 0), 3));
        CHECK(po(xx) == prod);
        for (int yy = 0; yy < 5; yy++) CHECK(go(xx, yy) == (yy < 3 ? (xx + yy) * 10 + yy : xx + yy));
    }
}

TEST_CASE("Tuple-valued updates keep their elements in step") {
    Buffer<int> in = random_ints(31, 1, 4, -100, 100);
    Func running("running");
    Var x("x");
    RDom r(0, in.width());
    // Count, sum and sum of squares at once.
    running() = Tuple(0, 0, cast<int64_t>(0));
    running() =
        Tuple(running()[0] + 1, running()[1] + in(r, 0), running()[2] + cast<int64_t>(in(r, 0)) * in(r, 0));
    Realization stats = running.realize();
    Buffer<int> count = stats[0], total = stats[1];
    Buffer<int64_t> squares = stats[2];
    int64_t expected_squares = 0;
    int expected_total = 0;
    for (int i = 0; i < in.width(); i++) {
        expected_total += in(i, 0);
        expected_squares += int64_t(in(i, 0)) * in(i, 0);
    }
    CHECK(count() == in.width());
    CHECK(total() == expected_total);
    CHECK(squares() == expected_squares);
}

TEST_CASE("inline reductions: implicit, with an explicit RDom, into a named Func, and arg-reductions") {
    Buffer<int> in = random_ints(13, 9, 5, -20, 20);
    Var x("x"), y("y");
    RDom r(0, in.height());
    Func col_sum, col_max, col_min, col_prod, box, nested, named_sum, arg_lo, sat;
    col_sum(x) = sum(in(x, r));
    col_max(x) = maximum(in(x, r));
    col_min(x) = minimum(r, in(x, r) * 2);
    col_prod(x) = product(cast<int64_t>(in(x, r) % 4 + 5));
    RDom b(-1, 3, -1, 3);
    box(x, y) = sum(b, in(clamp(x + b.x, 0, 12), clamp(y + b.y, 0, 8)));
    // The inner sum reduces over c only; r stays free and the outer maximum reduces over it.
    RDom c(0, 3);
    nested(x) = maximum(r, sum(c, in(x, r) * (c + 1)));
    Func helper("helper");
    named_sum(x) = sum(in(x, r) * in(x, r), helper);
    Tuple lo = argmin(r, in(x, r));
    arg_lo(x) = Tuple(lo[0], lo[1]);
    Buffer<uint8_t> bytes(13, 9);
    bytes.for_each_element([&](int i, int j) { bytes(i, j) = uint8_t(std::abs(in(i, j)) * 6); });
    sat(x) = saturating_sum(bytes(x, r));
    Buffer<int> s = col_sum.realize({13}), mx = col_max.realize({13}), mn = col_min.realize({13});
    Buffer<int64_t> pr = col_prod.realize({13});
    Buffer<int> bx = box.realize({13, 9}), ne = nested.realize({13}), ns = named_sum.realize({13});
    Realization al = arg_lo.realize({13});
    Buffer<int> al_index = al[0], al_value = al[1];
    Buffer<uint8_t> sa = sat.realize({13});
    CHECK(helper.defined());
    for (int xx = 0; xx < 13; xx++) {
        int total = 0, most = -1000, least = 1000, squares = 0, first_min = 0, bytes_total = 0;
        for (int yy = 0; yy < 9; yy++) {
            const int v = in(xx, yy);
            total += v;
            most = std::max(most, v);
            least = std::min(least, v * 2);
            squares += v * v;
            if (v < in(xx, first_min)) first_min = yy;
            bytes_total += bytes(xx, yy);
        }
        CHECK(s(xx) == total);
        CHECK(mx(xx) == most);
        CHECK(mn(xx) == least);
        CHECK(ns(xx) == squares);
        CHECK(al_index(xx) == first_min);
        CHECK(al_value(xx) == in(xx, first_min));
        CHECK(sa(xx) == std::min(bytes_total, 255));
        int nested_best = -(1 << 30);
        for (int yy = 0; yy < 9; yy++) nested_best = std::max(nested_best, in(xx, yy) * 6);
        CHECK(ne(xx) == nested_best);
        int64_t expected_prod = 1;
        for (int yy = 0; yy < 9; yy++) {
            const int m = in(xx, yy) % 4;  // C's remainder: Halide's % is Euclidean
            expected_prod *= ((m + 4) % 4) + 5;
        }
        CHECK(pr(xx) == expected_prod);
        for (int yy = 0; yy < 9; yy++) {
            int window = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    window += in(std::clamp(xx + dx, 0, 12), std::clamp(yy + dy, 0, 8));
            CHECK(bx(xx, yy) == window);
        }
    }
}

TEST_CASE("argmax over a two-dimensional RDom gives the first maximum's coordinates") {
    Buffer<int> in = random_ints(19, 14, 6, 0, 30);
    RDom r(in);
    Func where_max;
    Tuple am = argmax(in(r.x, r.y));
    where_max() = Tuple(am[0], am[1], am[2]);
    Realization result = where_max.realize();
    Buffer<int> rx = result[0], ry = result[1], value = result[2];
    int bx = 0, by = 0;
    for (int y = 0; y < in.height(); y++)
        for (int x = 0; x < in.width(); x++)
            if (in(x, y) > in(bx, by)) {
                bx = x;
                by = y;
            }
    CHECK(rx() == bx);
    CHECK(ry() == by);
    CHECK(value() == in(bx, by));
}
