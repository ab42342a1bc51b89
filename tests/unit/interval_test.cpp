#include <doctest/doctest.h>

#include <chrono>
#include <sstream>

#include "ir/interval.h"
#include "ir/interval_ends.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "random_int_exprs.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int64_t v) { return make_const(Int(32), v); }
Expr c(Type t, int64_t v) { return make_const(t, v); }

std::string str(const Interval& i) {
    std::ostringstream out;
    out << i;
    return out.str();
}

std::string bounds(const Expr& e, const std::map<std::string, Interval>& scope = {}) {
    return str(bounds_of_expr(e, scope));
}

Interval range(int64_t lo, int64_t hi) { return Interval(i32(lo), i32(hi)); }

Expr func_call(Type t, const std::string& name, std::vector<Expr> args) {
    return Expr(std::make_shared<Call>(t, name, std::move(args), CallType::Func));
}

Expr image_call(Type t, const std::string& name, std::vector<Expr> args) {
    return Call::make_image(t, name, std::move(args), nullptr, nullptr);
}

Expr x = int_var("x"), y = int_var("y"), a = int_var("a"), b = int_var("b"), n = int_var("n");

}  // namespace

TEST_CASE("intervals have unbounded ends, single points, unions and intersections") {
    CHECK(Interval::everything().is_everything());
    CHECK_FALSE(Interval::everything().is_bounded());
    CHECK(Interval::single_point(x).is_single_point());
    CHECK(str(Interval::everything()) == "[-inf, +inf]");
    CHECK(str(interval_union(range(0, 5), range(3, 9))) == "[0, 9]");
    CHECK(str(interval_union(range(0, 5), Interval(Expr(), i32(2)))) == "[-inf, 5]");
    CHECK(str(interval_intersection(range(0, 5), range(3, 9))) == "[3, 5]");
    CHECK(str(interval_intersection(range(0, 5), Interval(i32(2), Expr()))) == "[2, 5]");
    CHECK(str(interval_union(Interval(x, Add::make(x, i32(4))),
                             Interval(Add::make(x, i32(1)), Add::make(x, i32(8))))) == "[x, (x + 8)]");
}

TEST_CASE("bounds of sums and differences follow the variables' intervals") {
    CHECK(bounds(Add::make(x, i32(1)), {{"x", Interval(a, b)}}) == "[(a + 1), (b + 1)]");
    CHECK(bounds(Sub::make(x, y), {{"x", range(0, 10)}, {"y", range(-3, 4)}}) == "[-4, 13]");
    CHECK(bounds(Sub::make(x, x), {{"x", range(0, 10)}}) == "[-10, 10]");  // intervals forget relations
    // Variables not in scope stand for themselves.
    CHECK(bounds(Add::make(x, y), {{"x", range(0, 10)}}) == "[y, (y + 10)]");
    CHECK(bounds(Add::make(x, y)) == "[(x + y), (x + y)]");
    CHECK(bounds_of_expr(Add::make(x, y)).is_single_point());
    CHECK(bounds(Add::make(x, i32(1)), {{"x", Interval(i32(0), Expr())}}) == "[1, +inf]");
}

TEST_CASE("bounds of products, by constants of either sign and of intervals") {
    CHECK(bounds(Mul::make(x, i32(3)), {{"x", range(-2, 5)}}) == "[-6, 15]");
    CHECK(bounds(Mul::make(x, i32(-2)), {{"x", range(0, 10)}}) == "[-20, 0]");
    CHECK(bounds(Mul::make(x, i32(-2)), {{"x", Interval(a, b)}}) == "[(0 - (b * 2)), (0 - (a * 2))]");
    CHECK(bounds(Mul::make(x, y), {{"x", range(-2, 3)}, {"y", range(-5, 4)}}) == "[-15, 12]");
    Interval product = bounds_of_expr(Mul::make(x, y), {{"x", Interval(a, b)}, {"y", range(2, 3)}});
    CHECK(product.is_bounded());
    CHECK(bounds(Mul::make(x, y), {{"x", range(0, 10)}, {"y", Interval(i32(0), Expr())}}) == "[0, +inf]");
}

TEST_CASE("bounds of Euclidean division and modulo") {
    CHECK(bounds(Div::make(x, i32(2)), {{"x", range(-7, 7)}}) == "[-4, 3]");
    CHECK(bounds(Div::make(x, i32(-2)), {{"x", range(-7, 7)}}) == "[-3, 4]");
    CHECK(bounds(Div::make(x, i32(4)), {{"x", Interval(a, b)}}) == "[(a / 4), (b / 4)]");
    CHECK(bounds(Div::make(x, i32(0)), {{"x", range(-7, 7)}}) == "[0, 0]");
    CHECK(bounds(Div::make(x, y), {{"x", range(0, 100)}, {"y", range(1, 4)}}) == "[0, 100]");
    CHECK(bounds(Div::make(x, y), {{"x", range(0, 10)}, {"y", range(-1, 1)}}) == "[-10, 10]");
    CHECK(bounds(Mod::make(x, i32(8)), {{"x", Interval(a, b)}}) == "[0, 7]");
    CHECK(bounds(Mod::make(x, i32(-8)), {{"x", Interval::everything()}}) == "[0, 7]");
    CHECK(bounds(Mod::make(x, i32(8)), {{"x", range(2, 5)}}) == "[2, 5]");
    CHECK(bounds(Mod::make(x, i32(8)), {{"x", range(10, 13)}}) == "[2, 5]");
    CHECK(bounds(Mod::make(x, i32(0)), {{"x", Interval::everything()}}) == "[0, 0]");
    CHECK(bounds(Mod::make(x, i32(8))) == "[(x % 8), (x % 8)]");
    CHECK(bounds(Mod::make(x, y), {{"y", range(-3, 5)}}) == "[0, 4]");
    // The divisor ranges over an empty loop (y from 1 to 0): there is no quotient, and no crash.
    CHECK(bounds(Div::make(x, y), {{"x", range(-1, 5)}, {"y", range(1, 0)}}) == "[0, 0]");
    // A symbolic positive divisor: the corners bound the quotient.
    CHECK(bounds_of_expr(Div::make(x, Max::make(n, i32(1))), {{"x", range(0, 100)}}).is_bounded());
}

TEST_CASE("bounds of min, max and select") {
    CHECK(bounds(Min::make(x, i32(5)), {{"x", range(0, 10)}}) == "[0, 5]");
    CHECK(bounds(Max::make(x, y), {{"x", range(0, 10)}, {"y", range(-3, 20)}}) == "[0, 20]");
    CHECK(bounds(Min::make(x, i32(5)), {{"x", Interval(i32(0), Expr())}}) == "[0, 5]");
    CHECK(bounds(Max::make(x, i32(5)), {{"x", Interval(Expr(), i32(3))}}) == "[5, 5]");
    CHECK(bounds(Max::make(Min::make(x, Sub::make(n, i32(1))), i32(0))) ==
          "[max(min(x, (n - 1)), 0), max(min(x, (n - 1)), 0)]");
    CHECK(bounds(Max::make(Min::make(x, Sub::make(n, i32(1))), i32(0)), {{"x", Interval::everything()}}) ==
          "[0, max((n - 1), 0)]");
    CHECK(bounds(Select::make(LT::make(y, i32(0)), x, i32(100)), {{"x", range(0, 10)}}) == "[0, 100]");
    CHECK(bounds(Select::make(LT::make(x, i32(0)), i32(-5), x), {{"x", range(3, 10)}}) == "[3, 10]");
}

TEST_CASE("a sum with a min of terms that cancel is bounded as the min of the sums") {
    // A vectorized loop over a tile [x * 16, min(x * 16 + 15, n - 1)] shifts its last vector
    // inwards: x * 16 + min(v * 16, min(n - 1 - x * 16, 15) - 15). Taken apart, x * 16 at its
    // least and the shift at its least (at the last x) give about -n; the tile never starts before
    // min(0, n - 16).
    Expr shift = Min::make(
        Mul::make(y, i32(16)),
        Sub::make(Min::make(Sub::make(Sub::make(n, i32(1)), Mul::make(x, i32(16))), i32(15)), i32(15)));
    Expr start = Add::make(Mul::make(x, i32(16)), shift);
    const Interval tiles(i32(0), Div::make(Sub::make(n, i32(1)), i32(16)));
    const Interval vectors = range(0, 0);
    CHECK(bounds(start, {{"x", tiles}, {"y", vectors}}) ==
          "[min((n - 16), 0), min((n - 16), (((n - 1) / 16) * 16))]");
    // The same for x - min(...) (a max), and nothing changes where no term cancels.
    CHECK(bounds(Sub::make(x, Min::make(x, a)), {{"x", range(0, 10)}, {"a", range(0, 3)}}) == "[0, 10]");
    CHECK(bounds(Add::make(y, Min::make(x, a)),
                 {{"x", range(0, 10)}, {"a", range(0, 3)}, {"y", range(1, 2)}}) == "[1, 5]");
}

TEST_CASE("bounds of casts keep the range where the cast cannot wrap") {
    Expr u = Variable::make(UInt(8), "u");
    CHECK(bounds(Cast::make(Int(32), u), {{"u", Interval(c(UInt(8), 3), c(UInt(8), 7))}}) == "[3, 7]");
    CHECK(bounds(Cast::make(UInt(8), x), {{"x", range(0, 200)}}) == "[(uint8)0, (uint8)200]");
    CHECK(bounds(Cast::make(UInt(8), x), {{"x", range(0, 300)}}) == "[(uint8)0, (uint8)255]");
    CHECK(bounds(Cast::make(Int(64), x), {{"x", Interval(a, b)}}) == "[int64(a), int64(b)]");
    CHECK(bounds(Cast::make(Int(32), x), {{"x", range(0, 9)}}) == "[0, 9]");
    Expr fx = Variable::make(Float(32), "fx");
    CHECK(bounds(Cast::make(Int(32), fx), {{"fx", Interval(FloatImm::make(Float(32), -1.5),
                                                           FloatImm::make(Float(32), 2.5))}}) == "[-1, 2]");
    CHECK(bounds(Cast::make(Float(32), x), {{"x", range(-3, 3)}}) == "[-3.0f, 3.0f]");
}

TEST_CASE("unknown values span their type: bounded for narrow types, not for int32") {
    CHECK(bounds(func_call(UInt(8), "f", {x})) == "[(uint8)0, (uint8)255]");
    CHECK(bounds(image_call(Int(16), "in", {x})) == "[(int16)-32768, (int16)32767]");
    CHECK(bounds(func_call(Bool(), "f", {x})) == "[(bool)0, (bool)1]");
    CHECK(bounds(func_call(Int(32), "f", {x})) == "[-inf, +inf]");
    CHECK(bounds(Load::make(UInt(16), "buf", x)) == "[(uint16)0, (uint16)65535]");
    CHECK(bounds(Cast::make(Int(32), func_call(UInt(8), "f", {x}))) == "[0, 255]");
    CHECK(bounds(Add::make(Cast::make(Int(32), func_call(UInt(8), "f", {x})), i32(1))) == "[1, 256]");
    // Narrow arithmetic that may wrap spans the type.
    Expr u = Variable::make(UInt(8), "u");
    CHECK(bounds(Add::make(u, c(UInt(8), 1)), {{"u", Interval(c(UInt(8), 0), c(UInt(8), 254))}}) ==
          "[(uint8)1, (uint8)255]");
    CHECK(bounds(Add::make(u, c(UInt(8), 1)), {{"u", Interval(c(UInt(8), 0), c(UInt(8), 255))}}) ==
          "[(uint8)0, (uint8)255]");
    CHECK(bounds(Add::make(u, c(UInt(8), 1))) == "[(u + (uint8)1), (u + (uint8)1)]");
    // Pure intrinsics of single points are single points.
    Expr extent = Call::make_intrinsic(Int(32), Intrinsic::BufferExtent,
                                       {Variable::make(Handle(), "in.buffer"), i32(0)});
    CHECK(bounds_of_expr(Sub::make(extent, i32(1))).is_single_point());
}

TEST_CASE("bounds of lets, comparisons, ramps and broadcasts") {
    Expr t = int_var("t");
    CHECK(bounds(Let::make("t", Mul::make(x, i32(2)), Add::make(t, i32(1))), {{"x", range(0, 10)}}) ==
          "[1, 21]");
    CHECK(bounds(LT::make(x, y)) == "[(x < y), (x < y)]");
    CHECK(bounds(LT::make(x, i32(5)), {{"x", range(0, 10)}}) == "[(bool)0, (bool)1]");
    CHECK(bounds(LT::make(x, i32(50)), {{"x", range(0, 10)}}) == "[(bool)1, (bool)1]");
    CHECK(bounds(Ramp::make(x, i32(2), 4), {{"x", range(0, 10)}}) == "[0, 16]");
    CHECK(bounds(Ramp::make(x, i32(-1), 4), {{"x", range(0, 10)}}) == "[-3, 10]");
    CHECK(bounds(Ramp::make(x, i32(1), 8)) == "[x, (x + 7)]");
    CHECK(bounds(Broadcast::make(x, 8), {{"x", range(0, 10)}}) == "[0, 10]");
    CHECK(bounds(Add::make(Ramp::make(x, i32(1), 4), Broadcast::make(y, 4)), {{"x", range(0, 10)}}) ==
          "[y, (y + 13)]");
}

TEST_CASE("boxes touched by a loop nest: calls, provides, loops, lets and ifs") {
    // for x in [0, n), for y in [0, 10): f(x, y) = g(x + 1, y * 2) + in(x - 1, 0)
    Expr g = func_call(Int(32), "g", {Add::make(x, i32(1)), Mul::make(y, i32(2))});
    Expr in = image_call(Int(32), "in", {Sub::make(x, i32(1)), i32(0)});
    Stmt provide = Provide::make("f", {Add::make(g, in)}, {x, y});
    Stmt nest =
        For::make("x", i32(0), n, ForKind::Serial, For::make("y", i32(0), i32(10), ForKind::Serial, provide));
    std::map<std::string, Box> boxes = boxes_touched(nest);
    REQUIRE(boxes.size() == 3);
    CHECK(str(boxes["f"][0]) == "[0, (n - 1)]");
    CHECK(str(boxes["f"][1]) == "[0, 9]");
    CHECK(str(boxes["g"][0]) == "[1, n]");
    CHECK(str(boxes["g"][1]) == "[0, 18]");
    CHECK(str(boxes["in"][0]) == "[-1, (n - 2)]");
    CHECK(str(boxes["in"][1]) == "[0, 0]");

    // Several sites are united; lets bind their values' intervals.
    Expr t = int_var("t");
    Stmt two =
        Block::make(Evaluate::make(func_call(Int(32), "g", {Sub::make(x, i32(5))})),
                    LetStmt::make("t", Add::make(x, i32(2)), Evaluate::make(func_call(Int(32), "g", {t}))));
    boxes = boxes_touched(For::make("x", a, i32(4), ForKind::Serial, two));
    CHECK(str(boxes["g"][0]) == "[(a - 5), (a + 5)]");

    // An if narrows the variables its condition compares.
    Stmt guarded = IfThenElse::make(LT::make(x, n), Evaluate::make(func_call(Int(32), "h", {x})));
    boxes = boxes_touched(For::make("x", i32(0), i32(100), ForKind::Serial, guarded));
    CHECK(str(boxes["h"][0]) == "[0, min((n - 1), 99)]");

    // Loop bounds that are themselves ranges: the union over the outer loop.
    Stmt inner = For::make("x", Mul::make(y, i32(8)), i32(8), ForKind::Serial,
                           Evaluate::make(func_call(Int(32), "h", {x})));
    boxes = boxes_touched(For::make("y", i32(0), i32(4), ForKind::Serial, inner));
    CHECK(str(boxes["h"][0]) == "[0, 31]");

    // Only Func and image calls count.
    CHECK(boxes_touched(Add::make(Load::make(Int(32), "buf", x), Call::make_extern(Int(32), "abs", {x})))
              .empty());
    // Given an expression and a scope.
    boxes = boxes_touched(func_call(UInt(8), "lut", {Cast::make(Int(32), func_call(UInt(8), "f", {x}))}),
                          {{"x", range(0, 3)}});
    CHECK(str(boxes["lut"][0]) == "[0, 255]");
    CHECK(str(boxes["f"][0]) == "[0, 3]");
}

TEST_CASE("the box of one Func alone equals its box among all, through lets, loops and ifs") {
    // for x in [0, n): let t = x + 2, let u = x * 3, let v = x + 3;
    //   for y in [t, t + 4): if (y < v) g(t, y); h(u)
    // g's box needs the loop over y (through its coordinate), the let t (the loop's min and the
    // coordinate) and the let v (the condition around it); h's needs the second let of the chain.
    Expr t = int_var("t"), u = int_var("u"), v = int_var("v");
    Stmt g_site = IfThenElse::make(LT::make(y, v), Evaluate::make(func_call(Int(32), "g", {t, y})));
    Stmt inner = For::make("y", t, i32(4), ForKind::Serial, g_site);
    Stmt body = Block::make(inner, Evaluate::make(func_call(Int(32), "h", {u})));
    Stmt lets = LetStmt::make(
        "t", Add::make(x, i32(2)),
        LetStmt::make("u", Mul::make(x, i32(3)), LetStmt::make("v", Add::make(x, i32(3)), body)));
    Stmt nest = For::make("x", i32(0), n, ForKind::Serial, lets);
    std::map<std::string, Box> all = boxes_touched(nest);
    for (const std::string name : {"g", "h"}) {
        CAPTURE(name);
        Box alone = box_touched(nest, name);
        REQUIRE(alone.size() == all[name].size());
        for (size_t d = 0; d < alone.size(); d++) CHECK(str(alone[d]) == str(all[name][d]));
    }
    CHECK(str(box_touched(nest, "g")[1]) == "[2, (n + 1)]");  // y < x + 3, x <= n - 1
    CHECK(box_touched(nest, "nothing").empty());
}

TEST_CASE("unbounded coordinates give unbounded boxes, which bounds inference reports") {
    Stmt s = Evaluate::make(func_call(Int(32), "g", {func_call(Int(32), "f", {x})}));
    std::map<std::string, Box> boxes = boxes_touched(For::make("x", i32(0), i32(10), ForKind::Serial, s));
    CHECK_FALSE(boxes["g"][0].is_bounded());
    CHECK(str(boxes["f"][0]) == "[0, 9]");
}

TEST_CASE("a loop whose bounds mention a variable of its own name is bounded in the outer meaning") {
    // for (x, 0, min(x % 7, 5)): the extent's x is the x outside the loop.
    Stmt inner = Evaluate::make(func_call(Int(32), "h", {x}));
    Stmt loop = For::make("x", i32(0), Min::make(Mod::make(x, i32(7)), i32(5)), ForKind::Serial,
                          For::make("x", i32(1), Min::make(x, i32(5)), ForKind::Serial, inner));
    std::map<std::string, Box> boxes = boxes_touched(loop);
    REQUIRE(boxes["h"][0].is_bounded());
    // The outer x runs over [0, 4] and the inner over [1, outer x]: h is read in [1, 4].
    CHECK(can_prove(LE::make(boxes["h"][0].max, i32(5))));
    CHECK(can_prove(GE::make(boxes["h"][0].min, i32(1))));
}

TEST_CASE("boxes of long let chains are found without deep recursion") {
    const int count = 20000;
    Stmt s = Evaluate::make(func_call(Int(32), "g", {int_var("v" + std::to_string(count - 1))}));
    for (int i = count - 1; i >= 1; i--) {
        s = LetStmt::make("v" + std::to_string(i), Add::make(int_var("v" + std::to_string(i - 1)), i32(1)),
                          s);
    }
    s = LetStmt::make("v0", x, s);
    std::map<std::string, Box> boxes = boxes_touched(For::make("x", i32(0), i32(10), ForKind::Serial, s));
    CHECK(str(boxes["g"][0]) == "[" + std::to_string(count - 1) + ", " + std::to_string(count + 8) + "]");
}

// ---- Randomized: bounds contain every value ----

namespace {

void check_bounds_contain_values(uint32_t seed, bool big_constants = false) {
    test::RandomExprs gen(seed);
    gen.big_constants = big_constants;
    int checked = 0;
    for (int iteration = 0; iteration < 2000; iteration++) {
        Type t = gen.random_type();
        Expr e = gen.expr(t, 1 + gen.pick(5));
        // x of each type ranges over a constant interval, y_int32 over one in terms of the free z_int32.
        std::map<std::string, Interval> scope;
        std::map<std::string, std::pair<int64_t, int64_t>> ranges;
        for (Type vt : test::RandomExprs::types()) {
            int64_t lo = gen.random_value(vt), hi = gen.random_value(vt);
            if (lo > hi) std::swap(lo, hi);
            if (vt == Int(32)) hi = lo + gen.pick(40);
            ranges[test::RandomExprs::var_name("x", vt)] = {lo, hi};
            scope[test::RandomExprs::var_name("x", vt)] = Interval(make_const(vt, lo), make_const(vt, hi));
        }
        Expr z = test::RandomExprs::var("z", Int(32));
        scope["y_int32"] = Interval(Sub::make(z, i32(2)), Add::make(z, i32(5)));
        Interval bounds = bounds_of_expr(e, scope);
        for (int sample = 0; sample < 12; sample++) {
            test::Evaluator ev;
            for (Type vt : test::RandomExprs::types()) {
                for (const char* name : {"x", "y", "z"}) {
                    const std::string v = test::RandomExprs::var_name(name, vt);
                    ev.env[v] = gen.random_value(vt);
                    if (ranges.count(v))
                        ev.env[v] = ranges[v].first + gen.pick(int(ranges[v].second - ranges[v].first + 1));
                }
            }
            ev.env["y_int32"] = ev.env["z_int32"] - 2 + gen.pick(8);
            const int64_t value = ev.eval(e);
            if (ev.overflowed) continue;  // Int(32) overflow is assumed away
            test::Evaluator ends = ev;
            // An unbounded end bounds nothing.
            const int64_t lo = bounds.min.defined() ? ends.eval(bounds.min) : INT64_MIN;
            const int64_t hi = bounds.max.defined() ? ends.eval(bounds.max) : INT64_MAX;
            if (ends.overflowed) continue;
            checked++;
            if (value < lo || value > hi) {
                std::string env;
                for (const auto& [k, v] : ev.env) env += k + "=" + std::to_string(v) + " ";
                FAIL_CHECK("a value escapes its bounds\n  expression: "
                           << e << "\n  bounds: " << bounds << "\n  at " << env << "\n  value " << value);
                return;
            }
        }
        if (t != Int(32)) CHECK_MESSAGE(bounds.is_bounded(), "narrow types are always bounded: " << e);
    }
    CHECK(checked > 15000);
}

}  // namespace

TEST_CASE("randomized: the bounds of an expression contain each value it takes") {
    for (uint32_t seed : {21u, 22u, 23u, 24u}) check_bounds_contain_values(seed);
}

TEST_CASE("randomized: bounds contain each value also with constants near the int32 limits") {
    for (uint32_t seed : {25u, 26u}) check_bounds_contain_values(seed, true);
}

// ---- Randomized: boxes contain every site a loop nest touches ----

namespace {

// Random loop nests over x_int32 and y_int32 (the names the random expressions use), with lets, ifs
// and calls of g (int32), lut (uint8) and in (an image) at random coordinates.
class RandomNests {
public:
    explicit RandomNests(uint32_t seed) : gen(seed) {}
    test::RandomExprs gen;

    Expr coordinate() {
        Expr e = gen.expr(Int(32), 2);
        switch (gen.pick(4)) {
            case 0:
                return Add::make(e, Cast::make(Int(32), func_call(UInt(8), "lut", {gen.expr(Int(32), 1)})));
            case 1: return gen.leaf(Int(32));
            default: return e;
        }
    }

    Stmt nest(int depth) {
        switch (depth <= 0 ? 0 : gen.pick(6)) {
            case 0: {
                Expr value = Add::make(func_call(Int(32), "g", {coordinate()}),
                                       image_call(Int(32), "in", {coordinate(), coordinate()}));
                return Provide::make("f", {value}, {coordinate()});
            }
            case 1:
            case 2: {
                const std::string name = test::RandomExprs::var_name(gen.pick(2) ? "x" : "y", Int(32));
                Expr min = gen.pick(2) ? i32(gen.pick(9) - 4) : gen.expr(Int(32), 1);
                Expr extent = gen.pick(4) ? i32(gen.pick(6)) : Min::make(gen.expr(Int(32), 1), i32(5));
                return For::make(name, min, extent, ForKind::Serial, nest(depth - 1));
            }
            case 3: {
                Expr cond = gen.pick(2) ? gen.condition(Int(32), 1)
                                        : LT::make(gen.leaf(Int(32)), gen.expr(Int(32), 1));
                return IfThenElse::make(cond, nest(depth - 1), gen.pick(2) ? nest(depth - 1) : Stmt());
            }
            case 4: {
                const std::string name =
                    gen.pick(3) == 0 ? "x_int32" : "t" + std::to_string(gen.pick(2)) + "_int32";
                Stmt body = nest(depth - 1);
                if (gen.pick(2))
                    body = Block::make(
                        body, Evaluate::make(func_call(Int(32), "g", {Variable::make(Int(32), name)})));
                return LetStmt::make(name, gen.expr(Int(32), 2), body);
            }
            default: return Block::make(nest(depth - 1), nest(depth - 1));
        }
    }
};

void check_boxes_contain_sites(uint32_t seed) {
    RandomNests nests(seed);
    test::RandomExprs& gen = nests.gen;
    int checked = 0;
    for (int iteration = 0; iteration < 600; iteration++) {
        Stmt s = nests.nest(4);
        std::map<std::string, Interval> scope;
        int64_t z_lo = 0, z_hi = 0;
        const bool z_in_scope = gen.pick(2);
        if (z_in_scope) {
            z_lo = gen.pick(21) - 10;
            z_hi = z_lo + gen.pick(10);
            scope["z_int32"] = range(z_lo, z_hi);
        }
        std::map<std::string, Box> boxes = boxes_touched(s, scope);
        for (int sample = 0; sample < 4; sample++) {
            test::Interpreter run;
            for (Type vt : test::RandomExprs::types()) {
                for (const char* name : {"x", "y", "z"})
                    run.ev.env[test::RandomExprs::var_name(name, vt)] = gen.random_value(vt);
            }
            if (z_in_scope) run.ev.env["z_int32"] = z_lo + gen.pick(int(z_hi - z_lo + 1));
            test::Evaluator outside = run.ev;
            run.run(s);
            if (run.ev.overflowed) continue;
            for (const auto& [name, coordinates] : run.sites) {
                REQUIRE(boxes.count(name));
                const Box& box = boxes[name];
                REQUIRE(box.size() == coordinates.size());
                for (size_t d = 0; d < box.size(); d++) {
                    test::Evaluator ends = outside;
                    const int64_t lo = box[d].min.defined() ? ends.eval(box[d].min) : INT64_MIN;
                    const int64_t hi = box[d].max.defined() ? ends.eval(box[d].max) : INT64_MAX;
                    if (ends.overflowed) continue;
                    checked++;
                    if (coordinates[d] < lo || coordinates[d] > hi) {
                        FAIL_CHECK("a site escapes its box: " << name << " dimension " << d << " at "
                                                              << coordinates[d] << ", box " << box[d] << "\n"
                                                              << s);
                        return;
                    }
                }
            }
        }
    }
    CHECK(checked > 1000);
}

}  // namespace

TEST_CASE("randomized: boxes_touched contains every site a loop nest touches") {
    for (uint32_t seed : {31u, 32u, 33u}) check_boxes_contain_sites(seed);
}

TEST_CASE("symbolic divisors of unknown sign still bound quotients and remainders") {
    // Fused loops divide by extents that bounds inference cannot prove positive.
    const Interval q = bounds_of_expr(Div::make(x, n), {{"x", Interval(i32(0), a)}});
    CHECK(q.is_bounded());
    CHECK(str(q) == "[min((a / n), 0), max((a / n), 0)]");
    // A divisor that is a range (here of either sign): the quotient is no larger than the dividend.
    CHECK(bounds(Div::make(x, y), {{"x", Interval(i32(0), a)}, {"y", Interval(b, n)}}) ==
          "[(0 - max(a, 0)), max(a, 0)]");
    CHECK(bounds(Div::make(x, y), {{"x", range(-20, 10)}, {"y", range(-3, 5)}}) == "[-20, 20]");
    // A remainder lies in [0, |divisor| - 1].
    CHECK(bounds(Mod::make(x, n), {{"x", Interval::everything()}}) == "[0, (max(max(n, (0 - n)), 1) - 1)]");
    CHECK(bounds_of_expr(Mod::make(x, y), {{"y", Interval(b, n)}}).is_bounded());
}

TEST_CASE("boxes of deep nests of lets name large interval ends instead of repeating them") {
    // Each let's interval mentions the previous one's ends several times, as nested splits with
    // shifted tails do: substituted in full, the ends would double in size at every level.
    Stmt s = Evaluate::make(func_call(Int(32), "g", {int_var("v40")}));
    for (int i = 40; i >= 1; i--) {
        Expr prev = int_var("v" + std::to_string(i - 1));
        s = LetStmt::make("v" + std::to_string(i),
                          Add::make(Min::make(prev, Sub::make(n, prev)), Max::make(prev, a)), s);
    }
    s = LetStmt::make("v0", x, s);
    std::map<std::string, Box> boxes = boxes_touched(For::make("x", i32(0), n, ForKind::Serial, s));
    REQUIRE(boxes["g"][0].is_bounded());
    CHECK(boxes["g"][0].min.as<Let>() != nullptr);
}

TEST_CASE("a difference of two lets that move together over a loop is bounded as one value") {
    // for (y, 0, 100): a Func computed in the loop covers [y + 1, y + 1], and the extent of its
    // region, hi - lo + 1, is 1 in every iteration, however far the lets that use it are from the
    // access (further than see-through of a coordinate reaches).
    Stmt s = Evaluate::make(func_call(Int(32), "f", {int_var("e5")}));
    for (int i = 5; i >= 1; i--) {
        s = LetStmt::make("e" + std::to_string(i), Add::make(int_var("e" + std::to_string(i - 1)), i32(1)),
                          s);
    }
    s = LetStmt::make("e0", Add::make(Sub::make(int_var("hi"), int_var("lo")), i32(1)), s);
    s = LetStmt::make("hi", Add::make(y, i32(1)), s);
    s = LetStmt::make("lo", Add::make(y, i32(1)), s);
    std::map<std::string, Box> boxes = boxes_touched(For::make("y", i32(0), i32(100), ForKind::Serial, s));
    CHECK(str(boxes["f"][0]) == "[6, 6]");
}

TEST_CASE("a long chain of Let expressions under lets of the loop is walked without deep recursion") {
    // f(let v1 = v0 + (hi - lo) in ... in v(n-1)), where the differences are cancelled at each Let.
    const int count = 20000;
    Expr e = int_var("v" + std::to_string(count - 1));
    for (int i = count - 1; i >= 1; i--) {
        e = Let::make(
            "v" + std::to_string(i),
            Add::make(int_var("v" + std::to_string(i - 1)), Sub::make(int_var("hi"), int_var("lo"))), e);
    }
    Stmt s = Evaluate::make(func_call(Int(32), "f", {Let::make("v0", y, e)}));
    s = LetStmt::make("hi", Add::make(y, i32(1)), s);
    s = LetStmt::make("lo", Add::make(y, i32(1)), s);
    std::map<std::string, Box> boxes = boxes_touched(For::make("y", i32(0), i32(100), ForKind::Serial, s));
    CHECK(str(boxes["f"][0]) == "[0, 99]");
}

TEST_CASE("seeing through lets whose values use the one before several times stays small") {
    // Each let reads the one before five times: substituted four levels deep, a difference of the
    // last two would be hundreds of times larger than written, and simplifying it takes long (a
    // random schedule's bounds inference took minutes). Bounds inference stops substituting before
    // the size explodes.
    const Expr y = int_var("y");
    const auto name = [](const char* side, int i) { return std::string(side) + std::to_string(i); };
    const auto times = [](const Expr& e, int k) { return Mul::make(e, i32(k)); };
    Stmt s =
        Evaluate::make(func_call(Int(32), "f", {Sub::make(int_var(name("a", 12)), int_var(name("b", 12)))}));
    for (int i = 12; i >= 1; i--) {
        const Expr a = int_var(name("a", i - 1)), b = int_var(name("b", i - 1));
        const Expr next_a =
            Add::make(Min::make(Add::make(times(a, 3), b), Add::make(Sub::make(a, times(b, 2)), y)),
                      Max::make(Div::make(a, i32(5)), Add::make(b, Min::make(a, i32(i)))));
        const Expr next_b =
            Sub::make(Max::make(Sub::make(times(b, 3), a), Sub::make(Add::make(b, times(a, 2)), y)),
                      Min::make(Div::make(b, i32(7)), Sub::make(a, Max::make(b, i32(i)))));
        s = LetStmt::make(name("b", i), next_b, s);
        s = LetStmt::make(name("a", i), next_a, s);
    }
    s = LetStmt::make("b0", Add::make(y, i32(2)), s);
    s = LetStmt::make("a0", Add::make(y, i32(1)), s);
    // A tenth of a second in Release; without the limit, half a minute or more.
    const auto start = std::chrono::steady_clock::now();
    std::map<std::string, Box> boxes = boxes_touched(For::make("y", i32(0), i32(100), ForKind::Serial, s));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    CHECK(boxes.count("f") == 1);
}

TEST_CASE("a box read at the same coordinates many times is united once per distinct end") {
    // A Func inlined many times over reads its input at a few coordinates, hundreds of times each.
    // Each repeat once lengthened the box's chain of mins and maxes by one term, and simplifying
    // chains of thousands of terms took the lowering of a random pipeline longer than minutes.
    Expr sum = i32(0);
    for (int i = 0; i < 400; i++) {
        const Expr coordinate = Max::make(Min::make(Add::make(x, i32(i % 8 - 3)), i32(12)), i32(0));
        sum = Add::make(sum, image_call(Int(32), "in", {coordinate, Add::make(y, i32(i % 5))}));
    }
    const auto start = std::chrono::steady_clock::now();
    std::map<std::string, Box> boxes = boxes_touched(sum, {{"x", Interval(n, Add::make(n, i32(9)))}});
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    REQUIRE(boxes.count("in") == 1);
    // At most a term per distinct coordinate.
    for (const Interval& i : boxes["in"]) {
        CHECK_FALSE(interval_ends::larger_than(i.min, 8 * 8));
        CHECK_FALSE(interval_ends::larger_than(i.max, 8 * 8));
    }
}
