#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "ir/equal.h"
#include "ir/ir_util.h"
#include "ir/printer.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int64_t v) { return make_const(Int(32), v); }

}  // namespace

TEST_CASE("structurally equal trees built separately are equal") {
    Expr x = int_var("x"), y = int_var("y");
    Expr a = Add::make(Mul::make(x, i32(2)), Min::make(y, i32(3)));
    Expr b = Add::make(Mul::make(int_var("x"), i32(2)), Min::make(int_var("y"), i32(3)));
    CHECK(equal(a, b));
    CHECK(compare(a, b) == 0);
    CHECK(equal(Expr(), Expr()));
    CHECK_FALSE(equal(a, Expr()));
}

TEST_CASE("equality tells apart names, kinds, types and values") {
    Expr x = int_var("x");
    CHECK_FALSE(equal(x, int_var("y")));
    CHECK_FALSE(equal(x, Variable::make(Int(64), "x")));
    CHECK_FALSE(equal(Add::make(x, i32(1)), Sub::make(x, i32(1))));
    CHECK_FALSE(equal(Add::make(x, i32(1)), Add::make(x, i32(2))));
    CHECK_FALSE(equal(Add::make(x, i32(1)), Add::make(i32(1), x)));
    CHECK_FALSE(equal(make_const(Int(32), int64_t(1)), make_const(UInt(32), int64_t(1))));
    CHECK_FALSE(equal(make_const(Int(32), int64_t(1)), make_const(Int(32, 4), int64_t(1))));
    // Bit for bit: the zeros differ, a NaN equals itself.
    CHECK_FALSE(equal(FloatImm::make(Float(32), 0.0), FloatImm::make(Float(32), -0.0)));
    Expr nan = FloatImm::make(Float(64), std::nan(""));
    CHECK(equal(nan, FloatImm::make(Float(64), std::nan(""))));
    CHECK_FALSE(equal(Load::make(Int(32), "a", x), Load::make(Int(32), "b", x)));
    CHECK_FALSE(equal(Let::make("t", x, x), Let::make("u", x, x)));
}

TEST_CASE("calls are equal only with the same name, kind and arguments") {
    Expr x = int_var("x");
    Expr f = Call::make_extern(Float(32), "sinf", {Cast::make(Float(32), x)});
    CHECK(equal(f, Call::make_extern(Float(32), "sinf", {Cast::make(Float(32), x)})));
    CHECK_FALSE(equal(f, Call::make_extern(Float(32), "cosf", {Cast::make(Float(32), x)})));
    Expr abs_x = Call::make_intrinsic(UInt(32), Intrinsic::Abs, {x});
    CHECK_FALSE(equal(abs_x, Call::make_intrinsic(UInt(32), Intrinsic::Abs, {int_var("y")})));
}

TEST_CASE("statements compare structurally, including long let chains") {
    auto build = [](int n) {
        Stmt s = Store::make("out", int_var("v0"), i32(0));
        for (int i = n - 1; i >= 0; i--) s = LetStmt::make("v" + std::to_string(i), i32(i), s);
        return For::make("x", i32(0), i32(10), ForKind::Serial, s);
    };
    CHECK(equal(build(20000), build(20000)));
    CHECK_FALSE(equal(build(20000), build(19999)));
    Stmt a = IfThenElse::make(LT::make(int_var("x"), i32(3)), Evaluate::make(i32(1)));
    Stmt b = IfThenElse::make(LT::make(int_var("x"), i32(3)), Evaluate::make(i32(1)), Evaluate::make(i32(2)));
    CHECK_FALSE(equal(a, b));
    CHECK(equal(Block::make(a, b), Block::make(a, b)));
    CHECK_FALSE(equal(For::make("x", i32(0), i32(4), ForKind::Serial, a),
                      For::make("x", i32(0), i32(4), ForKind::Parallel, a)));
}

TEST_CASE("ExprLess is a strict weak order usable as a map key") {
    Expr x = int_var("x"), y = int_var("y");
    std::vector<Expr> all = {
        x, y, i32(3), Add::make(x, y), Add::make(y, x), Mul::make(x, i32(2)), Min::make(x, y)};
    for (const Expr& a : all) {
        CHECK_FALSE(ExprLess()(a, a));
        for (const Expr& b : all) {
            if (equal(a, b)) continue;
            CHECK(ExprLess()(a, b) != ExprLess()(b, a));
            for (const Expr& c : all) {
                if (ExprLess()(a, b) && ExprLess()(b, c)) CHECK(ExprLess()(a, c));
            }
        }
    }
    std::map<Expr, int, ExprLess> counts;
    counts[Add::make(x, i32(1))]++;
    counts[Add::make(int_var("x"), i32(1))]++;
    counts[Add::make(x, i32(2))]++;
    CHECK(counts.size() == 2);
    CHECK(counts[Add::make(x, i32(1))] == 2);
    // Variables order by name, so orders are the same from run to run.
    CHECK(ExprLess()(int_var("a"), int_var("b")));
}

TEST_CASE("deep let expressions compare without deep recursion") {
    auto build = [](int n) {
        Expr e = int_var("t0");
        for (int i = n; i >= 1; i--) e = Let::make("t" + std::to_string(i), i32(i), e);
        return e;
    };
    CHECK(equal(build(50000), build(50000)));
    CHECK(compare(build(50000), build(50001)) != 0);
}
