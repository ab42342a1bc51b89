// Tensorizing loops that do not compute what the intrinsic does is a CompileError that shows both
// sides; so are a declaration the compiler cannot use and loops it cannot replace.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

std::string compile_error_of(Func f, const std::vector<int>& sizes) {
    try {
        f.realize(sizes);
    } catch (const CompileError& e) {
        return e.what();
    }
    return "";
}

extern "C" int tessera_test_unused(tessera_buffer_t*, tessera_buffer_t*) { return 0; }

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

struct Matmul {
    ImageParam a{Float(32), 2, "a"}, b{Float(32), 2, "b"};
    Func c{"c"};
    Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"};
    RDom k{0, a.dim(0).extent(), "k"};
    Buffer<float> a_values{20, 30}, b_values{40, 20};
    explicit Matmul(bool fused = true) {
        c(x, y) = 0.0f;
        if (fused)
            c(x, y) = fma(a(k, y), b(x, k), c(x, y));
        else
            c(x, y) += a(k, y) * b(x, k);
        a.set(a_values);
        b.set(b_values);
    }
};

}  // namespace

TEST_CASE("a tile of the wrong size is refused, showing the intrinsic and the loops") {
    Matmul m;
    m.c.update()
        .tile(m.x, m.y, m.xi, m.yi, 8, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .tensorize(m.k, intrinsics::fma_f32(16, 6));
    const std::string e = compile_error_of(m.c, {40, 30});
    CHECK(contains(e, "c.update(0).tensorize(k.x, fma_f32_16x6)"));
    CHECK(contains(e, "runs 8 times, where the declaration's i runs 16 times"));
    CHECK(contains(e, "The intrinsic computes:"));
    CHECK(contains(e, "for i in [0, 16):"));
    CHECK(contains(e, "The loops compute:"));
    CHECK(contains(e, "for c.s1.x.xi in [0, 8):"));
}

TEST_CASE("a multiply and an add are not the fused multiply-add the intrinsic computes") {
    Matmul m(false);
    m.c.update()
        .tile(m.x, m.y, m.xi, m.yi, 16, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .tensorize(m.k, intrinsics::fma_f32(16, 6));
    const std::string e = compile_error_of(m.c, {40, 30});
    CHECK(contains(e, "the value stored differs from the declaration's"));
    CHECK(contains(e, "fma("));
}

TEST_CASE("an operand read where the declaration does not read it is refused") {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Buffer<float> a_values(60, 30), b_values(40, 20);
    a.set(a_values);
    b.set(b_values);
    Func c("c");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    RDom k(0, 20, "k");
    c(x, y) = 0.0f;
    c(x, y) = fma(a(k + x, y), b(x, k), c(x, y));  // a moves with x too
    c.update().tile(x, y, xi, yi, 16, 6).reorder(xi, yi, k, x, y).tensorize(k, intrinsics::fma_f32(16, 6));
    const std::string e = compile_error_of(c, {40, 30});
    CHECK(contains(e, "the loops do not compute what the tensor intrinsic fma_f32_16x6 does"));
    CHECK(contains(e, "fma(a["));  // the loops' statement is shown
}

TEST_CASE("a parallel loop inside the tensorized one is refused") {
    Matmul m;
    m.c.update()
        .tile(m.x, m.y, m.xi, m.yi, 16, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .parallel(m.yi)
        .tensorize(m.k, intrinsics::fma_f32(16, 6));
    const std::string e = compile_error_of(m.c, {40, 30});
    CHECK(contains(e, "the loop c.s1.y.yi is parallel"));
    CHECK(contains(e, "parallelize a loop outside it"));
}

TEST_CASE("the tensorized loop itself may not be parallel") {
    ImageParam a(Float(32), 1, "a");
    Var i("i"), x("x"), xo("xo"), xi("xi");
    Func scaled("scaled");
    scaled(i) = a(i) * 2.0f;
    scaled.bound(i, 0, 8);
    const TensorIntrinsic scale = TensorIntrinsic::extern_function(
        "scale", scaled, {a}, reinterpret_cast<const void*>(&tessera_test_unused));
    ImageParam in(Float(32), 1, "in");
    Buffer<float> values(32);
    in.set(values);
    Func out("out");
    out(x) = in(x)*2.0f;
    out.split(x, xo, xi, 8).parallel(xi).tensorize(xi, scale);
    const std::string e = compile_error_of(out, {32});
    CHECK(contains(e, "out.tensorize(x.xi, scale): the loop x.xi is parallel"));
    CHECK(contains(e, "parallelize a loop outside it"));
}

TEST_CASE("two intrinsics for loops of one name in a stage's specializations are refused") {
    Matmul m;
    Stage update = m.c.update();
    update.specialize(m.c.output_buffer().dim(0).extent() % 32 == 0)
        .tile(m.x, m.y, m.xi, m.yi, 32, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .tensorize(m.k, intrinsics::fma_f32(32, 6));
    update.tile(m.x, m.y, m.xi, m.yi, 16, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .tensorize(m.k, intrinsics::fma_f32(16, 6));
    const std::string e = compile_error_of(m.c, {40, 30});
    CHECK(contains(e, "tensorizes the loop of the same name in another specialization of the stage"));
    CHECK(contains(e, "rename(k.x, ...)"));
}

TEST_CASE("a tensorized loop split afterwards is no longer there to tensorize") {
    Matmul m;
    RVar ko("ko"), ki("ki");
    m.c.update()
        .tile(m.x, m.y, m.xi, m.yi, 16, 6)
        .reorder(m.xi, m.yi, m.k, m.x, m.y)
        .tensorize(m.k, intrinsics::fma_f32(16, 6))
        .split(m.k, ko, ki, 4);
    const std::string e = compile_error_of(m.c, {40, 30});
    CHECK(contains(e, "there is no loop k.x to tensorize"));
}

TEST_CASE("a declaration must bound its Vars and read only its inputs") {
    ImageParam a(Float(32), 1, "a"), other(Float(32), 1, "other");
    Var i("i");
    Func open("open");
    open(i) = a(i) * 2.0f;
    auto declare = [&](Func f, const std::vector<ImageParam>& inputs) {
        try {
            TensorIntrinsic::extern_function("scale", f, inputs,
                                             reinterpret_cast<const void*>(&tessera_test_unused));
        } catch (const CompileError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(contains(declare(open, {a}), "leaves the extent of i open; give it with open.bound(i, 0, extent)"));
    Func reads("reads");
    reads(i) = a(i) + other(i);
    reads.bound(i, 0, 8);
    CHECK(contains(declare(reads, {a}), "reads other, which is not among the intrinsic's inputs"));
    CHECK(contains(declare(reads, {a, other, a}), "list each ImageParam it reads once"));
}
