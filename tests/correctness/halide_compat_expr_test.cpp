// Expressions as a Halide 14 program writes them: constants and their types, the coercion of mixed
// operands, Euclidean division, shifts, bools, and the math library, each checked against plain
// C++ on random inputs.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

using namespace tessera;

namespace {

template <typename T>
Buffer<T> random_buffer(int n, unsigned seed, int64_t lo, int64_t hi) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> dist(lo, hi);
    Buffer<T> b(n);
    for (int i = 0; i < n; i++) b(i) = T(dist(rng));
    return b;
}

Buffer<float> random_floats(int n, unsigned seed, float lo, float hi) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    Buffer<float> b(n);
    for (int i = 0; i < n; i++) b(i) = dist(rng);
    return b;
}

// Euclidean division and modulo, the reference for Halide's integer / and %.
int64_t euclid_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t q = a / b, r = a % b;
    if (r < 0) q += b > 0 ? -1 : 1;
    return q;
}
int64_t euclid_mod(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t r = a % b;
    return r < 0 ? r + (b > 0 ? b : -b) : r;
}

bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

TEST_CASE("constants and mixed operands have Halide's types") {
    Var x;
    CHECK(Expr(int8_t(3)).type() == Int(8));
    CHECK(Expr(int16_t(3)).type() == Int(16));
    CHECK(Expr(3).type() == Int(32));
    CHECK(Expr(uint8_t(3)).type() == UInt(8));
    CHECK(Expr(uint16_t(3)).type() == UInt(16));
    CHECK(Expr(uint32_t(3)).type() == UInt(32));
    CHECK(Expr(uint64_t(3)).type() == UInt(64));
    CHECK(Expr(1.5f).type() == Float(32));
    CHECK(Expr(1.5).type() == Float(64));
    CHECK(Expr(true).type() == Int(32));

    Expr u8 = cast<uint8_t>(x), u16 = cast<uint16_t>(x), u32 = cast<uint32_t>(x), u64 = cast<uint64_t>(x);
    Expr i8 = cast<int8_t>(x), i16 = cast<int16_t>(x), i64 = cast<int64_t>(x);
    Expr f32 = cast<float>(x), f64 = cast<double>(x), b = x > 3;
    CHECK((u8 + i8).type() == Int(8));
    CHECK((u8 + i16).type() == Int(16));
    CHECK((u16 + i8).type() == Int(16));
    CHECK((u32 + i8).type() == Int(32));
    CHECK((u64 + x).type() == Int(64));
    CHECK((u8 + u16).type() == UInt(16));
    CHECK((i8 + i64).type() == Int(64));
    CHECK((u8 + f32).type() == Float(32));
    CHECK((i64 + f32).type() == Float(32));
    CHECK((f32 + f64).type() == Float(64));
    CHECK((u8 + 1).type() == UInt(8));
    CHECK((1 - u8).type() == UInt(8));
    CHECK((u8 * 1.5f).type() == Float(32));
    CHECK((f64 + 1.5f).type() == Float(64));
    CHECK((x / 3.0f).type() == Float(32));
    CHECK((b + u8).type() == UInt(8));
    CHECK((b + 1).type() == Bool());
    CHECK((b + 1.0f).type() == Float(32));
    CHECK((u8 == 3).type() == Bool());
    CHECK((u8 < i8).type() == Bool());
    CHECK((u8 & 3).type() == UInt(8));
    CHECK((u8 | u16).type() == UInt(16));
    CHECK((i8 ^ i16).type() == Int(16));
    CHECK((u8 << 2).type() == UInt(8));
    CHECK((x << u8).type() == Int(32));
    CHECK(abs(i8).type() == UInt(8));
    CHECK(abs(x).type() == UInt(32));
    CHECK(abs(u8).type() == UInt(8));
    CHECK(abs(f32).type() == Float(32));
    CHECK(absd(i8, i8).type() == UInt(8));
    CHECK(absd(f32, f32).type() == Float(32));
    CHECK(min(u8, 3).type() == UInt(8));
    CHECK(min(u8, i8).type() == Int(8));
    CHECK(max(f32, 1).type() == Float(32));
    CHECK(min(u8, 1.5f).type() == Float(32));
    CHECK(clamp(u8, 0, 10).type() == UInt(8));
    CHECK(sqrt(x).type() == Float(32));
    CHECK(sqrt(f64).type() == Float(64));
    CHECK(exp(i64).type() == Float(32));
    CHECK(floor(x).type() == Float(32));
    CHECK(pow(x, 2).type() == Int(32));
    CHECK(pow(f64, 2).type() == Float(64));
    CHECK(pow(f32, f64).type() == Float(32));
    CHECK(select(b, u8, 3).type() == UInt(8));
    CHECK(select(b, 3, u8).type() == UInt(8));
    CHECK(is_nan(f32).type() == Bool());
    CHECK(lerp(u8, u8, 0.5f).type() == UInt(8));
    CHECK(Int(32).max().type() == Int(32));
    CHECK(UInt(8).max().type() == UInt(8));

    Expr e = u8;
    e += 300;  // the right side is converted to the left side's type first
    CHECK(e.type() == UInt(8));
    Expr g = x;
    g *= 1.5f;
    CHECK(g.type() == Int(32));
}

TEST_CASE("Type describes itself and type_of maps C++ types") {
    CHECK(type_of<uint8_t>() == UInt(8));
    CHECK(type_of<int16_t>() == Int(16));
    CHECK(type_of<float>() == Float(32));
    CHECK(type_of<double>() == Float(64));
    CHECK(type_of<bool>() == Bool());
    Type t = Int(32);
    CHECK(t.bits() == 32);
    CHECK(t.bytes() == 4);
    CHECK(t.is_int());
    CHECK_FALSE(t.is_uint());
    CHECK(t.is_scalar());
    CHECK(t.with_bits(16) == Int(16));
    CHECK(t.with_code(Type::UInt) == UInt(32));
    CHECK(UInt(1).is_bool());
    CHECK(Float(64).is_float());
    CHECK(UInt(8).can_represent(UInt(4)));
    CHECK_FALSE(UInt(8).can_represent(Int(8)));
    CHECK(Int(16).can_represent(UInt(8)));
    CHECK(evaluate<int>(Int(32).max()) == std::numeric_limits<int>::max());
    CHECK(evaluate<int8_t>(Int(8).min()) == -128);
    CHECK(evaluate<uint16_t>(UInt(16).max()) == 65535);
}

TEST_CASE("evaluate computes a scalar expression, and a Tuple into several results") {
    CHECK(evaluate<int>(Expr(7) * 6 - 2) == 40);
    CHECK(evaluate<float>(sqrt(Expr(2.0f))) == std::sqrt(2.0f));
    CHECK(evaluate<double>(Expr(0.1) * Expr(3.0)) == 0.1 * 3.0);
    CHECK(evaluate<uint8_t>(cast<uint8_t>(Expr(300))) == uint8_t(300));
    CHECK(evaluate<int>(Expr(-7) / 2) == -4);
    CHECK(evaluate<bool>(Expr(3) > 2));
    int a = 0;
    float b = 0;
    evaluate(Tuple(Expr(3) + 4, Expr(1.5f) * 2), &a, &b);
    CHECK(a == 7);
    CHECK(b == 3.0f);
    CHECK_THROWS_AS(evaluate<float>(Expr(3)), CompileError);
}

TEST_CASE("integer division and modulo are Euclidean and give zero when dividing by zero") {
    const int n = 251;
    Buffer<int32_t> a = random_buffer<int32_t>(n, 1, -100000, 100000);
    Buffer<int32_t> b = random_buffer<int32_t>(n, 2, -9, 9);
    Buffer<int8_t> a8 = random_buffer<int8_t>(n, 3, -128, 127);
    Buffer<int8_t> b8 = random_buffer<int8_t>(n, 4, -128, 127);
    Buffer<uint16_t> u = random_buffer<uint16_t>(n, 5, 0, 65535);
    Func div("div"), mod("mod"), div8("div8"), mod8("mod8"), divc("divc"), modc("modc"), udiv("udiv");
    Var x;
    div(x) = a(x) / b(x);
    mod(x) = a(x) % b(x);
    div8(x) = a8(x) / b8(x);
    mod8(x) = a8(x) % b8(x);
    divc(x) = a(x) / -7 + a(x) / 8;
    modc(x) = a(x) % -7 + a(x) % 8;
    udiv(x) = u(x) / (u(x) % 13) + u(x) % (u(x) / 1000);
    Buffer<int32_t> d = div.realize({n}), m = mod.realize({n}), dc = divc.realize({n}),
                    mc = modc.realize({n});
    Buffer<int8_t> d8 = div8.realize({n}), m8 = mod8.realize({n});
    Buffer<uint16_t> ud = udiv.realize({n});
    for (int i = 0; i < n; i++) {
        CHECK_MESSAGE(d(i) == euclid_div(a(i), b(i)), a(i) << " / " << b(i));
        CHECK_MESSAGE(m(i) == euclid_mod(a(i), b(i)), a(i) << " % " << b(i));
        CHECK(d8(i) == int8_t(euclid_div(a8(i), b8(i))));
        CHECK(m8(i) == int8_t(euclid_mod(a8(i), b8(i))));
        CHECK(dc(i) == euclid_div(a(i), -7) + euclid_div(a(i), 8));
        CHECK(mc(i) == euclid_mod(a(i), -7) + euclid_mod(a(i), 8));
        const int uq = u(i) % 13, ur = u(i) / 1000;
        CHECK(ud(i) == uint16_t((uq ? u(i) / uq : 0) + (ur ? u(i) % ur : 0)));
    }
}

TEST_CASE("narrow integer arithmetic wraps, and bools stay bools as in Halide") {
    const int n = 97;
    Buffer<uint8_t> p = random_buffer<uint8_t>(n, 6, 0, 255), q = random_buffer<uint8_t>(n, 7, 0, 255);
    Buffer<int8_t> s = random_buffer<int8_t>(n, 8, -128, 127);
    Func sum8("sum8"), mixed("mixed"), neg("neg"), flip("flip"), both("both"), low_bit("low_bit");
    Var x;
    sum8(x) = p(x) + q(x) * 3;
    mixed(x) = p(x) + s(x);  // uint8 with int8 is int8
    neg(x) = -p(x);
    flip(x) = (p(x) > 100) + 1;  // bool + 1 wraps: !(p > 100)
    both(x) = (p(x) > 100) * (q(x) > 100);
    low_bit(x) = cast<bool>(p(x));  // as in Halide, the lowest bit
    Buffer<uint8_t> a = sum8.realize({n}), c = neg.realize({n});
    Buffer<int8_t> b = mixed.realize({n});
    Buffer<bool> f = flip.realize({n}), g = both.realize({n}), h = low_bit.realize({n});
    for (int i = 0; i < n; i++) {
        CHECK(a(i) == uint8_t(p(i) + q(i) * 3));
        CHECK(b(i) == int8_t(int8_t(p(i)) + s(i)));
        CHECK(c(i) == uint8_t(-p(i)));
        CHECK(f(i) == !(p(i) > 100));
        CHECK(g(i) == (p(i) > 100 && q(i) > 100));
        CHECK(h(i) == bool(p(i) & 1));
    }
}

TEST_CASE("shifts keep the left type, and a negative signed amount shifts the other way") {
    const int n = 131;
    Buffer<int32_t> v = random_buffer<int32_t>(n, 9, INT32_MIN, INT32_MAX);
    Buffer<int32_t> amount = random_buffer<int32_t>(n, 10, -31, 31);
    Buffer<uint8_t> u = random_buffer<uint8_t>(n, 11, 0, 255);
    Buffer<int8_t> small = random_buffer<int8_t>(n, 12, -7, 7);
    Func left("left"), right("right"), uleft("uleft"), uright("uright"), bits("bits");
    Var x;
    left(x) = v(x) << amount(x);
    right(x) = v(x) >> amount(x);
    uleft(x) = u(x) << small(x);
    uright(x) = u(x) >> small(x);
    bits(x) = (v(x) & 0xff) | (v(x) ^ ~amount(x));
    Buffer<int32_t> l = left.realize({n}), r = right.realize({n}), bi = bits.realize({n});
    Buffer<uint8_t> ul = uleft.realize({n}), ur = uright.realize({n});
    auto shl = [](int64_t value, int k) {
        return k >= 0 ? int32_t(uint32_t(value) << k) : int32_t(value >> -k);
    };
    for (int i = 0; i < n; i++) {
        CHECK(l(i) == shl(v(i), amount(i)));
        CHECK(r(i) == shl(v(i), -amount(i)));
        const int k = small(i);
        CHECK(ul(i) == uint8_t(k >= 0 ? u(i) << k : u(i) >> -k));
        CHECK(ur(i) == uint8_t(k >= 0 ? u(i) >> k : u(i) << -k));
        CHECK(bi(i) == ((v(i) & 0xff) | (v(i) ^ ~amount(i))));
    }
}

TEST_CASE("select, clamp and mux coerce integer constants as Halide does") {
    const int n = 73;
    Buffer<uint8_t> p = random_buffer<uint8_t>(n, 13, 0, 255);
    Buffer<int32_t> k = random_buffer<int32_t>(n, 14, -3, 6);
    Func sel("sel"), chain("chain"), clamped("clamped"), inverted("inverted"), muxed("muxed");
    Var x;
    sel(x) = select(p(x) > 128, p(x), 300);  // 300 becomes uint8, as in Halide: 44
    chain(x) = select(p(x) < 50, 1, p(x) < 150, 2, 3);
    clamped(x) = clamp(p(x), 20, 200);
    inverted(x) = clamp(k(x), 4, 1);  // lo > hi: the low bound wins
    muxed(x) = mux(k(x), {k(x) * 10, 7, cast<int>(p(x))});
    Buffer<uint8_t> s = sel.realize({n}), c = clamped.realize({n});
    Buffer<int> ch = chain.realize({n}), inv = inverted.realize({n}), m = muxed.realize({n});
    for (int i = 0; i < n; i++) {
        CHECK(s(i) == (p(i) > 128 ? p(i) : uint8_t(300)));
        CHECK(ch(i) == (p(i) < 50 ? 1 : p(i) < 150 ? 2 : 3));
        CHECK(c(i) == std::max(std::min(int(p(i)), 200), 20));
        CHECK(inv(i) == std::max(std::min(k(i), 1), 4));
        const int expected = k(i) == 0 ? k(i) * 10 : k(i) == 1 ? 7 : p(i);
        CHECK_MESSAGE(m(i) == expected, "mux index " << k(i));
    }
}

TEST_CASE("pow of an integer constant is repeated multiplication in the base's type") {
    const int n = 67;
    Buffer<float> f = random_floats(n, 15, -3.0f, 3.0f);
    Buffer<int32_t> a = random_buffer<int32_t>(n, 16, -40, 40);
    Func cube("cube"), fifth("fifth"), inverse("inverse"), icube("icube"), general("general");
    Var x;
    cube(x) = pow(f(x), 3);
    fifth(x) = pow(f(x), 5);
    inverse(x) = pow(f(x), -2);
    icube(x) = pow(a(x), 3);
    general(x) = pow(abs(f(x)) + 0.5f, 1.5f);
    Buffer<float> c = cube.realize({n}), fi = fifth.realize({n}), inv = inverse.realize({n}),
                  g = general.realize({n});
    Buffer<int32_t> ic = icube.realize({n});
    for (int i = 0; i < n; i++) {
        const float v = f(i), sq = v * v;
        CHECK(c(i) == sq * v);
        CHECK(fi(i) == (sq * sq) * v);
        CHECK(inv(i) == 1.0f / sq);
        CHECK(ic(i) == a(i) * a(i) * a(i));
        CHECK(g(i) == std::pow(std::abs(v) + 0.5f, 1.5f));
    }
}

TEST_CASE("the math library matches the C library") {
    const int n = 89;
    Buffer<float> f = random_floats(n, 17, -4.0f, 4.0f), g = random_floats(n, 18, -4.0f, 4.0f);
    Buffer<float> unit = random_floats(n, 19, -0.99f, 0.99f);
    Func trig("trig"), inverse_trig("inverse_trig"), hyperbolic("hyperbolic"), rounding("rounding"),
        misc("misc"), wide("wide");
    Var x;
    trig(x) = sin(f(x)) + cos(g(x)) * tan(unit(x));
    inverse_trig(x) = atan2(f(x), g(x)) + atan(f(x)) + asin(unit(x)) * acos(unit(x));
    hyperbolic(x) =
        sinh(unit(x)) + cosh(unit(x)) + tanh(f(x)) + asinh(f(x)) + atanh(unit(x)) + acosh(abs(f(x)) + 1);
    rounding(x) = floor(f(x) * 3) + ceil(g(x) * 3) * 10 + round(f(x) * 2) * 100 + trunc(g(x) * 3) * 1000 +
                  fract(f(x)) * 10000;
    misc(x) = sqrt(abs(f(x))) + exp(unit(x)) + log(abs(g(x)) + 1) + hypot(f(x), g(x));
    wide(x) = atan2(cast<double>(f(x)), cast<double>(g(x))) + sqrt(cast<double>(abs(f(x))));
    Buffer<float> t = trig.realize({n}), it = inverse_trig.realize({n}), h = hyperbolic.realize({n}),
                  r = rounding.realize({n}), m = misc.realize({n});
    Buffer<double> w = wide.realize({n});
    for (int i = 0; i < n; i++) {
        const float a = f(i), b = g(i), u = unit(i);
        CHECK(same_float(t(i), std::sin(a) + std::cos(b) * std::tan(u)));
        CHECK(same_float(it(i), std::atan2(a, b) + std::atan(a) + std::asin(u) * std::acos(u)));
        CHECK(same_float(h(i), std::sinh(u) + std::cosh(u) + std::tanh(a) + std::asinh(a) + std::atanh(u) +
                                   std::acosh(std::abs(a) + 1)));
        const float expected_rounding = std::floor(a * 3) + std::ceil(b * 3) * 10 +
                                        std::nearbyint(a * 2) * 100 + std::trunc(b * 3) * 1000 +
                                        (a - std::trunc(a)) * 10000;
        CHECK(same_float(r(i), expected_rounding));
        CHECK(same_float(m(i), std::sqrt(std::abs(a)) + std::exp(u) + std::log(std::abs(b) + 1) +
                                   std::sqrt(a * a + b * b)));
        CHECK(w(i) == std::atan2(double(a), double(b)) + std::sqrt(double(std::abs(a))));
    }
}

TEST_CASE("is_nan, is_inf and is_finite classify floats") {
    const float special[] = {0.0f,
                             -1.5f,
                             std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN(),
                             3e38f};
    Buffer<float> in(6);
    for (int i = 0; i < 6; i++) in(i) = special[i];
    Func classify("classify");
    Var x;
    classify(x) = select(is_nan(in(x)), 1, is_inf(in(x)), 2, 0) + select(is_finite(in(x)), 10, 0);
    Buffer<int> out = classify.realize({6});
    for (int i = 0; i < 6; i++) {
        const float v = special[i];
        CHECK(out(i) == (std::isnan(v) ? 1 : std::isinf(v) ? 2 : 0) + (std::isfinite(v) ? 10 : 0));
    }
}

TEST_CASE("lerp of integers rounds exactly, with float or unsigned weights") {
    const int n = 113;
    Buffer<uint8_t> a = random_buffer<uint8_t>(n, 20, 0, 255), b = random_buffer<uint8_t>(n, 21, 0, 255);
    Buffer<uint8_t> w8 = random_buffer<uint8_t>(n, 22, 0, 255);
    Buffer<int16_t> s = random_buffer<int16_t>(n, 23, -32768, 32767),
                    t = random_buffer<int16_t>(n, 24, -32768, 32767);
    Buffer<float> wf = random_floats(n, 25, 0.0f, 1.0f);
    Func by_u8("by_u8"), by_float("by_float"), signed16("signed16"), floats("floats");
    Var x;
    by_u8(x) = lerp(a(x), b(x), w8(x));
    by_float(x) = lerp(a(x), b(x), wf(x));
    signed16(x) = lerp(s(x), t(x), w8(x));
    floats(x) = lerp(cast<float>(a(x)), cast<float>(b(x)), wf(x));
    Buffer<uint8_t> r8 = by_u8.realize({n}), rf = by_float.realize({n});
    Buffer<int16_t> r16 = signed16.realize({n});
    Buffer<float> ff = floats.realize({n});
    // round((zero * (max - w) + one * w) / max), in exact integer arithmetic.
    auto exact = [](int64_t zero, int64_t one, uint64_t w, uint64_t max) {
        const uint64_t sum = uint64_t(zero) * (max - w) + uint64_t(one) * w;
        return int64_t((sum + max / 2) / max);
    };
    for (int i = 0; i < n; i++) {
        CHECK(r8(i) == exact(a(i), b(i), w8(i), 255));
        CHECK(rf(i) == exact(a(i), b(i), uint8_t(255.0f * wf(i)), 255));
        // Signed values are offset by 2^15 into the unsigned range, and the weight widened by 257.
        CHECK(r16(i) == int16_t(exact(s(i) + 32768, t(i) + 32768, w8(i) * 257u, 65535) - 32768));
        const float w = wf(i);
        CHECK(std::abs(ff(i) - (float(a(i)) * (1.0f - w) + float(b(i)) * w)) <= 1e-4f * 256);
    }
}

TEST_CASE("saturating_cast, bit counts and rounding-to-zero division") {
    const int n = 101;
    Buffer<int32_t> v = random_buffer<int32_t>(n, 26, -100000, 100000);
    Buffer<int32_t> d = random_buffer<int32_t>(n, 27, -9, 9);
    d.for_each_value([](int32_t& k) { k = k == 0 ? 7 : k; });  // Halide traps on x / 0 rounding to zero
    Buffer<float> f = random_floats(n, 28, -70000.0f, 70000.0f);
    Buffer<uint16_t> u = random_buffer<uint16_t>(n, 29, 0, 65535);
    Func sat("sat"), satf("satf"), counts("counts"), rz("rz");
    Var x;
    sat(x) = cast<int>(saturating_cast<uint8_t>(v(x))) + saturating_cast<int8_t>(v(x) / 100);
    satf(x) = cast<int>(saturating_cast<uint16_t>(f(x))) + cast<int>(saturating_cast<int16_t>(f(x)));
    counts(x) =
        popcount(v(x)) + count_leading_zeros(v(x)) * 100 + cast<int>(count_trailing_zeros(u(x))) * 10000;
    rz(x) = div_round_to_zero(v(x), d(x)) * 100 + mod_round_to_zero(v(x), d(x));
    Buffer<int> s = sat.realize({n});
    Buffer<int> sf = satf.realize({n}), c = counts.realize({n}), z = rz.realize({n});
    auto popcount32 = [](uint32_t w) {
        int k = 0;
        for (; w; w &= w - 1) k++;
        return k;
    };
    auto clz32 = [](uint32_t w) {
        int k = 0;
        for (uint32_t m = 0x80000000u; m && !(w & m); m >>= 1) k++;
        return k;
    };
    auto ctz16 = [](uint16_t w) {
        int k = 0;
        for (; k < 16 && !(w & (1u << k)); k++) {
        }
        return k;
    };
    for (int i = 0; i < n; i++) {
        const int sat8 = std::clamp(v(i), 0, 255);
        const int sat_s8 = std::clamp(int(euclid_div(v(i), 100)), -128, 127);
        CHECK(s(i) == sat8 + sat_s8);
        CHECK(sf(i) == int(std::clamp(f(i), 0.0f, 65535.0f)) + int(std::clamp(f(i), -32768.0f, 32767.0f)));
        CHECK(c(i) == popcount32(uint32_t(v(i))) + clz32(uint32_t(v(i))) * 100 + ctz16(u(i)) * 10000);
        CHECK(z(i) == (v(i) / d(i)) * 100 + v(i) % d(i));
    }
}
