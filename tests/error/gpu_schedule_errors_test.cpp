// Wrong GPU schedules are CompileErrors that name the Func, the Var and the fix, raised before any
// code runs: no GPU in the target, thread loops outside block loops, too many threads or too much
// shared memory for a block, a thread loop without a constant bound, a kernel inside a CPU-parallel
// loop, a parallel loop inside a kernel, GPU memory outside a kernel, and Funcs that a block's
// threads would compute together where some of them could not take part.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

const Target emulation("host-gpu_emulation");

std::string compile_error_of(Func f, const Target& target = emulation) {
    try {
        f.compile_jit(target);
    } catch (const CompileError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

struct TwoStage {
    Func f{"f"}, g{"g"};
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    TwoStage() {
        f(x, y) = x * 2 + y;
        g(x, y) = f(x, y) + f(x + 1, y);
    }
};

}  // namespace

TEST_CASE("a GPU schedule for a target without a GPU names the feature to add") {
    TwoStage p;
    p.g.gpu_tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 8);
    const std::string e = compile_error_of(p.g, get_host_target());
    CHECK(contains(e, "g.gpu_blocks(yo)"));
    CHECK(contains(e, "the target has no GPU"));
    CHECK(contains(e, "gpu_emulation"));
}

TEST_CASE("a thread loop outside every block loop asks for gpu_blocks") {
    TwoStage p;
    p.g.split(p.x, p.xo, p.xi, 8).gpu_threads(p.xi);
    const std::string e = compile_error_of(p.g);
    CHECK(contains(e, "g.gpu_threads(xi)"));
    CHECK(contains(e, "not inside any gpu_blocks loop"));
}

TEST_CASE("a block loop inside a thread loop asks to reorder") {
    TwoStage p;
    p.g.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 8).gpu_blocks(p.yo).gpu_threads(p.xo).gpu_blocks(p.yi);
    const std::string e = compile_error_of(p.g);
    CHECK(contains(e, "g.gpu_blocks(yi)"));
    CHECK(contains(e, "block loops must enclose thread loops"));
}

TEST_CASE("more than 1024 threads a block is an error that gives the count") {
    TwoStage p;
    p.g.gpu_tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 64, 32);
    const std::string e = compile_error_of(p.g);
    CHECK(contains(e, "64 x 32 x 1 = 2048 threads"));
    CHECK(contains(e, "1024"));
}

TEST_CASE("a thread loop of unbounded extent asks for a constant split") {
    TwoStage p;
    p.g.gpu_blocks(p.y).gpu_threads(p.x);
    const std::string e = compile_error_of(p.g);
    CHECK(contains(e, "g.gpu_threads(x)"));
    CHECK(contains(e, "no constant upper bound"));
}

TEST_CASE("gpu_lanes of more than 32 iterations is an error") {
    TwoStage p;
    p.g.split(p.x, p.xo, p.xi, 64).gpu_blocks(p.xo).gpu_lanes(p.xi);
    const std::string e = compile_error_of(p.g);
    CHECK(contains(e, "g.gpu_lanes(xi)"));
    CHECK(contains(e, "32 lanes"));
}

TEST_CASE("a kernel inside a CPU-parallel loop is an error naming that loop") {
    TwoStage p;
    p.g.split(p.x, p.xo, p.xi, 8).gpu_blocks(p.xo).gpu_threads(p.xi).parallel(p.y);
    const std::string e = compile_error_of(p.g);
    CHECK(contains(e, "g.gpu_blocks(xo)"));
    CHECK(contains(e, "g's parallel loop over y"));
}

TEST_CASE("a parallel loop inside a kernel is an error") {
    TwoStage p;
    p.g.gpu_tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 8);
    p.f.compute_at(p.g, p.xo).split(p.y, p.yo, p.yi, 2).parallel(p.yo);
    const std::string e = compile_error_of(p.g);
    CHECK(contains(e, "f.parallel(yo)"));
    CHECK(contains(e, "inside the GPU kernel"));
}

TEST_CASE("more shared memory than a block may have on the target's GPU lists the Funcs that take it") {
    Func f("f"), g("g");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    f(x, y) = cast<double>(x + y);
    g(x, y) = f(x, y) + f(x + 200, y);  // a tile of f 216 wide by 64 rows: 110,592 bytes of doubles
    g.gpu_tile(x, y, xo, yo, xi, yi, 16, 64);
    f.compute_at(g, xo);
    const std::string e = compile_error_of(g);  // for sm_75, the oldest GPU a target may name
    CHECK(contains(e, "shared memory"));
    CHECK(contains(e, "f (110592 bytes)"));
    CHECK(contains(e, "more than the 65536 a block may have on sm_75"));
    CHECK(contains(e, "cuda_capability_90 allows 232448"));
    // An H100 takes it, by the dynamic opt-in.
    CHECK(compile_error_of(g, Target("host-gpu_emulation-cuda_capability_90")).empty());
}

TEST_CASE("GPUShared storage outside any kernel names the Func") {
    TwoStage p;
    p.f.compute_root().store_in(MemoryType::GPUShared);
    const std::string e = compile_error_of(p.g);
    CHECK(contains(e, "Func f is stored in GPUShared memory"));
    CHECK(contains(e, "outside any"));
}

// A Func computed inside each thread's code with gpu_threads loops of its own is computed by all
// the block's threads together; these are the ways that cannot work.
struct Cooperative {
    Func coop{"coop"}, out{"out"};
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
};

TEST_CASE("a Func the block's threads compute together cannot read one each thread computes alone") {
    Cooperative p;
    Func mine("mine");
    mine(p.x, p.y) = p.x + p.y;
    p.coop(p.x, p.y) = mine(p.x, p.y) * 2;
    p.out(p.x, p.y) = p.coop(p.x, p.y) + p.coop(p.x + 1, p.y);
    p.out.gpu_tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 8);
    mine.compute_at(p.out, p.xi);
    p.coop.compute_at(p.out, p.xi).gpu_threads(p.x);
    const std::string e = compile_error_of(p.out);
    CHECK(contains(e, "Func coop is computed by the threads of a GPU block together"));
    CHECK(contains(e, "reads mine, which each thread computes for itself"));
}

TEST_CASE("a Func the block's threads compute together must be reached by all of them") {
    Cooperative p;
    Func wide("wide");
    wide(p.x, p.y) = p.x * p.y;
    p.coop(p.x, p.y) = p.x - p.y;
    p.out(p.x, p.y) = wide(2 * p.x, p.y) + p.coop(p.x, p.y) + p.coop(p.x + 1, p.y);
    p.out.gpu_tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 8);
    wide.compute_at(p.out, p.xo).gpu_threads(p.x, p.y);  // 15 x 8 threads
    p.coop.compute_at(p.out, p.xi).gpu_threads(p.x);
    const std::string e = compile_error_of(p.out);
    CHECK(
        contains(e, "coop is computed by the threads of a GPU block together, inside out's gpu_thread loop"));
    CHECK(contains(e, "8 x 8 x 1 threads of the block's 15 x 8 x 1"));
}

TEST_CASE("a Func the block's threads compute together must be reached as often by each") {
    Cooperative p;
    Func mine("mine");
    p.coop(p.x, p.y) = p.x * p.y;
    mine(p.x, p.y) = p.coop(p.x, p.y) + 1;
    p.out(p.x, p.y) = mine(p.x, p.y) + mine(p.x / 2, p.y);  // each thread a different stretch of x
    p.out.gpu_tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 8);
    mine.compute_at(p.out, p.xi);
    p.coop.compute_at(mine, p.x).gpu_threads(p.x);
    const std::string e = compile_error_of(p.out);
    CHECK(contains(e, "coop is computed by the threads of a GPU block together"));
    CHECK(contains(e, "depends on the thread"));
}

TEST_CASE("a Func the block's threads compute together cannot hold another computed so") {
    Cooperative p;
    Func inner("inner");
    inner(p.x, p.y) = p.x + 3 * p.y;
    p.coop(p.x, p.y) = inner(p.x, p.y) + inner(p.x + 1, p.y);
    p.out(p.x, p.y) = p.coop(p.x, p.y) + p.coop(p.x + 1, p.y);
    p.out.gpu_tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 8, 8);
    p.coop.compute_at(p.out, p.xi).gpu_threads(p.x);
    inner.compute_at(p.coop, p.x).gpu_threads(p.x);
    const std::string e = compile_error_of(p.out);
    CHECK(contains(e, "inner.gpu_threads(x)"));
    CHECK(contains(e, "which is itself computed that way"));
}

TEST_CASE("a target string names the GPU features as Halide does") {
    const Target t("x86-64-linux-avx2-cuda-cuda_capability_90");
    CHECK(t.has_feature(Target::CUDA));
    CHECK(t.has_gpu_feature());
    CHECK(t.cuda_capability() == 90);
    CHECK(t.to_string() == "x86-64-linux-avx2-cuda-cuda_capability_90");
    CHECK(Target("x86-64-linux-cuda").cuda_capability() == 75);
    CHECK(Target("x86-64-linux-cuda-cuda_capability_80-cuda_capability_86").cuda_capability() == 86);
    CHECK_FALSE(get_host_target().has_gpu_feature());
}
