// The vectorize_loops pass and the code generation of vectors: each vectorized loop nest, built by
// hand as flatten_storage leaves it, must compute bit for bit what the same loop nest computes with
// its loops serial, and what plain C++ computes; and the pass must really have made vectors.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "loop_nest_runner.h"
#include "lowering/vectorize_loops.h"
#include "random_int_exprs.h"
#include "tessera/error.h"

using namespace tessera;
using namespace tessera::ir;
using tessera::test::Census;
using tessera::test::LoopNestRunner;
using tessera::test::RunResult;

namespace {

Expr var(const std::string& name, Type t = Int(32)) { return Variable::make(t, name); }
Expr i32(int64_t v) { return make_const(Int(32), v); }
Expr add(Expr a, Expr b) { return Add::make(std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return Sub::make(std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return Mul::make(std::move(a), std::move(b)); }
Expr load(Type t, const std::string& buffer, Expr index) { return Load::make(t, buffer, std::move(index)); }
Expr call(Type t, Intrinsic op, std::vector<Expr> args) {
    return Call::make_intrinsic(t, op, std::move(args));
}

Stmt loop(const std::string& name, Expr min, Expr extent, Stmt body, ForKind kind = ForKind::Serial) {
    return For::make(name, std::move(min), std::move(extent), kind, std::move(body));
}

// for xo in [0, ceil(n / lanes)): vectorized xi in [0, lanes): let x = base + xi in body, where the
// last vector is shifted inwards (base = min(xo * lanes, n - lanes)), so that every vector is whole
// and n need not be a multiple of lanes.
Stmt shifted_inwards(int n, int lanes, const Stmt& body, const std::string& x = "x") {
    Expr base = Min::make(mul(var("xo"), i32(lanes)), i32(n - lanes));
    return loop(
        "xo", i32(0), i32((n + lanes - 1) / lanes),
        loop("xi", i32(0), i32(lanes), LetStmt::make(x, add(base, var("xi")), body), ForKind::Vectorized));
}

// The same, guarded as GuardWithIf makes it: let x = xo * lanes + xi in if (x < n) body.
Stmt guarded(int n, int lanes, const Stmt& body, bool likely = false) {
    Expr x = var("x");
    Expr inside = LT::make(x, i32(n));
    if (likely) inside = call(Bool(), Intrinsic::Likely, {inside});
    return loop(
        "xo", i32(0), i32((n + lanes - 1) / lanes),
        loop("xi", i32(0), i32(lanes),
             LetStmt::make("x", add(mul(var("xo"), i32(lanes)), var("xi")), IfThenElse::make(inside, body)),
             ForKind::Vectorized));
}

struct Compared {
    RunResult serial, vector;
    Stmt lowered;
    Census census;
};

// Runs s with its loops serial and vectorized on the same arguments; checks that they agree.
Compared compare(const LoopNestRunner& args, const Stmt& s, const std::string& what) {
    Stmt serial = simplify(test::all_loops_serial(s));
    Stmt vectorized = simplify(lowering::vectorize_loops(s));
    Compared c{args.run("serial", serial), args.run("vectorized", vectorized), vectorized,
               test::census(vectorized)};
    test::check_same_contents(c.serial, c.vector, what + ", vectorized as\n" + to_string(vectorized));
    return c;
}

// The vectorized loop xi became vectors: no loop over it is left, and there are ramps.
void check_vectorized(const Compared& c, const std::string& what) {
    CHECK_MESSAGE(c.census.loops.count("xi") == 0, what << ": the loop over xi is still there:\n"
                                                        << c.lowered);
    CHECK_MESSAGE(c.census.ramps > 0, what << ": no ramps:\n" << c.lowered);
    CHECK_MESSAGE(c.census.vector_stores > 0, what << ": no vector stores:\n" << c.lowered);
}

template <typename T>
std::vector<T> sample_values(int n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<T> v(n);
    for (int i = 0; i < n; i++) {
        if constexpr (std::is_floating_point_v<T>) {
            v[i] = T(int(rng() % 200) - 100) * T(0.25);
        } else {
            v[i] = T(rng());
        }
    }
    return v;
}

template <typename T>
T euclidean_div(T a, T b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        __int128 x = a, y = b, q = x / y;
        if (x % y < 0) q += y > 0 ? -1 : 1;
        return T(q);
    } else {
        return a / b;
    }
}

template <typename T>
T euclidean_mod(T a, T b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        __int128 x = a, y = b, r = x % y;
        if (r < 0) r += y > 0 ? y : -y;
        return T(r);
    } else {
        return a % b;
    }
}

// ---- Dense loads and stores ----

// in * 3 + 1 as compiled code computes it: wrapping in T's width for integers.
template <typename T>
T times_3_plus_1(T v) {
    if constexpr (std::is_integral_v<T>) {
        return T(uint64_t(int64_t(v)) * 3u + 1u);
    } else {
        return T(v * T(3) + T(1));
    }
}

template <typename T>
void check_dense(int lanes) {
    const int n = 37;
    const Type t = type_of<T>();
    const std::string what = type_name(t) + " x " + std::to_string(lanes);
    std::vector<T> in = sample_values<T>(n, 1);
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<T>("out", n);
    Expr x = var("x");
    Expr value = add(mul(load(t, "in", x), make_const(t, int64_t(3))), make_const(t, int64_t(1)));
    Compared c = compare(args, shifted_inwards(n, lanes, Store::make("out", value, x)), what);
    check_vectorized(c, what);
    CHECK_MESSAGE(c.census.dense_loads == 1, what << ":\n" << c.lowered);
    CHECK_MESSAGE(c.census.dense_stores == 1, what << ":\n" << c.lowered);
    for (int i = 0; i < n; i++)
        CHECK_MESSAGE(c.vector.at<T>("out", i) == times_3_plus_1(in[i]), what << " at " << i);
}

}  // namespace

TEST_CASE("dense loads and stores of uint8, uint16, int32 and float32 at 4, 8 and 16 lanes") {
    for (int lanes : {4, 8, 16}) {
        check_dense<uint8_t>(lanes);
        check_dense<uint16_t>(lanes);
        check_dense<int32_t>(lanes);
        check_dense<float>(lanes);
    }
}

TEST_CASE("a vectorized loop over x inside a loop over y of strided buffers loads and stores densely") {
    // out[x + y * out_stride] = in[x + y * in_stride] + 2 * in[(x + 1) + (y + 1) * in_stride], the
    // strides being scalar arguments, as flat indices of 2-D buffers are.
    const int width = 21, height = 5, in_stride = 23, out_stride = 22, lanes = 8;
    std::vector<int32_t> in = sample_values<int32_t>((height + 1) * in_stride, 2);
    for (int32_t& v : in) v %= 1000;
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<int32_t>("out", height * out_stride);
    args.scalar("in_stride", in_stride);
    args.scalar("out_stride", out_stride);
    Expr x = var("x"), y = var("y"), is = var("in_stride"), os = var("out_stride");
    Expr value = add(load(Int(32), "in", add(x, mul(y, is))),
                     mul(i32(2), load(Int(32), "in", add(add(x, i32(1)), mul(add(y, i32(1)), is)))));
    Stmt s = loop("y", i32(0), i32(height),
                  shifted_inwards(width, lanes, Store::make("out", value, add(x, mul(y, os)))));
    Compared c = compare(args, s, "2-D");
    check_vectorized(c, "2-D");
    CHECK_MESSAGE(c.census.dense_loads == 2, c.lowered);
    CHECK_MESSAGE(c.census.dense_stores == 1, c.lowered);
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            CHECK(c.vector.at<int32_t>("out", i + j * out_stride) ==
                  in[i + j * in_stride] + 2 * in[i + 1 + (j + 1) * in_stride]);
        }
        for (int i = width; i < out_stride; i++) CHECK(c.vector.at<int32_t>("out", i + j * out_stride) == 0);
    }
}

TEST_CASE("the loop variable itself, with a min from an argument, becomes a dense ramp") {
    // vectorized x in [m, m + 8): out[x - m] = x * x
    LoopNestRunner args;
    args.zeros<int32_t>("out", 8);
    args.scalar("m", int32_t(-3));
    Expr x = var("x"), m = var("m");
    Stmt s = loop("x", m, i32(8), Store::make("out", mul(x, x), sub(x, m)), ForKind::Vectorized);
    Compared c = compare(args, s, "loop variable");
    CHECK(c.census.loops.empty());
    CHECK(c.census.dense_stores == 1);
    for (int i = 0; i < 8; i++) CHECK(c.vector.at<int32_t>("out", i) == (i - 3) * (i - 3));
}

// ---- Gathers, scatters, strides ----

TEST_CASE("gathers: an index computed as (x * 7) % n and an index loaded from a buffer") {
    const int n = 37, lanes = 8;
    std::vector<float> in = sample_values<float>(n, 3);
    std::vector<int32_t> idx(n);
    std::mt19937 rng(4);
    for (int32_t& v : idx) v = int32_t(rng() % n);
    LoopNestRunner args;
    args.buffer("in", in);
    args.buffer("idx", idx);
    args.zeros<float>("a", n);
    args.zeros<float>("b", n);
    Expr x = var("x");
    Stmt body = Block::make({
        Store::make("a", load(Float(32), "in", Mod::make(mul(x, i32(7)), i32(n))), x),
        Store::make("b", load(Float(32), "in", load(Int(32), "idx", x)), x),
    });
    Compared c = compare(args, shifted_inwards(n, lanes, body), "gathers");
    check_vectorized(c, "gathers");
    CHECK_MESSAGE(c.census.vector_loads == 3, c.lowered);  // two gathers and the dense load of idx
    CHECK_MESSAGE(c.census.dense_loads == 1, c.lowered);
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<float>("a", i) == in[i * 7 % n]);
        CHECK(c.vector.at<float>("b", i) == in[idx[i]]);
    }
}

TEST_CASE("scatters store lane by lane in lane order, so the last lane to hit an element wins") {
    const int n = 40, lanes = 8;
    std::vector<int32_t> in = sample_values<int32_t>(n, 5), perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(6));
    LoopNestRunner args;
    args.buffer("in", in);
    args.buffer("perm", perm);
    args.zeros<int32_t>("permuted", n);
    args.zeros<int32_t>("thirds", n);
    args.zeros<int32_t>("first", 1);
    Expr x = var("x");
    Stmt body = Block::make({
        Store::make("permuted", load(Int(32), "in", x), load(Int(32), "perm", x)),
        // Three lanes to each element: the one of the largest x stays, as serially.
        Store::make("thirds", load(Int(32), "in", x), Div::make(x, i32(3))),
        // All lanes to one element.
        Store::make("first", load(Int(32), "in", x), i32(0)),
    });
    Stmt s = loop("xo", i32(0), i32(n / lanes),
                  loop("x", mul(var("xo"), i32(lanes)), i32(lanes), body, ForKind::Vectorized));
    Compared c = compare(args, s, "scatters");
    CHECK(c.census.loops.count("x") == 0);
    CHECK_MESSAGE(c.census.vector_stores == 3, c.lowered);
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<int32_t>("permuted", perm[i]) == in[i]);
        if (i % 3 == 2 || i == n - 1) CHECK(c.vector.at<int32_t>("thirds", i / 3) == in[i]);
    }
    CHECK(c.vector.at<int32_t>("first", 0) == in[n - 1]);
}

TEST_CASE("strided ramps: loads and stores with stride 2") {
    const int n = 20, lanes = 4;
    std::vector<uint16_t> in = sample_values<uint16_t>(2 * n, 7);
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<uint16_t>("sums", n);
    args.zeros<uint16_t>("spread", 2 * n);
    Expr x = var("x"), two = i32(2);
    Stmt body = Block::make({
        Store::make("sums",
                    add(load(UInt(16), "in", mul(x, two)), load(UInt(16), "in", add(mul(two, x), i32(1)))),
                    x),
        Store::make("spread", load(UInt(16), "in", x), add(mul(x, two), i32(1))),
    });
    Compared c = compare(args, shifted_inwards(n, lanes, body), "strides");
    check_vectorized(c, "strides");
    const std::string text = to_string(c.lowered);
    CHECK_MESSAGE(text.find(", 2, 4)") != std::string::npos, "no ramp of stride 2:\n" << text);
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<uint16_t>("sums", i) == uint16_t(in[2 * i] + in[2 * i + 1]));
        CHECK(c.vector.at<uint16_t>("spread", 2 * i + 1) == in[i]);
        CHECK(c.vector.at<uint16_t>("spread", 2 * i) == 0);
    }
}

// ---- Arithmetic ----

TEST_CASE("select with a vector condition, and with a condition the same in every lane") {
    const int n = 29, lanes = 8;
    std::vector<int32_t> in = sample_values<int32_t>(n, 8);
    for (int32_t& v : in) v %= 40;
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<int32_t>("a", n);
    args.zeros<int32_t>("b", n);
    args.scalar("flag", int32_t(1));
    Expr x = var("x"), v = load(Int(32), "in", x);
    Stmt body = Block::make({
        Store::make("a", Select::make(GT::make(v, i32(10)), v, mul(x, i32(2))), x),
        Store::make("b", Select::make(NE::make(var("flag"), i32(0)), v, i32(-1)), x),
    });
    Compared c = compare(args, shifted_inwards(n, lanes, body), "select");
    check_vectorized(c, "select");
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<int32_t>("a", i) == (in[i] > 10 ? in[i] : i * 2));
        CHECK(c.vector.at<int32_t>("b", i) == in[i]);
    }
}

namespace {

template <typename T>
std::vector<T> interesting_values() {
    using L = std::numeric_limits<T>;
    std::vector<T> v = {L::min(), T(L::min() + 1), 0, 1, 2, 3, 7, 8, 100, T(L::max() - 1), L::max()};
    if constexpr (std::is_signed_v<T>) {
        for (T x : {-1, -2, -3, -7, -8, -100}) v.push_back(x);
    }
    return v;
}

template <typename T>
void check_div_mod() {
    const Type t = type_of<T>();
    std::vector<T> values = interesting_values<T>(), a, b;
    for (T p : values) {
        for (T q : values) {
            a.push_back(p);
            b.push_back(q);
        }
    }
    const int n = int(a.size()), lanes = 8;
    std::vector<int64_t> constants = {3, 7, 8, 1, 0};
    if constexpr (std::is_signed_v<T>) constants.insert(constants.end(), {-1, -3, -8});
    for (int64_t k : constants) {
        const std::string what = type_name(t) + " by " + std::to_string(k);
        LoopNestRunner args;
        args.buffer("a", a);
        args.buffer("b", b);
        args.scalar("k", T(k));
        for (const char* out : {"q", "r", "qk", "rk", "qc", "rc"}) args.zeros<T>(out, n);
        Expr x = var("x"), ax = load(t, "a", x), bx = load(t, "b", x), kv = var("k", t),
             kc = make_const(t, k);
        Stmt body = Block::make({
            Store::make("q", Div::make(ax, bx), x),
            Store::make("r", Mod::make(ax, bx), x),
            Store::make("qk", Div::make(ax, kv), x),
            Store::make("rk", Mod::make(ax, kv), x),
            Store::make("qc", Div::make(ax, kc), x),
            Store::make("rc", Mod::make(ax, kc), x),
        });
        Compared c = compare(args, shifted_inwards(n, lanes, body), what);
        check_vectorized(c, what);
        for (int i = 0; i < n; i++) {
            const T kt = T(k);
            const std::string at =
                what + ": " + std::to_string(int64_t(a[i])) + " and " + std::to_string(int64_t(b[i]));
            CHECK_MESSAGE(c.vector.at<T>("q", i) == euclidean_div(a[i], b[i]), at);
            CHECK_MESSAGE(c.vector.at<T>("r", i) == euclidean_mod(a[i], b[i]), at);
            CHECK_MESSAGE(c.vector.at<T>("qk", i) == euclidean_div(a[i], kt), at);
            CHECK_MESSAGE(c.vector.at<T>("rk", i) == euclidean_mod(a[i], kt), at);
            CHECK_MESSAGE(c.vector.at<T>("qc", i) == euclidean_div(a[i], kt), at);
            CHECK_MESSAGE(c.vector.at<T>("rc", i) == euclidean_mod(a[i], kt), at);
        }
    }
}

}  // namespace

TEST_CASE("Euclidean division and modulo of vectors by vectors, scalars and constants, zero included") {
    check_div_mod<int32_t>();
    check_div_mod<int8_t>();
    check_div_mod<uint16_t>();
}

TEST_CASE("casts of vectors: float to int, widening, narrowing, and bools") {
    const int n = 27, lanes = 8;
    std::vector<float> f(n);
    std::vector<int8_t> small(n);
    std::vector<int32_t> wide(n);
    std::vector<bool> flags(n);
    for (int i = 0; i < n; i++) {
        f[i] = (float(i) - 13.0f) * 2.75f;
        small[i] = int8_t(i * 37 - 100);
        wide[i] = (i - 13) * 1000003;
        flags[i] = i % 3 == 1;
    }
    LoopNestRunner args;
    args.buffer("f", f);
    args.buffer("small", small);
    args.buffer("wide", wide);
    args.buffer("flags", flags);
    args.zeros<int32_t>("f_to_i32", n);
    args.zeros<int32_t>("i8_to_i32", n);
    args.zeros<uint16_t>("i8_to_u16", n);
    args.zeros<uint8_t>("i32_to_u8", n);
    args.zeros<bool>("nonzero", n);
    args.zeros<int32_t>("bool_to_i32", n);
    args.zeros<float>("i32_to_f32", n);
    Expr x = var("x");
    Expr fx = load(Float(32), "f", x), sx = load(Int(8), "small", x), wx = load(Int(32), "wide", x);
    Expr bx = load(Bool(), "flags", x);
    Stmt body = Block::make({
        Store::make("f_to_i32", Cast::make(Int(32), fx), x),
        Store::make("i8_to_i32", Cast::make(Int(32), sx), x),
        Store::make("i8_to_u16", Cast::make(UInt(16), sx), x),
        Store::make("i32_to_u8", Cast::make(UInt(8), wx), x),
        Store::make("nonzero", Cast::make(Bool(), wx), x),
        Store::make("bool_to_i32", add(Cast::make(Int(32), bx), Cast::make(Int(32), Not::make(bx))), x),
        Store::make("i32_to_f32", Cast::make(Float(32), wx), x),
    });
    Compared c = compare(args, shifted_inwards(n, lanes, body), "casts");
    check_vectorized(c, "casts");
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<int32_t>("f_to_i32", i) == int32_t(f[i]));
        CHECK(c.vector.at<int32_t>("i8_to_i32", i) == int32_t(small[i]));
        CHECK(c.vector.at<uint16_t>("i8_to_u16", i) == uint16_t(small[i]));
        CHECK(c.vector.at<uint8_t>("i32_to_u8", i) == uint8_t(wide[i]));
        CHECK(c.vector.at<uint8_t>("nonzero", i) == uint8_t(wide[i] != 0));
        CHECK(c.vector.at<int32_t>("bool_to_i32", i) == 1);
        CHECK(c.vector.at<float>("i32_to_f32", i) == float(wide[i]));
    }
}

TEST_CASE("math on vectors gives exactly the scalar results: sqrt, floor, exp, sin, pow, round") {
    const int n = 19, lanes = 8;
    std::vector<float> f(n);
    std::vector<double> d(n);
    for (int i = 0; i < n; i++) {
        f[i] = float(i) * 0.37f - 2.5f;
        d[i] = double(i) * 0.41 - 3.5;
    }
    LoopNestRunner args;
    args.buffer("f", f);
    args.buffer("d", d);
    for (const char* out : {"sqrt", "floor", "exp", "sin", "pow", "round"}) {
        args.zeros<float>(std::string(out) + "_f", n);
        args.zeros<double>(std::string(out) + "_d", n);
    }
    Expr x = var("x");
    std::vector<Stmt> stores;
    for (Type t : {Float(32), Float(64)}) {
        const std::string suffix = t.bits() == 32 ? "_f" : "_d";
        Expr v = load(t, t.bits() == 32 ? "f" : "d", x);
        Expr half = FloatImm::make(t, 0.5);
        stores.push_back(
            Store::make("sqrt" + suffix, call(t, Intrinsic::Sqrt, {call(t, Intrinsic::Abs, {v})}), x));
        stores.push_back(Store::make("floor" + suffix, call(t, Intrinsic::Floor, {v}), x));
        stores.push_back(Store::make("exp" + suffix, call(t, Intrinsic::Exp, {v}), x));
        stores.push_back(Store::make("sin" + suffix, call(t, Intrinsic::Sin, {v}), x));
        stores.push_back(Store::make(
            "pow" + suffix, call(t, Intrinsic::Pow, {call(t, Intrinsic::Abs, {v}), add(v, half)}), x));
        stores.push_back(
            Store::make("round" + suffix, call(t, Intrinsic::Round, {mul(v, FloatImm::make(t, 4))}), x));
    }
    Compared c = compare(args, shifted_inwards(n, lanes, Block::make(stores)), "math");
    check_vectorized(c, "math");
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<float>("sqrt_f", i) == std::sqrt(std::fabs(f[i])));
        CHECK(c.vector.at<float>("floor_f", i) == std::floor(f[i]));
        CHECK(c.vector.at<float>("exp_f", i) == doctest::Approx(std::exp(f[i])).epsilon(1e-6));
        CHECK(c.vector.at<float>("sin_f", i) == doctest::Approx(std::sin(f[i])).epsilon(1e-6));
        CHECK(c.vector.at<float>("round_f", i) == std::nearbyint(f[i] * 4));
        CHECK(c.vector.at<double>("sqrt_d", i) == std::sqrt(std::fabs(d[i])));
        CHECK(c.vector.at<double>("floor_d", i) == std::floor(d[i]));
        CHECK(c.vector.at<double>("exp_d", i) == doctest::Approx(std::exp(d[i])));
        CHECK(c.vector.at<double>("pow_d", i) == doctest::Approx(std::pow(std::fabs(d[i]), d[i] + 0.5)));
    }
}

TEST_CASE("bitwise operations, shifts, abs, min, max and an external function, lane by lane") {
    const int n = 27, lanes = 8;
    std::vector<int16_t> a = sample_values<int16_t>(n, 13), b = sample_values<int16_t>(n, 14);
    std::vector<float> f(n);
    for (int i = 0; i < n; i++) {
        b[i] = int16_t(b[i] % 20 - 3);  // shift amounts: negative, in range and too large
        f[i] = float(i) * 0.5f - 6.0f;
    }
    f[3] = std::numeric_limits<float>::quiet_NaN();
    LoopNestRunner args;
    args.buffer("a", a);
    args.buffer("b", b);
    args.buffer("f", f);
    args.scalar("s", int16_t(3));
    for (const char* out : {"and", "xor", "not", "shl", "shr", "shr_s", "min", "max"})
        args.zeros<int16_t>(out, n);
    args.zeros<uint16_t>("abs", n);
    args.zeros<float>("fmin", n);
    args.zeros<float>("hypot", n);
    Expr x = var("x");
    const Type t = Int(16);
    Expr ax = load(t, "a", x), bx = load(t, "b", x), fx = load(Float(32), "f", x), s = var("s", t);
    Expr one = FloatImm::make(Float(32), 1);
    Stmt body = Block::make({
        Store::make("and", call(t, Intrinsic::BitAnd, {ax, bx}), x),
        Store::make("xor", call(t, Intrinsic::BitXor, {ax, s}), x),
        Store::make("not", call(t, Intrinsic::BitNot, {ax}), x),
        Store::make("shl", call(t, Intrinsic::ShiftLeft, {ax, bx}), x),
        Store::make("shr", call(t, Intrinsic::ShiftRight, {ax, bx}), x),
        Store::make("shr_s", call(t, Intrinsic::ShiftRight, {ax, s}), x),
        Store::make("min", Min::make(ax, bx), x),
        Store::make("max", Max::make(ax, s), x),
        Store::make("abs", call(UInt(16), Intrinsic::Abs, {ax}), x),
        Store::make("fmin", Min::make(fx, one), x),
        Store::make("hypot", Call::make_extern(Float(32), "hypotf", {fx, one}), x),
    });
    Compared c = compare(args, shifted_inwards(n, lanes, body), "bitwise");
    check_vectorized(c, "bitwise");
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<int16_t>("and", i) == int16_t(a[i] & b[i]));
        CHECK(c.vector.at<int16_t>("xor", i) == int16_t(a[i] ^ 3));
        CHECK(c.vector.at<int16_t>("not", i) == int16_t(~a[i]));
        CHECK(c.vector.at<int16_t>("shr_s", i) == int16_t(a[i] >> 3));
        CHECK(c.vector.at<int16_t>("min", i) == std::min(a[i], b[i]));
        CHECK(c.vector.at<int16_t>("max", i) == std::max(a[i], int16_t(3)));
        CHECK(c.vector.at<uint16_t>("abs", i) == uint16_t(std::abs(int(a[i]))));
        if (i != 3) CHECK(c.vector.at<float>("hypot", i) == hypotf(f[i], 1.0f));
    }
}

// ---- Control flow and scopes ----

TEST_CASE("an if on the loop variable, as GuardWithIf makes it, stores exactly the lanes inside, masked") {
    for (int lanes : {4, 8, 16}) {
        for (int n : {37, 5, 16}) {
            for (bool likely : {false, true}) {
                const std::string what = std::to_string(n) + " by " + std::to_string(lanes);
                std::vector<int32_t> in = sample_values<int32_t>(n, 9);
                LoopNestRunner args;
                args.buffer("in", in);
                // Past n, sentinels that must stay.
                args.buffer("out", std::vector<int32_t>(n + lanes, -7));
                Expr x = var("x");
                Stmt body = Store::make("out", add(load(Int(32), "in", x), x), x);
                Compared c = compare(args, guarded(n, lanes, body, likely), what);
                check_vectorized(c, what);
                // Whole vectors, and a partial vector that loads and stores the lanes inside under
                // a mask, when it has any.
                CHECK_MESSAGE(c.census.all_lanes_tests == 2, c.lowered);
                CHECK_MESSAGE(c.census.dense_stores == 2, c.lowered);
                CHECK_MESSAGE(c.census.predicated_stores == 1, c.lowered);
                CHECK_MESSAGE(c.census.predicated_loads == 1, c.lowered);
                CHECK_MESSAGE(c.census.loops.count("xi.lane") == 0, c.lowered);
                for (int i = 0; i < n; i++) CHECK_MESSAGE(c.vector.at<int32_t>("out", i) == in[i] + i, what);
                for (int i = n; i < n + lanes; i++) CHECK_MESSAGE(c.vector.at<int32_t>("out", i) == -7, what);
            }
        }
    }
}

TEST_CASE("a guard around a loop masks the vector accesses in it, and loads of one element stay whole") {
    // out[x] accumulates in[k] * x over k inside the guard, as a matrix product's edge tile does.
    for (int n : {37, 5}) {
        const int lanes = 8;
        const std::string what = "n = " + std::to_string(n);
        const std::vector<int32_t> in = {3, -5, 11};  // small: the sums stay far from overflow
        LoopNestRunner args;
        args.buffer("in", in);
        args.buffer("out", std::vector<int32_t>(n + lanes, -7));
        Expr x = var("x"), k = var("k");
        Stmt body = loop("k", i32(0), i32(3),
                         Store::make("out", add(load(Int(32), "out", x), mul(load(Int(32), "in", k), x)), x));
        Compared c = compare(args, guarded(n, lanes, body), what);
        check_vectorized(c, what);
        CHECK_MESSAGE(c.census.predicated_stores == 1, c.lowered);
        CHECK_MESSAGE(c.census.predicated_loads == 1, c.lowered);  // out's, not in's
        for (int i = 0; i < n; i++)
            CHECK_MESSAGE(c.vector.at<int32_t>("out", i) == -7 + (in[0] + in[1] + in[2]) * i, what);
        for (int i = n; i < n + lanes; i++) CHECK_MESSAGE(c.vector.at<int32_t>("out", i) == -7, what);
    }
}

TEST_CASE("an if with an else whose condition splits a vector runs each lane's branch") {
    const int n = 24, lanes = 8;
    LoopNestRunner args;
    args.zeros<int32_t>("out", n);
    args.scalar("split", int32_t(11));
    Expr x = var("x");
    Stmt body = IfThenElse::make(LT::make(x, var("split")), Store::make("out", mul(x, i32(2)), x),
                                 Store::make("out", sub(i32(0), x), x));
    Compared c = compare(args, shifted_inwards(n, lanes, body), "if-else");
    check_vectorized(c, "if-else");
    for (int i = 0; i < n; i++) CHECK(c.vector.at<int32_t>("out", i) == (i < 11 ? 2 * i : -i));
}

TEST_CASE("nested ifs on lane-dependent conditions, inside a guard") {
    const int n = 30, lanes = 8;
    std::vector<int32_t> in = sample_values<int32_t>(n, 15);
    LoopNestRunner args;
    args.buffer("in", in);
    args.buffer("out", std::vector<int32_t>(n + lanes, -7));
    Expr x = var("x"), v = load(Int(32), "in", x);
    Stmt inner =
        IfThenElse::make(GT::make(v, i32(0)), Store::make("out", i32(1), x), Store::make("out", i32(2), x));
    Compared c = compare(args, guarded(n, lanes, inner), "nested ifs");
    check_vectorized(c, "nested ifs");
    CHECK(c.census.all_lanes_tests == 2);
    for (int i = 0; i < n; i++) CHECK(c.vector.at<int32_t>("out", i) == (in[i] > 0 ? 1 : 2));
    for (int i = n; i < n + lanes; i++) CHECK(c.vector.at<int32_t>("out", i) == -7);
}

TEST_CASE("lets inside the vectorized body: vectors, ramps, scalars, and lets in expressions") {
    const int n = 35, lanes = 8;
    std::vector<int16_t> in = sample_values<int16_t>(n, 10);
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<int32_t>("out", n);
    args.zeros<int32_t>("squares", n);
    args.zeros<int32_t>("guarded", n + 8);
    args.scalar("k", int32_t(5));
    Expr x = var("x");
    Expr wide = Cast::make(Int(32), load(Int(16), "in", x));
    // t is a vector, u a ramp, s a scalar; the if's fallback needs t and u lane by lane.
    Stmt body = LetStmt::make(
        "t", mul(wide, i32(2)),
        LetStmt::make(
            "u", mul(x, i32(3)),
            LetStmt::make(
                "s", mul(var("k"), i32(2)),
                Block::make({
                    Store::make("out", add(add(var("t"), var("u")), var("s")), x),
                    Store::make("squares", Let::make("v", add(wide, i32(1)), mul(var("v"), var("v"))), x),
                    IfThenElse::make(LT::make(var("u"), i32(3 * 30)),
                                     Store::make("guarded", add(var("t"), var("u")), x)),
                }))));
    Compared c = compare(args, shifted_inwards(n, lanes, body), "lets");
    check_vectorized(c, "lets");
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<int32_t>("out", i) == in[i] * 2 + i * 3 + 10);
        CHECK(c.vector.at<int32_t>("squares", i) == (in[i] + 1) * (in[i] + 1));
        CHECK(c.vector.at<int32_t>("guarded", i) == (i < 30 ? in[i] * 2 + i * 3 : 0));
    }
}

TEST_CASE("a serial loop inside the vectorized loop keeps running, on vectors") {
    // out[x] = 0; for r in [0, 4): out[x] = out[x] + in[x + r * stride]
    const int n = 30, lanes = 8, rows = 4, stride = 31;
    std::vector<int32_t> in = sample_values<int32_t>(rows * stride, 11);
    for (int32_t& v : in) v %= 10000;
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<int32_t>("out", n);
    Expr x = var("x"), r = var("r");
    Stmt body = Block::make(
        Store::make("out", i32(0), x),
        loop("r", i32(0), i32(rows),
             Store::make("out",
                         add(load(Int(32), "out", x), load(Int(32), "in", add(x, mul(r, i32(stride))))), x)));
    Compared c = compare(args, shifted_inwards(n, lanes, body), "inner loop");
    check_vectorized(c, "inner loop");
    CHECK(c.census.loops.count("r") == 1);
    CHECK(c.census.dense_loads == 2);
    for (int i = 0; i < n; i++) {
        int32_t sum = 0;
        for (int k = 0; k < rows; k++) sum += in[i + k * stride];
        CHECK(c.vector.at<int32_t>("out", i) == sum);
    }
}

TEST_CASE("a load after a store in one iteration sees the store, lane by lane") {
    // tmp[x] = in[x] * 3; out[x] = tmp[x] + 1, and a scratch allocation inside the vectorized loop
    // (as compute_at there makes), which each lane has its own copy of, also under an if on a
    // partial vector.
    const int n = 21, lanes = 8;
    std::vector<int32_t> in = sample_values<int32_t>(n, 12);
    for (int32_t& v : in) v %= 1000;
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<int32_t>("tmp", n);
    args.zeros<int32_t>("out", n);
    args.zeros<int32_t>("scratch_sums", n + 8);
    Expr x = var("x"), k = var("k");
    Expr clamped = Min::make(x, i32(n - 1));
    Stmt scratch = Allocate::make(
        "scratch", Int(32), {i32(3)},
        Block::make({
            loop("k", i32(0), i32(3),
                 Store::make("scratch", mul(load(Int(32), "in", clamped), add(k, i32(1))), k)),
            IfThenElse::make(LT::make(x, i32(n)), Store::make("scratch_sums",
                                                              add(add(load(Int(32), "scratch", i32(0)),
                                                                      load(Int(32), "scratch", i32(1))),
                                                                  load(Int(32), "scratch", i32(2))),
                                                              x)),
        }));
    Stmt body = Block::make({
        IfThenElse::make(LT::make(x, i32(n)),
                         Block::make(Store::make("tmp", mul(load(Int(32), "in", x), i32(3)), x),
                                     Store::make("out", add(load(Int(32), "tmp", x), i32(1)), x))),
        scratch,
    });
    Stmt s =
        loop("xo", i32(0), i32((n + lanes - 1) / lanes),
             loop("xi", i32(0), i32(lanes),
                  LetStmt::make("x", add(mul(var("xo"), i32(lanes)), var("xi")), body), ForKind::Vectorized));
    Compared c = compare(args, s, "load after store");
    check_vectorized(c, "load after store");
    for (int i = 0; i < n; i++) {
        CHECK(c.vector.at<int32_t>("tmp", i) == in[i] * 3);
        CHECK(c.vector.at<int32_t>("out", i) == in[i] * 3 + 1);
        CHECK(c.vector.at<int32_t>("scratch_sums", i) == in[i] * 6);
    }
}

// ---- What runs serially ----

TEST_CASE("loops that cannot be vectorized run serially and still compute the right values") {
    const int n = 16, lanes = 8;
    Expr x = var("x");
    SUBCASE("a store of every lane to one element that the body then reads") {
        LoopNestRunner args;
        args.zeros<int32_t>("one", 1);
        args.zeros<int32_t>("out", n);
        Stmt body = Block::make(Store::make("one", mul(x, i32(5)), i32(0)),
                                Store::make("out", load(Int(32), "one", i32(0)), x));
        Compared c = compare(args, shifted_inwards(n, lanes, body), "collision");
        CHECK_MESSAGE((c.census.loops.count("xi") && c.census.loops["xi"] == ForKind::Serial), c.lowered);
        for (int i = 0; i < n; i++) CHECK(c.vector.at<int32_t>("out", i) == 5 * i);
    }
    SUBCASE("an inner loop whose extent depends on the lane") {
        LoopNestRunner args;
        args.zeros<int32_t>("out", n);
        Stmt body = loop("r", i32(0), x, Store::make("out", add(load(Int(32), "out", x), var("r")), x));
        Compared c = compare(args, shifted_inwards(n, lanes, body), "lane-dependent loop");
        CHECK_MESSAGE((c.census.loops.count("xi") && c.census.loops["xi"] == ForKind::Serial), c.lowered);
        for (int i = 0; i < n; i++) CHECK(c.vector.at<int32_t>("out", i) == i * (i - 1) / 2);
    }
    SUBCASE("a print") {
        Stmt body = Store::make("out", call(Int(32), Intrinsic::Print, {x}), x);
        Stmt s = lowering::vectorize_loops(shifted_inwards(n, lanes, body));
        Census c = test::census(s);
        CHECK((c.loops.count("xi") && c.loops["xi"] == ForKind::Serial));
        CHECK(c.ramps == 0);
    }
    SUBCASE("a vectorized loop inside a vectorized loop runs serially, on the outer loop's vectors") {
        LoopNestRunner args;
        args.zeros<int32_t>("out", n * 4);
        Stmt inner = loop("y", i32(0), i32(4),
                          Store::make("out", add(mul(var("y"), i32(n)), x), add(x, mul(var("y"), i32(n)))),
                          ForKind::Vectorized);
        Compared c = compare(args, shifted_inwards(n, lanes, inner), "nested");
        check_vectorized(c, "nested");
        CHECK((c.census.loops.count("y") && c.census.loops["y"] == ForKind::Serial));
        for (int i = 0; i < n * 4; i++) CHECK(c.vector.at<int32_t>("out", i) == i);
    }
    SUBCASE("a loop of one iteration") {
        Stmt s = lowering::vectorize_loops(
            loop("x", i32(0), i32(1), Store::make("out", x, x), ForKind::Vectorized));
        CHECK(s.as<For>()->for_kind == ForKind::Serial);
    }
}

TEST_CASE("a vectorized loop of non-constant extent is an internal error") {
    Stmt s = loop("x", i32(0), var("n"), Store::make("out", var("x"), var("x")), ForKind::Vectorized);
    CHECK_THROWS_AS(lowering::vectorize_loops(s), InternalError);
}

// ---- Randomized ----

namespace {

// Random integer expressions of x (the vectorized loop variable, converted to each type), y (loaded,
// different in each lane) and z (a scalar argument): the vectorized loop must give the bits the
// serial loop and the reference evaluator give, wherever int32 arithmetic does not overflow.
void check_random_exprs(uint32_t seed) {
    test::RandomExprs gen(seed);
    const std::vector<Type> types = test::RandomExprs::types();
    int compared = 0;
    for (int batch = 0; batch < 6; batch++) {
        const int lanes = std::vector<int>{4, 8, 16}[batch % 3];
        const int vectors = 3, n = lanes * vectors;
        const int32_t min = int32_t(gen.pick(101)) - 50;
        LoopNestRunner args;
        std::map<std::string, std::vector<int64_t>> y_values;
        std::map<std::string, int64_t> z_values;
        auto add_buffer = [&](Type t, const std::string& name, const std::vector<int64_t>& v) {
            if (t == Int(32)) args.buffer(name, std::vector<int32_t>(v.begin(), v.end()));
            if (t == Int(8)) args.buffer(name, std::vector<int8_t>(v.begin(), v.end()));
            if (t == UInt(8)) args.buffer(name, std::vector<uint8_t>(v.begin(), v.end()));
            if (t == UInt(16)) args.buffer(name, std::vector<uint16_t>(v.begin(), v.end()));
        };
        for (Type t : types) {
            std::vector<int64_t> ys(n);
            for (int64_t& v : ys) v = gen.random_value(t);
            y_values[type_name(t)] = ys;
            add_buffer(t, "ys_" + type_name(t), ys);
            z_values[type_name(t)] = gen.random_value(t);
            const int64_t z = z_values[type_name(t)];
            if (t == Int(32)) args.scalar("z_int32", int32_t(z));
            if (t == Int(8)) args.scalar("z_int8", int8_t(z));
            if (t == UInt(8)) args.scalar("z_uint8", uint8_t(z));
            if (t == UInt(16)) args.scalar("z_uint16", uint16_t(z));
        }
        const int exprs = 24;
        std::vector<Expr> es;
        std::vector<Stmt> stores;
        Expr x = var("x_int32"), index = sub(x, i32(min));
        for (int k = 0; k < exprs; k++) {
            Type t = gen.random_type();
            es.push_back(gen.expr(t, 1 + gen.pick(4)));
            add_buffer(t, "out" + std::to_string(k), std::vector<int64_t>(n, 0));
            stores.push_back(Store::make("out" + std::to_string(k), es.back(), index));
        }
        // x of the narrow types is x converted; y of each type is loaded at x.
        Stmt body = Block::make(stores);
        for (Type t : types) {
            body = LetStmt::make("y_" + type_name(t), load(t, "ys_" + type_name(t), index), body);
            if (t != Int(32)) body = LetStmt::make("x_" + type_name(t), Cast::make(t, x), body);
        }
        Stmt s = loop("xo", i32(0), i32(vectors),
                      loop("x_int32", add(mul(var("xo"), i32(lanes)), i32(min)), i32(lanes), body,
                           ForKind::Vectorized));
        // Where int32 arithmetic overflows, the simplifier may have changed the values, so the
        // runs are compared only with the evaluator, where it does not.
        Stmt serial = simplify(test::all_loops_serial(s));
        Stmt vectorized = simplify(lowering::vectorize_loops(s));
        REQUIRE_MESSAGE(test::census(vectorized).loops.count("x_int32") == 0, vectorized);
        const RunResult runs[] = {args.run("serial", serial), args.run("vectorized", vectorized)};
        for (int k = 0; k < exprs; k++) {
            const std::string out = "out" + std::to_string(k);
            const Type t = es[k].type();
            for (int i = 0; i < n; i++) {
                test::Evaluator ev;
                for (Type vt : types) {
                    ev.env["x_" + type_name(vt)] = test::wrap_to(vt, i + min);
                    ev.env["y_" + type_name(vt)] = y_values[type_name(vt)][i];
                    ev.env["z_" + type_name(vt)] = z_values[type_name(vt)];
                }
                const int64_t expected = ev.eval(es[k]);
                if (ev.overflowed) continue;
                compared++;
                for (const RunResult& run : runs) {
                    int64_t actual = 0;
                    if (t == Int(32)) actual = run.at<int32_t>(out, i);
                    if (t == Int(8)) actual = run.at<int8_t>(out, i);
                    if (t == UInt(8)) actual = run.at<uint8_t>(out, i);
                    if (t == UInt(16)) actual = run.at<uint16_t>(out, i);
                    if (actual != expected) {
                        const std::string how = &run == &runs[0] ? "serially" : "vectorized";
                        FAIL_CHECK(how << ", lane " << i % lanes << " of " << es[k] << " at x = " << i + min
                                       << " is " << actual << ", expected " << expected << "\n"
                                       << (&run == &runs[0] ? serial : vectorized));
                        return;
                    }
                }
            }
        }
    }
    CHECK(compared > 2000);
}

}  // namespace

TEST_CASE("randomized: integer expressions of the loop variable give the serial loop's bits") {
    for (uint32_t seed : {31u, 32u, 33u}) check_random_exprs(seed);
}
