// The partition_loops pass: a loop guarded or clamped at its ends runs its steady part without the
// guards and clamps, and its first and last iterations with them, computing what the original loop
// computes; tests it cannot prove stay.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "int32_loop_nests.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "loop_nest_runner.h"
#include "lowering/partition_loops.h"

using namespace tessera;
using namespace tessera::ir;
using tessera::test::LoopNestRunner;
using tessera::test::RunResult;
using namespace tessera::test;

namespace {

// What branches_in_loops finds: the steady part without branches, the rest with them; one loop
// with them; two loops with them; a prologue and an epilogue with them around the steady part; a
// prologue with them, then the steady part.
const std::vector<bool> kSteadyThenRest{false, true}, kOneGuardedLoop{true}, kTwoGuardedLoops{true, true},
    kPrologueSteadyEpilogue{true, false, true}, kPrologueThenSteady{true, false};

// For each loop of the given name, in order: whether its body holds a branch.
std::vector<bool> branches_in_loops(const Stmt& s, const std::string& name) {
    class Find : public Visitor {
    public:
        explicit Find(const std::string& name) : name_(name) {}
        std::vector<bool> found;

    private:
        using Visitor::visit;
        void visit(const For* op) override {
            if (op->name != name_) return Visitor::visit(op);
            const size_t mine = found.size();
            found.push_back(false);
            depth_.push_back(mine);
            Visitor::visit(op);
            depth_.pop_back();
        }
        void visit(const IfThenElse* op) override {
            for (size_t loop : depth_) found[loop] = true;
            Visitor::visit(op);
        }
        const std::string& name_;
        std::vector<size_t> depth_;
    } find(name);
    find.include(s);
    return find.found;
}

// Runs s as it is and partitioned; checks that they agree and returns the partitioned statement.
Stmt compare(const LoopNestRunner& args, const Stmt& s) {
    Stmt partitioned = simplify(lowering::partition_loops(s));
    RunResult expected = args.run("guarded", simplify(s)), actual = args.run("partitioned", partitioned);
    test::check_same_contents(expected, actual, "partitioned as\n" + to_string(partitioned));
    return partitioned;
}

// for xo in [0, ceil(n / 8)): for xi in [0, 8): let x = xo * 8 + xi in if (x < n) out[x] = in[x] * 3 + xi,
// with n a scalar argument: the loop nest of a GuardWithIf split.
Stmt guarded_split(const Expr& condition_of_x) {
    Expr x = var("x");
    Stmt body = Store::make("out", add(mul(load("in", x), i32(3)), var("xi")), x);
    Stmt inner = loop(
        "xi", i32(0), i32(8),
        LetStmt::make("x", add(mul(var("xo"), i32(8)), var("xi")), IfThenElse::make(condition_of_x, body)));
    return loop("xo", i32(0), Div::make(add(var("n"), i32(7)), i32(8)), inner);
}

LoopNestRunner arguments(int n) {
    std::vector<int32_t> in(64);
    for (int i = 0; i < 64; i++) in[i] = i * 5 - 70;
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<int32_t>("out", 64);
    args.scalar<int32_t>("n", n);
    return args;
}

}  // namespace

TEST_CASE("a loop guarded at its end runs its whole blocks without the guard") {
    for (int n : {29, 32, 3, 0}) {
        CAPTURE(n);
        Stmt partitioned = compare(arguments(n), guarded_split(LT::make(var("x"), var("n"))));
        CHECK_MESSAGE(branches_in_loops(partitioned, "xo") == kSteadyThenRest, partitioned);
    }
}

TEST_CASE("comparisons written either way round, <=, and conjunctions of them are partitioned") {
    const Expr x = var("x"), n = var("n");
    for (const Expr& condition : {GT::make(n, x), LE::make(add(x, i32(1)), n), GE::make(add(n, i32(-1)), x),
                                  And::make(LT::make(x, n), LT::make(add(x, i32(4)), add(n, i32(9))))}) {
        CAPTURE(condition);
        Stmt partitioned = compare(arguments(29), guarded_split(condition));
        CHECK_MESSAGE(branches_in_loops(partitioned, "xo") == kSteadyThenRest, partitioned);
    }
}

TEST_CASE("guards that fail at the start run in a prologue, and at both ends in both") {
    const Expr x = var("x"), n = var("n");
    for (int size : {29, 3, 0}) {
        CAPTURE(size);
        Stmt at_start = compare(arguments(size), guarded_split(GT::make(x, i32(5))));
        CHECK_MESSAGE(branches_in_loops(at_start, "xo") == kPrologueThenSteady, at_start);
        Stmt both = compare(arguments(size), guarded_split(And::make(LT::make(x, n), GT::make(x, i32(5)))));
        CHECK_MESSAGE(branches_in_loops(both, "xo") == kPrologueSteadyEpilogue, both);
    }
}

TEST_CASE("guards that depend on data or are not linear stay in the one loop") {
    const Expr x = var("x"), n = var("n");
    for (const Expr& condition : {LT::make(load("in", x), i32(40)), LT::make(mul(x, x), n)}) {
        CAPTURE(condition);
        Stmt partitioned = compare(arguments(29), guarded_split(condition));
        CHECK_MESSAGE(branches_in_loops(partitioned, "xo") == kOneGuardedLoop, partitioned);
    }
}

TEST_CASE(
    "a guard inside an inner loop whose range moves with the outer loop holds where all its range does") {
    // for xo in [0, 8): for xi in [xo, xo + 8): if (xi < n) out[xi] += 1: the guard holds in every
    // xi while xo + 7 < n.
    Stmt body = Store::make("out", add(load("out", var("xi")), i32(1)), var("xi"));
    Stmt s = loop("xo", i32(0), i32(8),
                  loop("xi", var("xo"), i32(8), IfThenElse::make(LT::make(var("xi"), var("n")), body)));
    Stmt partitioned = compare(arguments(11), s);
    CHECK_MESSAGE(branches_in_loops(partitioned, "xo") == kSteadyThenRest, partitioned);
}

TEST_CASE("loops partitioned inside a partitioned loop still compute what the guarded nest computes") {
    // Tiles of 8 x 8 over a w x h region of a 64-wide buffer, each dimension guarded.
    Expr x = var("x"), y = var("y"), w = var("w"), h = var("h");
    Expr at = add(mul(y, i32(64)), x);
    Stmt body = Store::make("out", add(load("in", x), mul(y, i32(100))), at);
    Stmt guarded_x = IfThenElse::make(LT::make(x, w), body);
    Stmt inner_x =
        loop("xi", i32(0), i32(8), LetStmt::make("x", add(mul(var("xo"), i32(8)), var("xi")), guarded_x));
    Stmt guarded_y =
        IfThenElse::make(LT::make(y, h), loop("xo", i32(0), Div::make(add(w, i32(7)), i32(8)), inner_x));
    Stmt s = loop(
        "yo", i32(0), Div::make(add(h, i32(7)), i32(8)),
        loop("yi", i32(0), i32(8), LetStmt::make("y", add(mul(var("yo"), i32(8)), var("yi")), guarded_y)));
    std::vector<int32_t> in(64);
    for (int i = 0; i < 64; i++) in[i] = i * 3;
    LoopNestRunner args;
    args.buffer("in", in);
    args.zeros<int32_t>("out", 64 * 24);
    args.scalar<int32_t>("w", 29);
    args.scalar<int32_t>("h", 21);
    Stmt partitioned = compare(args, s);
    // Each part of yo holds the part of xo that keeps the guard on x.
    CHECK_MESSAGE(branches_in_loops(partitioned, "yo") == kTwoGuardedLoops, partitioned);
    // The steady rows have the loop of xo in two parts; the last rows, an edge, have it whole.
    const std::vector<bool> steady_rows_then_edge_rows{false, true, true};
    CHECK_MESSAGE(branches_in_loops(partitioned, "xo") == steady_rows_then_edge_rows, partitioned);
}

namespace {

// Counts the min, max and select nodes of each loop of the given name, in order.
std::vector<int> clamps_in_loops(const Stmt& s, const std::string& name) {
    class Count : public Visitor {
    public:
        explicit Count(const std::string& name) : name_(name) {}
        std::vector<int> found;

    private:
        using Visitor::visit;
        void visit(const For* op) override {
            if (op->name != name_) return Visitor::visit(op);
            found.push_back(0);
            current_.push_back(found.size() - 1);
            Visitor::visit(op);
            current_.pop_back();
        }
        void count() {
            for (size_t loop : current_) found[loop]++;
        }
        void visit(const Min* op) override { count(), Visitor::visit(op); }
        void visit(const Max* op) override { count(), Visitor::visit(op); }
        void visit(const Select* op) override { count(), Visitor::visit(op); }
        const std::string& name_;
        std::vector<size_t> current_;
    } counter(name);
    counter.include(s);
    return counter.found;
}

// for x in [0, n): out[x] = value of x, a one-dimensional stencil over in[0, n).
Stmt stencil(const Expr& value_of_x) {
    return loop("x", i32(0), var("n"), Store::make("out", value_of_x, var("x")));
}

// in[clamp(likely(x + offset), 0, n - 1)], as BoundaryConditions::repeat_edge reads.
Expr clamped_read(int offset) {
    Expr at = add(var("x"), i32(offset));
    Expr clamped = Max::make(
        Min::make(Call::make_intrinsic(Int(32), Intrinsic::Likely, {at}), add(var("n"), i32(-1))), i32(0));
    return load("in", clamped);
}

}  // namespace

TEST_CASE("clamps marked likely are left out of the steady part, which reads unclamped") {
    const Stmt s = stencil(add(add(clamped_read(-1), clamped_read(0)), clamped_read(2)));
    for (int n : {29, 3, 1}) {
        CAPTURE(n);
        Stmt partitioned = compare(arguments(n), s);
        const std::vector<int> clamps = clamps_in_loops(partitioned, "x");
        REQUIRE_MESSAGE(clamps.size() == 3, partitioned);
        CHECK_MESSAGE(clamps[1] == 0, partitioned);
    }
}

TEST_CASE(
    "a select whose condition is likely, as constant_exterior makes, takes its true side in the steady "
    "part") {
    const Expr x = var("x"), n = var("n");
    const Expr inside = And::make(GE::make(add(x, i32(-2)), i32(0)), LT::make(add(x, i32(2)), n));
    const Expr likely_inside = Call::make_intrinsic(Bool(), Intrinsic::Likely, {inside});
    const Stmt s = stencil(Select::make(likely_inside, add(clamped_read(-2), clamped_read(2)), i32(-1)));
    for (int n : {29, 3}) {
        CAPTURE(n);
        Stmt partitioned = compare(arguments(n), s);
        const std::vector<int> clamps = clamps_in_loops(partitioned, "x");
        REQUIRE_MESSAGE(clamps.size() == 3, partitioned);
        CHECK_MESSAGE(clamps[1] == 0, partitioned);
    }
}

TEST_CASE("a min of loaded values is data, not a clamp, though the loads' addresses are marked likely") {
    // out[x] = min(uint8(in[clamp(likely(x), 0, n - 1)]), x): one loop, all steady, without the
    // address's clamps and with the min. (Taken as a clamp, the min would hold from x = 255 on, and
    // every iteration below that would run with the address's clamps.)
    const Expr byte = Cast::make(Int(32), Cast::make(UInt(8), clamped_read(0)));
    const Stmt s = stencil(Min::make(byte, var("x")));
    for (int n : {29, 3}) {
        CAPTURE(n);
        Stmt partitioned = compare(arguments(n), s);
        CHECK_MESSAGE(clamps_in_loops(partitioned, "x") == std::vector<int>{1}, partitioned);
    }
}

TEST_CASE("min and max not marked likely are left as they are") {
    const Expr at = Max::make(Min::make(add(var("x"), i32(-1)), add(var("n"), i32(-3))), i32(0));
    Stmt partitioned = compare(arguments(29), stencil(load("in", at)));
    CHECK_MESSAGE(clamps_in_loops(partitioned, "x") == std::vector<int>{2}, partitioned);
}

TEST_CASE("a test marked likely_if_innermost partitions an innermost loop only") {
    // for xo in [0, (n + 7) / 8): out[min(likely_if_innermost(xo * 8), n - 8) + i] for i in [0, 8),
    // the loop nest of a ShiftInwards split, with the inner loop serial or unrolled.
    const Expr n = var("n");
    const Expr shifted =
        Min::make(Call::make_intrinsic(Int(32), Intrinsic::LikelyIfInnermost, {mul(var("xo"), i32(8))}),
                  add(n, i32(-8)));
    const Expr x = add(shifted, var("i"));
    for (ForKind inner : {ForKind::Serial, ForKind::Unrolled}) {
        CAPTURE(int(inner));
        Stmt s = loop("xo", i32(0), Div::make(add(n, i32(7)), i32(8)),
                      loop("i", i32(0), i32(8), Store::make("out", add(load("in", x), i32(1)), x), inner));
        Stmt partitioned = compare(arguments(29), s);
        const size_t expected_parts = inner == ForKind::Serial ? 1 : 2;
        CHECK_MESSAGE(clamps_in_loops(partitioned, "xo").size() == expected_parts, partitioned);
    }
}
