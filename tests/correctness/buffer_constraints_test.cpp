// Requirements on the shapes of a pipeline's buffers (ImageParam::dim(d).set_min and the like,
// Func::output_buffer()): buffers that meet them give the bits of the unconstrained pipeline, the
// compiled code relies on them, and buffers that do not are refused with an error naming the
// buffer, the dimension and the requirement.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>

using namespace tessera;

namespace {

Buffer<float> random_image(int width, int height, unsigned seed) {
    Buffer<float> b(width, height);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    b.for_each_value([&](float& v) { v = dist(rng); });
    return b;
}

// out(x, y) = 2 in(x, y) + in(x + 1, y), over the input less its last column.
struct Stencil {
    ImageParam in{Float(32), 2, "in"};
    Func out{"out"};
    Var x{"x"}, y{"y"};
    Stencil() { out(x, y) = 2.0f * in(x, y) + in(x + 1, y); }
};

Buffer<float> reference(const Buffer<float>& in) {
    Buffer<float> r(in.width() - 1, in.height());
    r.for_each_element([&](int x, int y) { r(x, y) = 2.0f * in(x, y) + in(x + 1, y); });
    return r;
}

void check_equal(const Buffer<float>& got, const Buffer<float>& expected) {
    REQUIRE(got.width() == expected.width());
    REQUIRE(got.height() == expected.height());
    got.for_each_element([&](int x, int y) { REQUIRE(got(x, y) == expected(x, y)); });
}

std::string runtime_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const RuntimeError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("buffers that meet the required mins and extents give the bits of the plain pipeline") {
    Buffer<float> in = random_image(37, 13, 1);
    Stencil s;
    s.in.dim(0).set_min(0);
    s.in.dim(1).set_bounds(0, 13);
    s.out.output_buffer().dim(0).set_min(0).dim(1).set_min(0);
    s.out.vectorize(s.x, 8, TailStrategy::GuardWithIf);
    s.in.set(in);
    check_equal(s.out.realize({36, 13}), reference(in));
}

TEST_CASE("a required min or extent is a constant in the compiled code") {
    Stencil s;
    s.in.dim(0).set_min(0);
    s.in.dim(1).set_extent(13);
    s.out.output_buffer().dim(0).set_min(0);
    s.out.output_buffer().dim(1).set_extent(13);
    const std::string path = "buffer_constraints_test_stmt.txt";
    s.out.compile_to_lowered_stmt(path, {s.in});
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    std::remove(path.c_str());
    const std::string stmt = text.str();
    // The mins and extents are not read from the buffers to be used: the loops and indices hold
    // the constants (the buffers' own fields are read only to be checked).
    CHECK(stmt.find("let in.min.0") == std::string::npos);
    CHECK(stmt.find("let out.min.0") == std::string::npos);
    CHECK(stmt.find("let out.extent.1") == std::string::npos);
    CHECK(stmt.find("let in.min.1") != std::string::npos);
}

TEST_CASE("a buffer that does not meet a requirement is refused, naming it and the requirement") {
    Buffer<float> in = random_image(37, 13, 2);
    Stencil s;
    s.in.dim(1).set_extent(13);
    s.out.output_buffer().dim(0).set_min(0);
    s.in.set(in);

    Buffer<float> shifted(36, 13);
    shifted.set_min(4, 0);
    Buffer<float> short_input = random_image(37, 12, 3);
    std::string shifted_error = runtime_error_of([&] { s.out.realize(shifted); });
    CHECK(shifted_error.find("Output buffer out has min 4 in dimension 0") != std::string::npos);
    CHECK(shifted_error.find("requires 0 (dim(0).set_min)") != std::string::npos);

    s.in.set(short_input);
    std::string short_error = runtime_error_of([&] { s.out.realize({36, 12}); });
    CHECK(short_error.find("Input buffer in has extent 12 in dimension 1") != std::string::npos);
    CHECK(short_error.find("requires 13 (dim(1).set_extent)") != std::string::npos);
}

TEST_CASE("a requirement set after the pipeline ran applies to the next run") {
    Buffer<float> in = random_image(37, 13, 4);
    Stencil s;
    s.in.set(in);
    Buffer<float> shifted(36, 13);
    shifted.set_min(4, 0);
    Buffer<float> in_shifted(37, 13);
    in_shifted.set_min(4, 0);
    in_shifted.for_each_element([&](int x, int y) { in_shifted(x, y) = in(x - 4, y); });
    s.in.set(in_shifted);
    CHECK(runtime_error_of([&] { s.out.realize(shifted); }).empty());

    // On the output, through a buffer asked for only now, and on the input.
    s.out.output_buffer().dim(0).set_min(0);
    CHECK(runtime_error_of([&] { s.out.realize(shifted); }).find("requires 0 (dim(0).set_min)") !=
          std::string::npos);
    s.out.output_buffer().dim(0).set_min(Expr());
    CHECK(runtime_error_of([&] { s.out.realize(shifted); }).empty());
    s.in.dim(0).set_min(0);
    CHECK(runtime_error_of([&] {
              s.out.realize(shifted);
          }).find("Input buffer in has min 4 in dimension 0") != std::string::npos);
}

TEST_CASE("a requirement may be an expression of Params, and an undefined one is removed") {
    Buffer<float> in = random_image(21, 9, 4);
    Stencil s;
    Param<int> rows("rows");
    s.in.dim(1).set_extent(rows);
    s.in.set(in);
    rows.set(9);
    check_equal(s.out.realize({20, 9}), reference(in));
    rows.set(8);
    CHECK(runtime_error_of([&] {
              s.out.realize({20, 9});
          }).find("has extent 9 in dimension 1") != std::string::npos);

    Stencil unconstrained;
    unconstrained.in.dim(1).set_extent(5).set_extent(Expr());
    unconstrained.in.set(in);
    check_equal(unconstrained.out.realize({20, 9}), reference(in));
}

TEST_CASE("set_stride(Expr()) on dimension 0 accepts an input whose elements are not adjacent") {
    // A transposed view: adjacent in y, 13 apart in x.
    Buffer<float> stored = random_image(13, 37, 5);
    Buffer<float> in = stored.transposed(0, 1);
    REQUIRE(in.raw_buffer()->dim[0].stride == 13);
    Stencil s;
    s.in.dim(0).set_stride(Expr());
    s.out.vectorize(s.x, 8, TailStrategy::GuardWithIf);
    s.in.set(in);
    check_equal(s.out.realize({36, 13}), reference(in));

    Stencil dense;
    dense.in.set(in);
    CHECK(runtime_error_of([&] {
              dense.out.realize({36, 13});
          }).find("stride 13 in dimension 0") != std::string::npos);
}

TEST_CASE("a requirement that is not an integer is an error naming the buffer and the call") {
    Stencil s;
    try {
        s.in.dim(0).set_min(0.5f);
        FAIL("set_min(0.5f) was accepted");
    } catch (const CompileError& e) {
        CHECK(std::string(e.what()).find("ImageParam in.dim(0).set_min(0.5f)") != std::string::npos);
    }
    try {
        s.in.dim(2).set_min(0);
        FAIL("dimension 2 of a 2-dimensional ImageParam was accepted");
    } catch (const CompileError& e) {
        CHECK(std::string(e.what()).find("ImageParam in has 2 dimensions; there is no dimension 2") !=
              std::string::npos);
    }
    Func tuple("tuple");
    Var x("x");
    tuple(x) = Tuple(x, x + 1);
    CHECK(tuple.output_buffers().size() == 2);
    CHECK_THROWS_AS(tuple.output_buffer(), CompileError);
}
