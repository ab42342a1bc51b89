#include <doctest/doctest.h>

#include <chrono>
#include <sstream>

#include "ir/common_subexpressions.h"
#include "ir/equal.h"
#include "ir/interval.h"
#include "ir/interval_ends.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "random_int_exprs.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int64_t v) { return make_const(Int(32), v); }
const Expr x = int_var("x"), y = int_var("y"), z = int_var("z");

// The names and values of the Lets around an expression, outermost first, and what they enclose.
struct LetChain {
    std::vector<std::pair<std::string, Expr>> lets;
    Expr body;
};

LetChain let_chain(Expr e) {
    LetChain chain;
    while (const Let* let = e.as<Let>()) {
        chain.lets.emplace_back(let->name, let->value);
        e = let->body;
    }
    chain.body = e;
    return chain;
}

std::string str(const Expr& e) {
    std::ostringstream out;
    out << e;
    return out.str();
}

}  // namespace

TEST_CASE("a subexpression used three times is computed once, by a let around the expression") {
    const Expr sum = Add::make(x, y);
    const Expr e = Add::make(Mul::make(Add::make(x, y), Add::make(x, y)), Min::make(sum, z));
    const LetChain chain = let_chain(eliminate_common_subexpressions(e));
    REQUIRE(chain.lets.size() == 1);
    CHECK(equal(chain.lets[0].second, sum));
    const Expr t = Variable::make(Int(32), chain.lets[0].first);
    CHECK(equal(chain.body, Add::make(Mul::make(t, t), Min::make(t, z))));
}

TEST_CASE("nested repeats are bound inner first, each let reading those before it") {
    // (x + y) * z occurs twice, and x + y once more on its own.
    const Expr e =
        Sub::make(Add::make(Mul::make(Add::make(x, y), z), Mul::make(Add::make(x, y), z)), Add::make(x, y));
    const LetChain chain = let_chain(eliminate_common_subexpressions(e));
    REQUIRE(chain.lets.size() == 2);
    CHECK(equal(chain.lets[0].second, Add::make(x, y)));
    const Expr sum = Variable::make(Int(32), chain.lets[0].first);
    CHECK(equal(chain.lets[1].second, Mul::make(sum, z)));
    const Expr product = Variable::make(Int(32), chain.lets[1].first);
    CHECK(equal(chain.body, Sub::make(Add::make(product, product), sum)));
}

TEST_CASE("leaves and expressions without repeats are left as they are") {
    const Expr e = Add::make(Mul::make(x, x), Min::make(x, i32(3)));
    CHECK(equal(eliminate_common_subexpressions(e), e));
}

TEST_CASE("repeated reads of memory or of Funcs are not moved into lets") {
    const Expr call = Expr(std::make_shared<Call>(Int(32), "f", std::vector<Expr>{x}, CallType::Func));
    const Expr e = Add::make(Add::make(call, i32(1)), Add::make(call, i32(1)));
    CHECK(eliminate_common_subexpressions(e).same_as(e));
}

TEST_CASE("the lets of the expression are inlined, so that repeats across them are found") {
    // let a = x + y in (a * 2) + let b = x + y in (b * 2): both read (x + y) * 2.
    const Expr e = Add::make(Let::make("a", Add::make(x, y), Mul::make(int_var("a"), i32(2))),
                             Let::make("b", Add::make(x, y), Mul::make(int_var("b"), i32(2))));
    const LetChain chain = let_chain(eliminate_common_subexpressions(e));
    REQUIRE(chain.lets.size() == 1);  // x + y occurs only inside the product, itself computed once
    CHECK(equal(chain.lets[0].second, Mul::make(Add::make(x, y), i32(2))));
    const Expr doubled = Variable::make(Int(32), chain.lets[0].first);
    CHECK(equal(chain.body, Add::make(doubled, doubled)));
}

TEST_CASE("an expression shared as a graph is rewritten in time proportional to the graph") {
    // Forty levels, each reading the one below twice: a tree of 2^40 nodes, a graph of 120. Each
    // level but the last is bound once.
    Expr e = Add::make(x, y);
    for (int level = 0; level < 40; level++) e = Add::make(Min::make(e, z), e);
    const auto start = std::chrono::steady_clock::now();
    const Expr shared = eliminate_common_subexpressions(e);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(let_chain(shared).lets.size() == 40);
    CHECK_FALSE(interval_ends::larger_than(shared, 400));
}

TEST_CASE("randomized: expressions with common subexpressions bound once evaluate as the originals") {
    test::RandomExprs gen(20261126);
    int checked = 0;
    for (int iteration = 0; iteration < 1500; iteration++) {
        const Type t = gen.random_type();
        // Random parts, repeated: a twice, b three times, inside random lets of their own.
        const Expr a = gen.expr(t, 1 + gen.pick(4)), b = gen.expr(t, 1 + gen.pick(4));
        const Expr e =
            Select::make(LT::make(a, b), Add::make(Max::make(a, b), b), Sub::make(b, gen.expr(t, 2)));
        const Expr shared = eliminate_common_subexpressions(e);
        REQUIRE(shared.type() == e.type());
        for (int sample = 0; sample < 8; sample++) {
            test::Evaluator before, after;
            for (Type vt : test::RandomExprs::types()) {
                for (const char* name : {"x", "y", "z"})
                    before.env[test::RandomExprs::var_name(name, vt)] = gen.random_value(vt);
            }
            after.env = before.env;
            const int64_t expected = before.eval(e);
            if (before.overflowed) continue;  // Int(32) overflow is assumed away
            checked++;
            const int64_t got = after.eval(shared);
            if (got != expected) {
                FAIL_CHECK("common subexpressions changed a value\n  original: "
                           << e << "\n  rewritten: " << shared << "\n  expected " << expected << ", got "
                           << got);
                return;
            }
        }
    }
    CHECK(checked > 8000);
}

TEST_CASE("bounds whose ends repeat a let's interval many times stay symbolic and hold") {
    // a_k = min(a_{k-1} * 3, a_{k-1} + y): each end of a_k reads the end of a_{k-1} twice, so after
    // twelve levels the ends, written as trees, have thousands of nodes; no constant bounds them
    // (n and m are unknown). Once dropped, which left the region of a Func unbounded.
    const Expr n = int_var("n"), m = int_var("m");
    Expr e = int_var("a12");
    for (int k = 12; k >= 1; k--) {
        const Expr previous = int_var("a" + std::to_string(k - 1));
        e = Let::make("a" + std::to_string(k), Min::make(Mul::make(previous, i32(3)), Add::make(previous, y)),
                      e);
    }
    e = Let::make("a0", x, e);
    const std::map<std::string, Interval> scope = {{"x", Interval(n, m)}, {"y", Interval(i32(-5), i32(7))}};
    const Interval bounds = bounds_of_expr(e, scope);
    REQUIRE_MESSAGE(bounds.is_bounded(), "bounds " << bounds);
    // The bounds hold wherever the values lie in the scope.
    test::RandomExprs gen(7);
    for (int sample = 0; sample < 200; sample++) {
        test::Evaluator ev;
        ev.env["n"] = gen.pick(41) - 20;
        ev.env["m"] = ev.env["n"] + gen.pick(10);
        ev.env["x"] = ev.env["n"] + gen.pick(int(ev.env["m"] - ev.env["n"] + 1));
        ev.env["y"] = gen.pick(13) - 5;
        const int64_t value = ev.eval(e), lo = ev.eval(bounds.min), hi = ev.eval(bounds.max);
        REQUIRE_FALSE(ev.overflowed);
        CHECK_MESSAGE((lo <= value && value <= hi),
                      "value " << value << " outside [" << lo << ", " << hi << "]");
    }
    CHECK(str(bounds.min).find("cse$") != std::string::npos);
}
