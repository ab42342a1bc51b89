// Pointwise expressions against plain C++ on random inputs: arithmetic with Halide's type
// coercion, Euclidean division, casts, math, select, bitwise operators.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <cmath>
#include <random>

using namespace tessera;

namespace {

template <typename T>
Buffer<T> random_buffer(int w, int h, std::mt19937& rng, T lo, T hi) {
    Buffer<T> b(w, h);
    std::uniform_int_distribution<int64_t> d(lo, hi);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = T(d(rng));
    return b;
}

int euclid_div(int a, int b) {
    if (b == 0) return 0;
    int q = a / b, r = a % b;
    if (r < 0) q += b > 0 ? -1 : 1;
    return q;
}

int euclid_mod(int a, int b) {
    if (b == 0) return 0;
    int r = a % b;
    return r < 0 ? r + std::abs(b) : r;
}

}  // namespace

TEST_CASE("a Func of x and y computes its formula at every point") {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x * 3 + y * y - 7;
    Buffer<int> out = f.realize({13, 7});
    REQUIRE(out.width() == 13);
    for (int j = 0; j < 7; j++)
        for (int i = 0; i < 13; i++) CHECK_MESSAGE(out(i, j) == i * 3 + j * j - 7, "at " << i << ", " << j);
}

TEST_CASE("integer division and modulo round toward negative infinity and give zero for zero divisors") {
    std::mt19937 rng(1);
    Buffer<int> a = random_buffer<int>(17, 11, rng, -100, 100), b = random_buffer<int>(17, 11, rng, -7, 7);
    Func q("q"), r("r");
    Var x("x"), y("y");
    q(x, y) = a(x, y) / b(x, y);
    r(x, y) = a(x, y) % b(x, y);
    Buffer<int> qo = q.realize({17, 11}), ro = r.realize({17, 11});
    for (int j = 0; j < 11; j++) {
        for (int i = 0; i < 17; i++) {
            CHECK_MESSAGE(qo(i, j) == euclid_div(a(i, j), b(i, j)), a(i, j) << " / " << b(i, j));
            CHECK_MESSAGE(ro(i, j) == euclid_mod(a(i, j), b(i, j)), a(i, j) << " % " << b(i, j));
        }
    }
}

TEST_CASE("uint8 arithmetic wraps and mixed types follow Halide's coercion rules") {
    std::mt19937 rng(2);
    Buffer<uint8_t> a = random_buffer<uint8_t>(19, 5, rng, 0, 255),
                    b = random_buffer<uint8_t>(19, 5, rng, 0, 255);
    Var x("x"), y("y");
    Func wrap("wrap"), widened("widened"), mixed("mixed"), as_float("as_float");
    wrap(x, y) = a(x, y) + b(x, y);                     // uint8, wraps
    widened(x, y) = cast<uint16_t>(a(x, y)) + b(x, y);  // uint16
    mixed(x, y) = a(x, y) - cast<int8_t>(b(x, y));      // uint8 with int8: a signed int of the wider width
    as_float(x, y) = a(x, y) * 0.5f;                    // float32
    CHECK(wrap.type() == UInt(8));
    CHECK(widened.type() == UInt(16));
    CHECK(mixed.type() == Int(8));
    CHECK(as_float.type() == Float(32));
    Buffer<uint8_t> w = wrap.realize({19, 5});
    Buffer<uint16_t> wd = widened.realize({19, 5});
    Buffer<int8_t> m = mixed.realize({19, 5});
    Buffer<float> fl = as_float.realize({19, 5});
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 19; i++) {
            CHECK(w(i, j) == uint8_t(a(i, j) + b(i, j)));
            CHECK(wd(i, j) == uint16_t(a(i, j) + b(i, j)));
            CHECK(m(i, j) == int8_t(int8_t(a(i, j)) - int8_t(b(i, j))));
            CHECK(fl(i, j) == a(i, j) * 0.5f);
        }
    }
}

TEST_CASE("casts between integer and float types match C++") {
    Var x("x");
    Func to_int("to_int"), to_u8("to_u8"), to_float("to_float");
    Expr v = cast<float>(x) * 0.37f - 5.0f;
    to_int(x) = cast<int>(v);
    to_u8(x) = cast<uint8_t>(x * 37 - 1000);
    to_float(x) = cast<double>(cast<int16_t>(x * 1000));
    Buffer<int> i = to_int.realize({41});
    Buffer<uint8_t> u = to_u8.realize({41});
    Buffer<double> d = to_float.realize({41});
    for (int k = 0; k < 41; k++) {
        CHECK(i(k) == int(float(k) * 0.37f - 5.0f));
        CHECK(u(k) == uint8_t(k * 37 - 1000));
        CHECK(d(k) == double(int16_t(k * 1000)));
    }
}

TEST_CASE("math functions match the C library") {
    Var x("x");
    Func f("f");
    Expr v = cast<float>(x) / 7.0f + 0.1f;
    f(x) = Tuple(sqrt(v), exp(v), log(v), pow(v, 1.5f), sin(v), cos(v), tan(v), tanh(v));
    Func g("g");
    Expr s = cast<float>(x) / 4.0f - 5.0f;
    g(x) = Tuple(floor(s), ceil(s), round(s), trunc(s), abs(s));
    Realization r = f.realize({37});
    Realization rg = g.realize({37});
    for (int k = 0; k < 37; k++) {
        float a = float(k) / 7.0f + 0.1f;
        float expect[] = {std::sqrt(a), std::exp(a), std::log(a), std::pow(a, 1.5f),
                          std::sin(a),  std::cos(a), std::tan(a), std::tanh(a)};
        for (int i = 0; i < 8; i++) {
            Buffer<float> out = r[i];
            CHECK_MESSAGE(out(k) == doctest::Approx(expect[i]).epsilon(1e-6),
                          "function " << i << " at " << a);
        }
        float b = float(k) / 4.0f - 5.0f;
        float expect_g[] = {std::floor(b), std::ceil(b), std::nearbyint(b), std::trunc(b), std::fabs(b)};
        for (int i = 0; i < 5; i++) {
            Buffer<float> out = rg[i];
            CHECK_MESSAGE(out(k) == expect_g[i], "rounding function " << i << " at " << b);
        }
    }
}

TEST_CASE("fma rounds once, as C's fma does, in scalar and in vector code") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    const int n = 53;
    Buffer<float> a(n), b(n), c(n);
    for (int i = 0; i < n; i++) a(i) = d(rng), b(i) = d(rng), c(i) = d(rng);
    Var x("x");
    Func scalar("scalar"), vector("vector");
    scalar(x) = fma(a(x), b(x), c(x));
    vector(x) = fma(a(x), b(x), c(x));
    vector.vectorize(x, 8);
    Buffer<float> s = scalar.realize({n}), v = vector.realize({n});
    int unfused_differs = 0;
    for (int i = 0; i < n; i++) {
        const float expect = std::fma(a(i), b(i), c(i));
        CHECK_MESSAGE(s(i) == expect, "scalar fma at " << i);
        CHECK_MESSAGE(v(i) == expect, "vector fma at " << i);
        volatile float product = a(i) * b(i);
        unfused_differs += product + c(i) != expect;
    }
    // The inputs are such that rounding twice would give other bits somewhere.
    CHECK(unfused_differs > 0);
}

TEST_CASE("abs of a signed integer is unsigned, and is_nan finds NaNs") {
    Var x("x");
    Func a("a"), n("n");
    a(x) = abs(cast<int8_t>(x * 40 - 128));
    n(x) = select(is_nan(sqrt(cast<float>(x) - 3.0f)), 1, 0);
    CHECK(a.type() == UInt(8));
    Buffer<uint8_t> ao = a.realize({7});
    Buffer<int> no = n.realize({7});
    for (int k = 0; k < 7; k++) {
        int v = int8_t(k * 40 - 128);
        CHECK(ao(k) == uint8_t(std::abs(v)));
        CHECK(no(k) == (k < 3 ? 1 : 0));
    }
}

TEST_CASE("select, min, max, clamp and logical operators") {
    std::mt19937 rng(3);
    Buffer<int> a = random_buffer<int>(23, 3, rng, -50, 50);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = select(a(x, y) > 10 && a(x, y) < 40, min(a(x, y), 20), a(x, y) < -20 || x == 3,
                     max(a(x, y), -30), clamp(a(x, y), -5, 5));
    Buffer<int> out = f.realize({23, 3});
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 23; i++) {
            int v = a(i, j);
            int expect = (v > 10 && v < 40)    ? std::min(v, 20)
                         : (v < -20 || i == 3) ? std::max(v, -30)
                                               : std::clamp(v, -5, 5);
            CHECK_MESSAGE(out(i, j) == expect, "at " << i << ", " << j << " with " << v);
        }
    }
}

TEST_CASE("bitwise operators and shifts") {
    std::mt19937 rng(4);
    Buffer<uint32_t> a = random_buffer<uint32_t>(29, 2, rng, 0, 0xffffffffu);
    Buffer<int> s = random_buffer<int>(29, 2, rng, 0, 31);
    Var x("x"), y("y");
    Func f("f");
    Expr v = a(x, y), k = cast<uint32_t>(s(x, y));
    f(x, y) = Tuple((v & 0xff) | (v << k), v ^ (v >> k), ~v);
    Realization r = f.realize({29, 2});
    Buffer<uint32_t> r0 = r[0], r1 = r[1], r2 = r[2];
    for (int j = 0; j < 2; j++) {
        for (int i = 0; i < 29; i++) {
            uint32_t va = a(i, j), ks = uint32_t(s(i, j));
            CHECK(r0(i, j) == ((va & 0xffu) | (va << ks)));
            CHECK(r1(i, j) == (va ^ (va >> ks)));
            CHECK(r2(i, j) == ~va);
        }
    }
}

TEST_CASE("a negative signed shift amount shifts the other way") {
    Var x("x");
    Func f("f");
    f(x) = Expr(256) << (x - 4);
    Buffer<int> out = f.realize({9});
    for (int k = 0; k < 9; k++)
        CHECK_MESSAGE(out(k) == (k >= 4 ? 256 << (k - 4) : 256 >> (4 - k)), "shift " << k - 4);
}
