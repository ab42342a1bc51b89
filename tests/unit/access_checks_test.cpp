// The checked mode: require() fails the pipeline where its condition does not hold, in scalar code
// and on the lanes of vector code that run; add_access_checks wraps every access in one.

#include <algorithm>

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include "ir/ir_util.h"
#include "lowering/vectorize_loops.h"
#include "tests/scratch_files.h"
#include "tests/unit/captured_errors.h"
#include "tests/unit/loop_nest_runner.h"

using namespace tessera;
using namespace tessera::ir;
using tessera::test::CapturedErrors;

namespace {

Expr i32(int64_t v) { return ir::make_const(Int(32), v); }

// in[x], required to lie in [0, last].
Expr read_required_up_to(const Expr& x, const Expr& last) {
    Expr message = Call::make_intrinsic(Int(32), Intrinsic::ErrorMessage,
                                        {i32(tessera_error_access_out_of_bounds), Expr("in is read at "), x,
                                         Expr(", outside [0, "), last, Expr("]")});
    return Call::make_intrinsic(Int(32), Intrinsic::Require,
                                {LE::make(x, last), Load::make(Int(32), "in", x), message});
}

// for x in [0, 8): if (x < n) out[x] = in[x], the read required to lie in [0, last].
Stmt guarded_copy(ForKind kind, const Expr& last) {
    const Expr x = int_var("x"), n = int_var("n");
    return For::make("x", 0, 8, kind,
                     IfThenElse::make(LT::make(x, n), Store::make("out", read_required_up_to(x, last), x)));
}

test::RunResult run_copy(const Stmt& body, int n) {
    test::LoopNestRunner runner;
    runner.buffer<int32_t>("in", {10, 11, 12, 13, 14, 15, 16, 17});
    runner.zeros<int32_t>("out", 8);
    runner.scalar<int32_t>("n", n);
    return runner.run("copy", body);
}

}  // namespace

TEST_CASE("a require() that fails stops the pipeline with its code and message before the access") {
    CapturedErrors errors;
    const Stmt body = guarded_copy(ForKind::Serial, i32(3));
    test::RunResult ok = run_copy(body, 4);
    CHECK(ok.code == 0);
    CHECK(ok.at<int32_t>("out", 3) == 13);
    CHECK(errors.messages().empty());

    test::RunResult failed = run_copy(body, 6);
    CHECK(failed.code == tessera_error_access_out_of_bounds);
    REQUIRE(errors.messages().size() == 1);
    CHECK(errors.messages()[0] == "in is read at 4, outside [0, 3]");
    CHECK(failed.at<int32_t>("out", 3) == 13);
    CHECK(failed.at<int32_t>("out", 4) == 0);  // nothing after the failed requirement ran
}

TEST_CASE("a vectorized require() checks only the lanes that run, and shows the lanes when it fails") {
    CapturedErrors errors;
    // The guard x < n masks lanes 5 to 7 off: reading in at 5 to 7 is not required there.
    const Stmt exact = lowering::vectorize_loops(guarded_copy(ForKind::Vectorized, int_var("n") - 1));
    CHECK(test::census(exact).predicated_loads + test::census(exact).vector_loads > 0);
    test::RunResult ok = run_copy(exact, 5);
    CHECK(ok.code == 0);
    for (int i = 0; i < 8; i++) CHECK(ok.at<int32_t>("out", i) == (i < 5 ? 10 + i : 0));
    CHECK(errors.messages().empty());

    // Required to lie in [0, 3]: lane 4 runs and fails.
    const Stmt strict = lowering::vectorize_loops(guarded_copy(ForKind::Vectorized, i32(3)));
    test::RunResult failed = run_copy(strict, 5);
    CHECK(failed.code == tessera_error_access_out_of_bounds);
    REQUIRE(errors.messages().size() == 1);
    CHECK(errors.messages()[0].find("in is read at <0, 1, 2, 3, 4, 5, 6, 7>") == 0);
}

TEST_CASE("check_bounds checks each access of a Func and of the buffers against its region") {
    Buffer<int32_t> in(20);
    for (int i = 0; i < 20; i++) in(i) = i * i;
    Func g("g"), f("f");
    Var x("x"), xo("xo"), xi("xi");
    g(x) = in(x + 1) * 2;
    f(x) = g(x) + g(x + 2);
    f.split(x, xo, xi, 4, TailStrategy::GuardWithIf);
    g.compute_at(f, xo);
    const Target checked = get_host_target().with_feature(Target::CheckBounds);

    const std::filesystem::path file = scratch_files::fresh_dir("access_checks") / "f.stmt";
    f.compile_to_lowered_stmt(file.string(), {}, StmtOutputFormat::Text, checked);
    const std::string text = scratch_files::read_file(file);
    // The reads of g and of in cannot be proved inside their regions before run time: each is checked.
    CHECK(text.find("Func g is read at (") != std::string::npos);
    CHECK(text.find("Input buffer b") != std::string::npos);

    Buffer<int32_t> out = f.realize({17}, checked);
    for (int i = 0; i < 17; i++) CHECK(out(i) == 2 * ((i + 1) * (i + 1) + (i + 3) * (i + 3)));
}

// The requirements of a tiled nest compare coordinates with regions whose ends are long expressions
// of the loops around them; proving them from symbolic intervals had kept the simplifier busy for
// many minutes, past ctest's timeout (a random schedule found it). The checked compilation now
// takes about as long as the plain one.
TEST_CASE("check_bounds compiles a tiled nest with Funcs at several levels") {
    Buffer<int32_t> input(9, 6);
    input.set_min({-2, 0});
    for (int y = 0; y < 6; y++) {
        for (int x = -2; x < 7; x++) input(x, y) = (x * 37 + y * 101) % 4096;
    }
    Func in = BoundaryConditions::repeat_edge(input);
    Func s0("s0"), s3("s3"), s5("s5");
    Var x("x"), y("y"), xi("xi"), yi("yi"), xy("xy");
    s0(x, y) = x;
    s3(x, y) = cast<uint16_t>(max(s0(x, y) & 0xffff, 65) + (in(x, y) & 0xffff));
    s5(x, y) = (s0(x, y + 1) & 0xffff) + cast<int32_t>(s3(x - 2, y + 1)) + (in(x + 2, y - 2) & 0xffff);
    s5.tile(x, y, xi, yi, 4, 6, TailStrategy::GuardWithIf)
        .reorder(yi, xi, y)
        .unroll(y, 3, TailStrategy::ShiftInwards);
    s3.compute_at(LoopLevel(s5, x, 0))
        .unroll(x, 4, TailStrategy::ShiftInwards)
        .parallel(y)
        .reorder_storage(y, x);
    s0.compute_at(s5, y).fuse(x, y, xy);

    Buffer<int32_t> out = s5.realize({1, 13}, get_host_target().with_feature(Target::CheckBounds));
    const auto clamped = [&](int x, int y) { return input(std::clamp(x, -2, 6), std::clamp(y, 0, 5)); };
    for (int y = 0; y < 13; y++) {
        // s0(-2, y + 1) & 0xffff is 65534.
        const int s3_value = uint16_t(65534 + clamped(-2, y + 1));
        CHECK(out(0, y) == s3_value + clamped(2, y - 2));
    }
}
