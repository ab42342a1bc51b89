#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ir/equal.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "random_int_exprs.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int64_t v) { return make_const(Int(32), v); }
Expr c(Type t, int64_t v) { return make_const(t, v); }
Expr f32(double v) { return FloatImm::make(Float(32), v); }
Expr f64(double v) { return FloatImm::make(Float(64), v); }
std::string s(const Expr& e, const std::map<std::string, Interval>& known = {}) {
    return to_string(simplify(e, known));
}
Interval range_of(int64_t lo, int64_t hi) {
    return Interval(make_const(Int(32), lo), make_const(Int(32), hi));
}

Expr x = int_var("x"), y = int_var("y"), z = int_var("z");

}  // namespace

// ---- Constant folding ----

TEST_CASE("integer arithmetic folds with wrapping at the type's width") {
    CHECK(s(Add::make(c(Int(8), 127), c(Int(8), 1))) == "(int8)-128");
    CHECK(s(Sub::make(c(Int(8), -128), c(Int(8), 1))) == "(int8)127");
    CHECK(s(Mul::make(c(Int(16), 300), c(Int(16), 300))) == "(int16)24464");
    CHECK(s(Add::make(c(UInt(8), 200), c(UInt(8), 100))) == "(uint8)44");
    CHECK(s(Sub::make(c(UInt(16), 0), c(UInt(16), 1))) == "(uint16)65535");
    CHECK(s(Add::make(i32(std::numeric_limits<int32_t>::max()), i32(1))) == "-2147483648");
    Expr big = IntImm::make(Int(64), std::numeric_limits<int64_t>::max());
    CHECK(*as_const_int(simplify(Add::make(big, IntImm::make(Int(64), 1)))) ==
          std::numeric_limits<int64_t>::min());
    Expr umax = UIntImm::make(UInt(64), ~uint64_t(0));
    CHECK(*as_const_uint(simplify(Mul::make(umax, umax))) == 1);
    CHECK(*as_const_uint(simplify(Add::make(umax, UIntImm::make(UInt(64), 2)))) == 1);
}

TEST_CASE("integer division and modulo fold as Euclidean, and by zero to zero") {
    struct Case {
        int64_t a, b, q, r;
    };
    for (Case k :
         {Case{7, 2, 3, 1}, Case{-7, 2, -4, 1}, Case{7, -2, -3, 1}, Case{-7, -2, 4, 1}, Case{-8, 2, -4, 0},
          Case{6, -3, -2, 0}, Case{0, 5, 0, 0}, Case{5, 0, 0, 0}, Case{-5, 0, 0, 0}}) {
        for (Type t : {Int(8), Int(32), Int(64)}) {
            CAPTURE(k.a);
            CAPTURE(k.b);
            CHECK(*as_const_int(simplify(Div::make(c(t, k.a), c(t, k.b)))) == k.q);
            CHECK(*as_const_int(simplify(Mod::make(c(t, k.a), c(t, k.b)))) == k.r);
        }
    }
    // The one quotient that does not fit wraps.
    CHECK(s(Div::make(c(Int(8), -128), c(Int(8), -1))) == "(int8)-128");
    CHECK(s(Div::make(i32(std::numeric_limits<int32_t>::min()), i32(-1))) == "-2147483648");
    CHECK(*as_const_int(simplify(Mod::make(i32(std::numeric_limits<int32_t>::min()), i32(-1)))) == 0);
    CHECK(s(Div::make(c(UInt(8), 250), c(UInt(8), 7))) == "(uint8)35");
    CHECK(s(Mod::make(c(UInt(8), 250), c(UInt(8), 0))) == "(uint8)0");
    // Symbolic: x / 0 and x % 0 are zero too, x / 1 is x.
    CHECK(s(Div::make(x, i32(0))) == "0");
    CHECK(s(Mod::make(x, i32(0))) == "0");
    CHECK(s(Div::make(x, i32(1))) == "x");
    CHECK(s(Mod::make(x, i32(1))) == "0");
    CHECK(s(Div::make(x, i32(-1))) == "(0 - x)");
}

TEST_CASE("float arithmetic folds in the type's precision, IEEE") {
    CHECK(*as_const_float(simplify(Add::make(f32(0.1), f32(0.2)))) == double(0.1f + 0.2f));
    CHECK(*as_const_float(simplify(Add::make(f64(0.1), f64(0.2)))) == 0.1 + 0.2);
    CHECK(*as_const_float(simplify(Div::make(f32(1.0), f32(3.0)))) == double(1.0f / 3.0f));
    CHECK(std::isinf(*as_const_float(simplify(Div::make(f32(1.0), f32(0.0))))));
    // Modulo is a - b * floor(a / b): the result takes the divisor's sign.
    CHECK(*as_const_float(simplify(Mod::make(f64(-7.5), f64(2.0)))) == 0.5);
    CHECK(*as_const_float(simplify(Mod::make(f64(7.5), f64(-2.0)))) == -0.5);
    CHECK(*as_const_float(simplify(Mod::make(f32(5.25), f32(1.5)))) == 0.75);
    CHECK(*as_const_float(simplify(Min::make(f32(1.5), f32(-2.0)))) == -2.0);
    // min of a NaN is left for generated code to decide.
    Expr nan = FloatImm::make(Float(32), std::nan(""));
    CHECK(simplify(Min::make(nan, f32(1.0))).as<Min>());
    // Floats are not reassociated, and x + 0.0 is not x (when x is -0.0).
    Expr fx = Variable::make(Float(32), "fx");
    CHECK(s(Sub::make(Add::make(fx, f32(1.0)), f32(1.0))) == "((fx + 1.0f) - 1.0f)");
    CHECK(s(Add::make(fx, f32(0.0))) == "(fx + 0.0f)");
    CHECK(s(Mul::make(fx, f32(1.0))) == "fx");
}

TEST_CASE("casts fold as generated code converts") {
    CHECK(s(Cast::make(Int(8), i32(200))) == "(int8)-56");
    CHECK(s(Cast::make(UInt(8), i32(-1))) == "(uint8)255");
    CHECK(s(Cast::make(Int(32), c(UInt(8), 255))) == "255");
    CHECK(s(Cast::make(Int(32), f32(-2.75))) == "-2");
    CHECK(s(Cast::make(Int(32), f64(2.99))) == "2");
    CHECK(s(Cast::make(UInt(8), f32(255.5))) == "(uint8)255");
    // Out of range (or NaN): not folded, generated code decides.
    CHECK(simplify(Cast::make(Int(32), f64(3e9))).as<Cast>());
    CHECK(simplify(Cast::make(UInt(8), f32(-1.0))).as<Cast>());
    CHECK(simplify(Cast::make(Int(32), FloatImm::make(Float(32), std::nan("")))).as<Cast>());
    // int -> float rounds once, to the target precision.
    CHECK(*as_const_float(simplify(Cast::make(Float(32), i32(16777217)))) == 16777216.0);
    CHECK(*as_const_float(simplify(Cast::make(Float(32), IntImm::make(Int(64), (int64_t(1) << 53) + 1)))) ==
          double(float((int64_t(1) << 53) + 1)));
    CHECK(*as_const_float(simplify(Cast::make(Float(32), f64(0.1)))) == double(0.1f));
    // Bools: to integers as 0 and 1; to bool only from 0 and 1.
    CHECK(s(Cast::make(Int(32), const_true())) == "1");
    CHECK(s(Cast::make(Bool(), i32(1))) == "(bool)1");
    CHECK(simplify(Cast::make(Bool(), i32(2))).as<Cast>());
    // A widening cast inside another cast does not change the value.
    Expr u = Variable::make(UInt(8), "u");
    CHECK(s(Cast::make(UInt(8), Cast::make(Int(32), u))) == "u");
    CHECK(s(Cast::make(Int(16), Cast::make(Int(32), u))) == "int16(u)");
    CHECK(s(Cast::make(Int(8), Cast::make(Int(16), x))) == "int8(int16(x))");
}

TEST_CASE("comparisons, logic and selects fold") {
    CHECK(s(LT::make(c(UInt(8), 200), c(UInt(8), 100))) == "(bool)0");
    CHECK(s(LT::make(c(Int(8), -56), c(Int(8), 100))) == "(bool)1");
    CHECK(s(EQ::make(f32(0.0), f32(-0.0))) == "(bool)1");
    Expr nan = FloatImm::make(Float(64), std::nan(""));
    CHECK(s(EQ::make(nan, nan)) == "(bool)0");
    CHECK(s(NE::make(nan, nan)) == "(bool)1");
    Expr b = LT::make(x, y);
    CHECK(s(And::make(b, const_true())) == "(x < y)");
    CHECK(s(And::make(b, const_false())) == "(bool)0");
    CHECK(s(Or::make(const_true(), b)) == "(bool)1");
    CHECK(s(Or::make(b, Not::make(b))) == "(bool)1");
    CHECK(s(Not::make(Not::make(b))) == "(x < y)");
    CHECK(s(Not::make(b)) == "(x >= y)");
    CHECK(s(Select::make(const_true(), x, y)) == "x");
    CHECK(s(Select::make(const_false(), x, y)) == "y");
    CHECK(s(Select::make(b, z, z)) == "z");
    CHECK(s(Select::make(Not::make(EQ::make(z, i32(0))), x, y)) == "select((z != 0), x, y)");
    Expr fz = Variable::make(Float(32), "fz");
    CHECK(s(Select::make(Not::make(LT::make(fz, f32(0.0))), x, y)) == "select((fz < 0.0f), y, x)");
    CHECK(s(Select::make(b, x, y)) == "min(x, y)");
    CHECK(s(Select::make(GT::make(x, y), x, y)) == "max(x, y)");
    CHECK(s(Min::make(c(Int(8), -3), c(Int(8), 5))) == "(int8)-3");
    CHECK(s(Max::make(c(UInt(16), 3), c(UInt(16), 65535))) == "(uint16)65535");
    // Float comparisons of a value with itself are not folded (NaN).
    Expr fx = Variable::make(Float(32), "fx");
    CHECK(simplify(EQ::make(fx, fx)).as<EQ>());
    CHECK(s(LE::make(x, x)) == "(bool)1");
}

TEST_CASE("bitwise intrinsics and abs fold") {
    CHECK(s(Call::make_intrinsic(Int(32), Intrinsic::BitAnd, {i32(12), i32(10)})) == "8");
    CHECK(s(Call::make_intrinsic(UInt(8), Intrinsic::BitNot, {c(UInt(8), 1)})) == "(uint8)254");
    CHECK(s(Call::make_intrinsic(UInt(32), Intrinsic::Abs, {i32(std::numeric_limits<int32_t>::min())})) ==
          "(uint32)2147483648");
    CHECK(*as_const_float(simplify(Call::make_intrinsic(Float(32), Intrinsic::Floor, {f32(-1.5)}))) == -2.0);
}

TEST_CASE("vector arithmetic on ramps and broadcasts folds lane-wise") {
    CHECK(s(Add::make(Ramp::make(x, i32(1), 4), Broadcast::make(i32(2), 4))) == "ramp((x + 2), 1, 4)");
    CHECK(s(Mul::make(Ramp::make(x, i32(1), 4), Broadcast::make(i32(3), 4))) == "ramp((x * 3), 3, 4)");
    CHECK(s(Sub::make(Ramp::make(x, i32(2), 8), Ramp::make(x, i32(1), 8))) == "ramp(0, 1, 8)");
    CHECK(s(Sub::make(Ramp::make(x, i32(1), 8), Ramp::make(y, i32(1), 8))) == "x8((x - y))");
    CHECK(s(Mul::make(Broadcast::make(i32(3), 4), Broadcast::make(i32(4), 4))) == "x4(12)");
    CHECK(s(LT::make(Broadcast::make(i32(3), 4), Broadcast::make(i32(4), 4))) == "x4((bool)1)");
    CHECK(s(Select::make(Broadcast::make(const_false(), 4), Broadcast::make(x, 4),
                         Ramp::make(y, i32(1), 4))) == "ramp(y, 1, 4)");
    CHECK(s(Cast::make(Float(32, 4), Broadcast::make(i32(2), 4))) == "x4(2.0f)");
}

// ---- Linear forms ----

TEST_CASE("integer sums come back as canonical linear forms") {
    CHECK(s(Sub::make(Add::make(x, i32(3)), Add::make(x, i32(1)))) == "2");
    CHECK(s(Sub::make(Add::make(Mul::make(x, i32(2)), y), y)) == "(x * 2)");
    CHECK(s(Add::make(Add::make(x, i32(1)), Sub::make(y, i32(1)))) == "(x + y)");
    CHECK(s(Add::make(Mul::make(x, i32(4)), Mul::make(x, i32(-4)))) == "0");
    CHECK(s(Add::make(y, x)) == "(x + y)");
    CHECK(s(Sub::make(i32(3), x)) == "(3 - x)");
    CHECK(s(Sub::make(x, i32(3))) == "(x - 3)");
    CHECK(s(Add::make(Add::make(Mul::make(y, i32(3)), i32(5)), Mul::make(x, i32(2)))) ==
          "(((x * 2) + (y * 3)) + 5)");
    CHECK(s(Mul::make(Add::make(x, i32(1)), i32(4))) == "((x * 4) + 4)");
    CHECK(s(Sub::make(Mul::make(x, y), Mul::make(y, x))) == "0");
    CHECK(s(Sub::make(Sub::make(i32(0), x), y)) == "((0 - x) - y)");
    // Exact for wrapping types too: ring arithmetic modulo 2^bits.
    Expr u = Variable::make(UInt(8), "u");
    CHECK(s(Sub::make(Add::make(u, c(UInt(8), 200)), c(UInt(8), 100))) == "(u + (uint8)100)");
    CHECK(s(Sub::make(Add::make(u, c(UInt(8), 1)), u)) == "(uint8)1");
}

TEST_CASE("division and modulo by constants use linear forms and ranges") {
    CHECK(s(Div::make(Add::make(Mul::make(x, i32(4)), i32(8)), i32(4))) == "(x + 2)");
    CHECK(s(Div::make(Add::make(Mul::make(x, i32(4)), y), i32(4))) == "(x + (y / 4))");
    CHECK(s(Mod::make(Add::make(Mul::make(x, i32(4)), y), i32(4))) == "(y % 4)");
    CHECK(s(Div::make(Mul::make(x, i32(6)), i32(-3))) == "(0 - (x * 2))");
    CHECK(s(Div::make(Div::make(x, i32(4)), i32(2))) == "(x / 8)");
    CHECK(s(Mod::make(Mod::make(x, i32(8)), i32(4))) == "(x % 4)");
    std::map<std::string, Interval> known = {{"x", Interval(i32(0), i32(15))}};
    CHECK(s(Div::make(x, i32(16)), known) == "0");
    CHECK(s(Mod::make(x, i32(16)), known) == "x");
    CHECK(s(Mod::make(Add::make(x, i32(16)), i32(16)), known) == "x");
    // Not for wrapping types: (u * 4) / 4 is not u when u * 4 wraps.
    Expr u = Variable::make(UInt(8), "u");
    CHECK(simplify(Div::make(Mul::make(u, c(UInt(8), 4)), c(UInt(8), 4))).as<Div>());
    // But a uint8 is always below 256.
    CHECK(s(Div::make(Cast::make(Int(32), u), i32(256))) == "0");
}

TEST_CASE("a quotient times its divisor plus the remainder is the dividend, as Euclidean division gives") {
    const Expr e = Add::make(x, y);
    auto joined = [&](int k, int times) {
        return Add::make(Mul::make(Div::make(e, i32(k)), i32(k * times)),
                         Mul::make(Mod::make(e, i32(k)), i32(times)));
    };
    CHECK(s(joined(2, 1)) == "(x + y)");
    CHECK(s(joined(-3, 1)) == "(x + y)");
    CHECK(s(Add::make(joined(4, 3), z)) == "(((x * 3) + (y * 3)) + z)");
    // The index of a layout interleaved by 2, read at a coordinate: dense.
    CHECK(s(Sub::make(joined(2, 1), Mul::make(x, i32(2)))) == "(y - x)");
    // Wrapping types too: the identity holds in the integers, so modulo 2^bits.
    const Expr u = Variable::make(UInt(8), "u"), two = c(UInt(8), 2);
    CHECK(s(Add::make(Mul::make(Div::make(u, two), two), Mod::make(u, two))) == "u");
    // Not where the quotient's coefficient is not the divisor's multiple of the remainder's.
    CHECK(s(Add::make(Mul::make(Div::make(x, i32(2)), i32(3)), Mod::make(x, i32(2)))).find("%") !=
          std::string::npos);
}

TEST_CASE("a ramp within one block of an aligned base divides to a broadcast, modulo to a ramp") {
    const Expr x16 = Mul::make(x, i32(16));
    auto ramp = [](const Expr& base, int stride, int lanes) { return Ramp::make(base, i32(stride), lanes); };
    auto by = [](int k, int lanes) { return Broadcast::make(i32(k), lanes); };
    CHECK(s(Div::make(ramp(x16, 1, 16), by(16, 16))) == "x16(x)");
    CHECK(s(Mod::make(ramp(x16, 1, 16), by(16, 16))) == "ramp(0, 1, 16)");
    CHECK(s(Mod::make(ramp(Add::make(x16, i32(4)), 2, 4), by(16, 4))) == "ramp(4, 2, 4)");
    CHECK(s(Div::make(ramp(Add::make(x16, i32(8)), 1, 8), by(8, 8))) == "x8(((x * 2) + 1))");
    // The base is known through a let: a tile's start.
    const Expr t = Variable::make(Int(32), "t");
    CHECK(s(Let::make("t", x16, Div::make(ramp(t, 1, 8), by(16, 8)))) ==
          "(let t = (x * 16) in x8((t / 16)))");
    CHECK(s(Let::make("t", Add::make(x16, y), Div::make(ramp(t, 1, 8), by(16, 8)))).find("ramp") !=
          std::string::npos);
    // A ramp that crosses into the next block stays as it is.
    CHECK(s(Div::make(ramp(Add::make(x16, i32(9)), 1, 8), by(16, 8))).find("ramp") != std::string::npos);
    CHECK(s(Mod::make(ramp(x16, 3, 8), by(16, 8))).find("%") != std::string::npos);
    // Scalars: a known remainder.
    CHECK(s(Let::make("t", Add::make(x16, i32(3)), Mod::make(t, i32(8)))) == "3");
}

// ---- Bounds-aware min and max ----

TEST_CASE("min and max of quotients by the same positive constant divide the min or max") {
    CHECK(s(Max::make(Div::make(Add::make(x, i32(7)), i32(8)), Div::make(Add::make(x, i32(6)), i32(8)))) ==
          "((x + 7) / 8)");
    CHECK(s(Min::make(Div::make(x, i32(4)), Div::make(y, i32(4)))) == "(min(x, y) / 4)");
    // Not by a negative divisor, which reverses the order.
    CHECK(s(Max::make(Div::make(x, i32(-4)), Div::make(y, i32(-4)))).find("max((x / -4)") !=
          std::string::npos);
}

TEST_CASE("min and max of provably ordered operands pick one") {
    CHECK(s(Min::make(x, Add::make(x, i32(1)))) == "x");
    CHECK(s(Max::make(Add::make(x, i32(3)), x)) == "(x + 3)");
    CHECK(s(Min::make(Min::make(x, i32(5)), i32(3))) == "min(x, 3)");
    CHECK(s(Max::make(i32(3), Max::make(x, i32(5)))) == "max(x, 5)");
    CHECK(s(Min::make(i32(3), x)) == "min(x, 3)");
    CHECK(s(Min::make(x, i32(20)), {{"x", Interval(i32(0), i32(10))}}) == "x");
    CHECK(s(Max::make(x, i32(20)), {{"x", Interval(i32(0), i32(10))}}) == "20");
    CHECK(s(Min::make(x, i32(5)), {{"x", Interval(i32(0), i32(10))}}) == "min(x, 5)");
    CHECK(s(Min::make(Max::make(x, y), x)) == "x");
    CHECK(s(Max::make(Min::make(x, y), y)) == "y");
    CHECK(s(Min::make(Min::make(x, y), x)) == "min(x, y)");
    // Symbolic intervals: a loop variable in [0, n - 1] is below n.
    Expr n = int_var("n");
    std::map<std::string, Interval> loop = {{"x", Interval(i32(0), Sub::make(n, i32(1)))}};
    CHECK(s(Min::make(x, Sub::make(n, i32(1))), loop) == "x");
    CHECK(s(Max::make(x, i32(0)), loop) == "x");
    CHECK(s(LT::make(x, n), loop) == "(bool)1");
    // Relations survive when an interval is written in terms of another variable in scope.
    std::map<std::string, Interval> nested = {{"y", Interval(i32(0), i32(10))},
                                              {"x", Interval(y, Add::make(y, i32(3)))}};
    CHECK(s(Min::make(x, Add::make(y, i32(3))), nested) == "x");
    CHECK(s(Max::make(x, y), nested) == "x");
    // Also through lets whose values use the loop variable (interval arithmetic alone forgets
    // that y's interval and y.min are related).
    Expr ymin = int_var("ymin"), m = int_var("m");
    Stmt nest = For::make(
        "y", ymin, m, ForKind::Serial,
        LetStmt::make("t", Mul::make(y, i32(2)), Store::make("f", Min::make(y, ymin), int_var("t"))));
    CHECK(to_string(simplify(LetStmt::make("ymin", Min::make(m, i32(5)), nest))) ==
          "let ymin = min(m, 5)\nfor (y, ymin, m) {\n  let t = (y * 2)\n  f[t] = ymin\n}\n");
    // The same bound asked for again under another interval of its variable is proved anew: the
    // second loop runs x past n, where min(x, n) is n.
    Expr n1 = int_var("n1");
    Stmt first = For::make("x", i32(0), n1, ForKind::Serial, Store::make("f", Min::make(x, n1), i32(0)));
    Stmt second = For::make("x", i32(0), Add::make(n1, i32(5)), ForKind::Serial,
                            Store::make("f", Min::make(x, n1), i32(1)));
    CHECK(to_string(simplify(Block::make(first, second))) ==
          "for (x, 0, n1) {\n  f[0] = x\n}\nfor (x, 0, (n1 + 5)) {\n  f[1] = min(x, n1)\n}\n");
    // Narrow types use their ranges: every uint8 is at most 255.
    Expr u = Variable::make(UInt(8), "u");
    CHECK(s(Min::make(u, c(UInt(8), 255))) == "u");
    CHECK(s(Min::make(Cast::make(Int(32), u), i32(300))) == "int32(u)");
}

TEST_CASE("rewrites never make an int32 expression overflow where the original does not") {
    const int64_t int_min = std::numeric_limits<int32_t>::min(),
                  int_max = std::numeric_limits<int32_t>::max();
    // Constants are folded exactly: 100 - (x*100 + INT_MIN) is not (0 - x*100) - 2147483548.
    Expr e = Sub::make(i32(100), Add::make(Mul::make(x, i32(100)), i32(int_min)));
    test::Evaluator ev;
    ev.env["x"] = 2;
    CHECK(ev.eval(simplify(e)) == 2147483548);
    // Differences the simplifier builds to prove things are exact (65535 - (INT_MIN + 1) does not
    // wrap to "65535 is below INT_MIN + 1").
    CHECK(s(Min::make(Min::make(x, i32(65535)), i32(int_min + 1))) == "min(x, -2147483647)");
    CHECK(s(Max::make(Max::make(x, i32(65535)), i32(int_min + 1))) == "max(x, 65535)");
    CHECK(s(Min::make(i32(int_min), x)) == "-2147483648");
    CHECK(s(Max::make(i32(int_max), x)) == "2147483647");
    CHECK(s(Min::make(x, i32(int_min)), {{"x", range_of(1, 1)}}) == "-2147483648");
    // A comparison keeps its terms on their sides: y - x <= x is not y <= x*2.
    CHECK(s(LE::make(Sub::make(y, x), x)) == "((y - x) <= x)");
    // (z + 3*y + x/y) / -3 is not split into (z + x/y) / -3 - y, whose z + x/y may overflow.
    CHECK(simplify(Div::make(Add::make(Add::make(z, Mul::make(y, i32(3))), Div::make(x, y)), i32(-3)))
              .as<Div>());
    // A remainder past the type: (min(y, INT_MIN) % 3) is 1, computed exactly.
    CHECK(s(Div::make(Mod::make(Min::make(i32(int_min), y), i32(3)), i32(3))) == "0");
}

TEST_CASE("comparisons cancel common terms and use ranges") {
    CHECK(s(LT::make(Add::make(x, i32(1)), Add::make(x, y))) == "(1 < y)");
    CHECK(s(LT::make(Add::make(x, i32(1)), x)) == "(bool)0");
    CHECK(s(LE::make(x, Add::make(x, i32(1)))) == "(bool)1");
    CHECK(s(EQ::make(Mul::make(x, i32(2)), Add::make(x, x))) == "(bool)1");
    CHECK(s(GE::make(x, i32(0)), {{"x", Interval(i32(0), Interval().max)}}) == "(bool)1");
    CHECK(s(LT::make(x, y)) == "(x < y)");
    CHECK(can_prove(LT::make(x, i32(11)), {{"x", Interval(i32(0), i32(10))}}));
    CHECK_FALSE(can_prove(LT::make(x, i32(10)), {{"x", Interval(i32(0), i32(10))}}));
    CHECK_FALSE(can_prove(LT::make(x, y)));
    CHECK(can_prove(LE::make(Mod::make(x, i32(8)), i32(7))));
    CHECK(can_prove(GE::make(Mod::make(x, i32(-8)), i32(0))));
}

// ---- Lets and statements ----

TEST_CASE("lets of constants and variables are substituted, unused lets dropped") {
    Expr t = int_var("t");
    CHECK(s(Let::make("t", i32(3), Add::make(t, x))) == "(x + 3)");
    CHECK(s(Let::make("t", y, Add::make(t, x))) == "(x + y)");
    CHECK(s(Let::make("t", Mul::make(y, z), x)) == "x");
    CHECK(s(Let::make("t", Mul::make(y, z), Add::make(t, t))) == "(let t = (y * z) in (t * 2))");
    // A let of a variable that an inner let rebinds is not substituted into that inner scope.
    Expr e = Let::make("t", y, Let::make("y", i32(5), Add::make(t, y)));
    test::Evaluator ev;
    ev.env["y"] = 11;
    CHECK(ev.eval(simplify(e)) == 16);
}

TEST_CASE("loops with no iterations vanish; loops of one iteration become lets") {
    Stmt body = Store::make("f", Add::make(x, y), x);
    CHECK(to_string(simplify(For::make("x", i32(0), i32(0), ForKind::Serial, body))) == "0\n");
    CHECK(to_string(simplify(For::make("x", i32(0), i32(-3), ForKind::Serial, body))) == "0\n");
    CHECK(to_string(simplify(For::make("x", i32(4), i32(1), ForKind::Serial, body))) == "f[4] = (y + 4)\n");
    CHECK(to_string(simplify(For::make("x", Mul::make(y, z), i32(1), ForKind::Serial, body))) ==
          "let x = (y * z)\nf[x] = (x + y)\n");
    // Inside a loop, its variable's range is known.
    Stmt clamped = Store::make("f", Min::make(x, i32(100)), x);
    CHECK(to_string(simplify(For::make("x", i32(0), i32(10), ForKind::Serial, clamped))) ==
          "for (x, 0, 10) {\n  f[x] = x\n}\n");
    Expr n = int_var("n");
    Stmt guarded = Store::make("f", Min::make(x, Sub::make(n, i32(1))), x);
    CHECK(to_string(simplify(For::make("x", i32(0), n, ForKind::Serial, guarded))) ==
          "for (x, 0, n) {\n  f[x] = x\n}\n");
}

TEST_CASE("ifs with known conditions and asserts proved true disappear") {
    Stmt a = Store::make("f", i32(1), x), b = Store::make("f", i32(2), x);
    CHECK(to_string(simplify(IfThenElse::make(LT::make(i32(1), i32(2)), a, b))) == "f[x] = 1\n");
    CHECK(to_string(simplify(IfThenElse::make(LT::make(i32(2), i32(1)), a, b))) == "f[x] = 2\n");
    Stmt loop = For::make("x", i32(0), i32(8), ForKind::Serial, IfThenElse::make(LT::make(x, i32(8)), a, b));
    CHECK(to_string(simplify(loop)) == "for (x, 0, 8) {\n  f[x] = 1\n}\n");
    Expr msg = Call::make_intrinsic(Int(32), Intrinsic::ErrorMessage, {Expr("bad")});
    CHECK(to_string(simplify(Block::make(AssertStmt::make(LE::make(x, Add::make(x, i32(1))), msg), a))) ==
          "f[x] = 1\n");
    // The condition narrows the variables it compares, inside each branch.
    Expr n = int_var("n");
    Stmt guarded = IfThenElse::make(LT::make(x, n), Store::make("f", Min::make(x, Sub::make(n, i32(1))), x),
                                    Store::make("g", Max::make(x, n), x));
    Stmt inside = For::make("x", i32(0), i32(100), ForKind::Serial, guarded);
    CHECK(to_string(simplify(inside)) ==
          "for (x, 0, 100) {\n  if ((x < n)) {\n    f[x] = x\n  } else {\n    g[x] = x\n  }\n}\n");
}

TEST_CASE("long let chains and blocks simplify without deep recursion") {
    const int n = 20000;
    Stmt s = Store::make("out", int_var("v" + std::to_string(n - 1)), i32(0));
    for (int i = n - 1; i >= 1; i--) {
        Expr value = Add::make(Mul::make(int_var("v" + std::to_string(i - 1)), int_var("p")), i32(1));
        s = LetStmt::make("v" + std::to_string(i), value, s);
    }
    s = LetStmt::make("v0", int_var("p"), s);
    Stmt r = simplify(s);
    // v0 is a variable and is substituted; the others stay, all used.
    int lets = 0;
    for (Stmt at = r; const LetStmt* l = at.as<LetStmt>(); at = l->body) lets++;
    CHECK(lets == n - 1);
    std::vector<Stmt> stmts;
    for (int i = 0; i < n; i++) stmts.push_back(Store::make("out", Add::make(i32(i), i32(1)), i32(i)));
    Stmt block = simplify(Block::make(stmts));
    REQUIRE(block.as<Block>());
    CHECK(block.as<Block>()->stmts.size() == size_t(n));
}

TEST_CASE("nested selects, mins and maxes simplify in reasonable time") {
    // Each level doubles the size of a tree written out, not of the IR: the simplifier must not
    // walk shared subtrees once per path.
    Expr e = x;
    for (int i = 0; i < 60; i++) {
        Expr cond = LT::make(e, Add::make(y, i32(i)));
        e = Select::make(cond, Min::make(e, Add::make(z, i32(i))), Max::make(e, Sub::make(y, i32(i))));
    }
    Expr r = simplify(e, {{"y", Interval(i32(0), i32(100))}});
    CHECK(r.defined());
    Expr chain = x;
    for (int i = 0; i < 300; i++)
        chain = (i % 2 ? Expr(Min::make(chain, Add::make(y, i32(i))))
                       : Expr(Max::make(chain, Sub::make(z, i32(i)))));
    CHECK(simplify(chain).defined());
}

// ---- Randomized: simplify preserves values ----

namespace {

void check_simplify_preserves_values(uint32_t seed, bool with_known, bool big_constants = false) {
    test::RandomExprs gen(seed);
    gen.big_constants = big_constants;
    int checked = 0;
    for (int iteration = 0; iteration < 1500; iteration++) {
        Type t = gen.random_type();
        Expr e = gen.expr(t, 1 + gen.pick(5));
        std::map<std::string, Interval> known;
        int64_t x_lo = 0, x_hi = 0;
        if (with_known) {
            x_lo = gen.pick(41) - 20;
            x_hi = x_lo + gen.pick(30);
            known["x_int32"] = Interval(i32(x_lo), i32(x_hi));
            // An interval in terms of another variable in scope.
            known["y_int32"] = Interval(Sub::make(test::RandomExprs::var("x", Int(32)), i32(3)),
                                        Add::make(test::RandomExprs::var("x", Int(32)), i32(4)));
        }
        Expr r = simplify(e, known);
        REQUIRE(r.type() == e.type());
        for (int sample = 0; sample < 12; sample++) {
            test::Evaluator before, after;
            for (Type vt : test::RandomExprs::types()) {
                for (const char* name : {"x", "y", "z"})
                    before.env[test::RandomExprs::var_name(name, vt)] = gen.random_value(vt);
            }
            if (with_known) {
                const int64_t xv = x_lo + gen.pick(int(x_hi - x_lo + 1));
                before.env["x_int32"] = xv;
                before.env["y_int32"] = xv - 3 + gen.pick(8);
            }
            after.env = before.env;
            const int64_t expected = before.eval(e);
            if (before.overflowed) continue;  // Int(32) overflow is assumed away
            const int64_t got = after.eval(r);
            checked++;
            if (got != expected) {
                std::string env;
                for (const auto& [k, v] : before.env) env += k + "=" + std::to_string(v) + " ";
                FAIL_CHECK("simplify changed a value\n  original:   " << e << "\n  simplified: " << r
                                                                      << "\n  at " << env << "\n  expected "
                                                                      << expected << ", got " << got);
                return;
            }
        }
    }
    CHECK(checked > 10000);
}

}  // namespace

TEST_CASE("randomized: simplified expressions evaluate as the originals") {
    for (uint32_t seed : {1u, 2u, 3u}) check_simplify_preserves_values(seed, false);
}

TEST_CASE("randomized: simplified expressions evaluate as the originals within known intervals") {
    for (uint32_t seed : {11u, 12u, 13u}) check_simplify_preserves_values(seed, true);
}

TEST_CASE("randomized: with constants near the int32 limits, nothing overflows that did not before") {
    // Samples whose original overflows are skipped; the others must keep their values exactly.
    for (uint32_t seed : {41u, 42u}) check_simplify_preserves_values(seed, false, true);
    for (uint32_t seed : {43u, 44u}) check_simplify_preserves_values(seed, true, true);
}
