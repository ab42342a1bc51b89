#include <doctest/doctest.h>

#include "ir/ir_util.h"
#include "ir/modulus_remainder.h"
#include "random_int_exprs.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int64_t v) { return make_const(Int(32), v); }
Expr x = int_var("x"), y = int_var("y");

std::pair<int64_t, int64_t> mr(const Expr& e, const std::map<std::string, Interval>& scope = {}) {
    ModulusRemainder m = modulus_remainder(e, scope);
    return {m.modulus, m.remainder};
}
using MR = std::pair<int64_t, int64_t>;

}  // namespace

TEST_CASE("multiples and offsets of variables have the modulus of their coefficients") {
    CHECK(mr(i32(7)) == MR{0, 7});
    CHECK(mr(x) == MR{1, 0});
    CHECK(mr(Mul::make(x, i32(16))) == MR{16, 0});
    CHECK(mr(Add::make(Mul::make(x, i32(16)), i32(35))) == MR{16, 3});
    CHECK(mr(Sub::make(Mul::make(x, i32(16)), i32(1))) == MR{16, 15});
    CHECK(mr(Add::make(Mul::make(x, i32(12)), Mul::make(y, i32(8)))) == MR{4, 0});
    CHECK(mr(Mul::make(Add::make(Mul::make(x, i32(4)), i32(2)), i32(3))) == MR{12, 6});
    CHECK(mr(Div::make(Add::make(Mul::make(x, i32(32)), i32(20)), i32(4))) == MR{8, 5});
    CHECK(mr(Mod::make(Add::make(Mul::make(x, i32(32)), i32(20)), i32(16))) == MR{0, 4});
    CHECK(mr(Mod::make(Add::make(Mul::make(x, i32(6)), i32(1)), i32(4))) == MR{2, 1});
    // Either side of a min, max or select.
    CHECK(mr(Min::make(Mul::make(x, i32(16)), Add::make(Mul::make(y, i32(8)), i32(24)))) == MR{8, 0});
    CHECK(mr(Max::make(Mul::make(x, i32(6)), i32(9))) == MR{3, 0});
    // Division by something not dividing the modulus tells nothing.
    CHECK(mr(Div::make(Mul::make(x, i32(6)), i32(4))) == MR{1, 0});
}

TEST_CASE("a let's variable has its value's modulus, in a Let or through the scope") {
    const Expr t = Variable::make(Int(32), "t");
    CHECK(mr(Let::make("t", Mul::make(x, i32(16)), Add::make(t, i32(5)))) == MR{16, 5});
    // A let's value reads the outer binding of its own name.
    CHECK(mr(Let::make("x", Mul::make(x, i32(8)), Let::make("x", Add::make(x, i32(1)), x))) == MR{8, 1});
    std::map<std::string, Interval> scope = {{"t", Interval::single_point(Mul::make(y, i32(64)))},
                                             {"u", Interval::single_point(Add::make(t, i32(16)))}};
    CHECK(mr(Variable::make(Int(32), "u"), scope) == MR{64, 16});
    // A range, however narrow, is not a value.
    scope["v"] = Interval(Mul::make(y, i32(4)), Add::make(Mul::make(y, i32(4)), i32(1)));
    CHECK(mr(Variable::make(Int(32), "v"), scope) == MR{1, 0});
}

TEST_CASE("wrapping types and narrowing casts tell nothing") {
    const Expr u = Variable::make(UInt(8), "u");
    CHECK(mr(Mul::make(u, make_const(UInt(8), int64_t(16)))) == MR{1, 0});
    CHECK(mr(Cast::make(Int(32), Mul::make(u, make_const(UInt(8), int64_t(16))))) == MR{1, 0});
    CHECK(mr(Cast::make(Int(64), Mul::make(x, i32(16)))) == MR{16, 0});
    CHECK(mr(Cast::make(Int(32), Mul::make(Variable::make(Int(64), "w"),
                                           make_const(Int(64), int64_t(16))))) == MR{1, 0});
}

TEST_CASE("randomized: every value is congruent to the remainder modulo the modulus") {
    test::RandomExprs gen(7);
    int informative = 0, checked = 0;
    for (int iteration = 0; iteration < 3000; iteration++) {
        const Expr e = gen.expr(Int(32), 1 + gen.pick(5));
        const ModulusRemainder m = modulus_remainder(e);
        if (m.modulus != 1) informative++;
        for (int sample = 0; sample < 8; sample++) {
            test::Evaluator ev;
            for (Type vt : test::RandomExprs::types()) {
                for (const char* name : {"x", "y", "z"})
                    ev.env[test::RandomExprs::var_name(name, vt)] = gen.random_value(vt);
            }
            const int64_t value = ev.eval(e);
            if (ev.overflowed) continue;  // Int(32) overflow is assumed away
            checked++;
            const bool holds =
                m.modulus == 0 ? value == m.remainder : test::floor_mod(value - m.remainder, m.modulus) == 0;
            if (!holds) {
                FAIL_CHECK(e << " has value " << value << ", not " << m.modulus << " * q + " << m.remainder);
                return;
            }
        }
    }
    CHECK(checked > 10000);
    CHECK(informative > 300);
}
