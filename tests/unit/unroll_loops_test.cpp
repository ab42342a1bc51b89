// The unroll_loops pass: unrolled copies compute what the serial loop computes, and no loop is left.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "int32_loop_nests.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "loop_nest_runner.h"
#include "lowering/unroll_loops.h"
#include "tessera/error.h"

using namespace tessera;
using namespace tessera::ir;
using tessera::test::LoopNestRunner;
using tessera::test::RunResult;
using namespace tessera::test;

namespace {

// Runs s serially and unrolled; checks that they agree and returns the unrolled statement and run.
std::pair<Stmt, RunResult> compare(const LoopNestRunner& args, const Stmt& s) {
    Stmt serial = simplify(test::all_loops_serial(s));
    Stmt unrolled = simplify(lowering::unroll_loops(s));
    RunResult expected = args.run("serial", serial), actual = args.run("unrolled", unrolled);
    test::check_same_contents(expected, actual, "unrolled as\n" + to_string(unrolled));
    return {unrolled, actual};
}

}  // namespace

TEST_CASE("an unrolled loop becomes copies of its body that compute what the loop computes") {
    // for xo in [0, 7): unrolled xi in [0, 3): out[xo * 3 + xi] = in[xo * 3 + xi] * 2 + xi
    const int n = 21;
    std::vector<int32_t> in(n);
    for (int i = 0; i < n; i++) in[i] = i * 11 - 40;
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<int32_t>("out", n);
    Expr x = add(mul(var("xo"), i32(3)), var("xi"));
    Stmt body = Store::make("out", add(mul(load("in", x), i32(2)), var("xi")), x);
    // The extent is an expression that folds to 3.
    Stmt s = loop("xo", i32(0), i32(7), loop("xi", i32(0), add(i32(1), i32(2)), body, ForKind::Unrolled));
    auto [unrolled, run] = compare(args, s);
    test::Census c = test::census(unrolled);
    CHECK_MESSAGE(c.loops.count("xi") == 0, unrolled);
    CHECK(c.loops.count("xo") == 1);
    for (int i = 0; i < n; i++) CHECK(run.at<int32_t>("out", i) == in[i] * 2 + i % 3);
}

TEST_CASE("nested unrolled loops leave no loop at all") {
    LoopNestRunner args;
    args.zeros<int32_t>("out", 12);
    Expr index = add(var("x"), mul(var("y"), i32(4)));
    Stmt s = loop("y", i32(0), i32(3),
                  loop("x", i32(0), i32(4), Store::make("out", mul(index, index), index), ForKind::Unrolled),
                  ForKind::Unrolled);
    auto [unrolled, run] = compare(args, s);
    CHECK_MESSAGE(test::census(unrolled).loops.empty(), unrolled);
    for (int i = 0; i < 12; i++) CHECK(run.at<int32_t>("out", i) == i * i);
}

TEST_CASE("an unrolled loop's min is evaluated once, before the copies, as the loop's is") {
    // unrolled i in [a[0], a[0] + 3): a[0] = a[0] + 100; out[clamp(i - 5, 0, 2)] = i
    LoopNestRunner args;
    args.buffer("a", std::vector<int32_t>{5});
    args.zeros<int32_t>("out", 3);
    Expr i = var("i");
    Expr slot = Max::make(Min::make(add(i, i32(-5)), i32(2)), i32(0));
    Stmt body =
        Block::make(Store::make("a", add(load("a", i32(0)), i32(100)), i32(0)), Store::make("out", i, slot));
    auto [unrolled, run] = compare(args, loop("i", load("a", i32(0)), i32(3), body, ForKind::Unrolled));
    CHECK(test::census(unrolled).loops.empty());
    for (int k = 0; k < 3; k++) CHECK(run.at<int32_t>("out", k) == 5 + k);
    CHECK(run.at<int32_t>("a", 0) == 305);
}

TEST_CASE("an unrolled loop of no iterations disappears, other loops stay as they are") {
    Stmt empty = lowering::unroll_loops(
        loop("x", i32(0), i32(0), Store::make("out", var("x"), var("x")), ForKind::Unrolled));
    CHECK(test::census(empty).loops.empty());
    Stmt serial = loop("x", i32(0), var("n"), Store::make("out", var("x"), var("x")));
    CHECK(lowering::unroll_loops(serial).same_as(serial));
}

TEST_CASE("an unrolled loop of non-constant extent is an internal error") {
    Stmt s = loop("x", i32(0), var("n"), Store::make("out", var("x"), var("x")), ForKind::Unrolled);
    CHECK_THROWS_AS(lowering::unroll_loops(s), InternalError);
}
