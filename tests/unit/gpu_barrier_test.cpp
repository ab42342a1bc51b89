// The barriers that GPU lowering places between the stretches of a block's code are what make a
// producer staged in shared memory safe to read: emulated with them, a blur and a register-tiled
// SGEMM give the reference's bits; emulated without them, threads read what their neighbours
// have not written yet. And there are no more of them than that needs.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <cmath>
#include <random>

#include "apps/gpu/gpu_pipelines.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"
#include "lowering/emulate_gpu_kernels.h"
#include "lowering/gpu_memory_accesses.h"
#include "lowering/lower.h"
#include "targets/jit.h"
#include "tests/correctness/blur_reference.h"

using namespace tessera;
using namespace blur_reference;

namespace {

class RemoveBarriers : public ir::Mutator {
public:
    int removed = 0;

private:
    using ir::Mutator::visit;
    ir::Stmt visit(const ir::Evaluate* op) override {
        if (!lowering::is_gpu_barrier(ir::handle_of(op))) return ir::handle_of(op);
        removed++;
        return ir::Evaluate::make(ir::make_zero(Int(32)));
    }
};

// Runs a lowered pipeline with its kernels emulated; buffer_of names each argument's buffer.
template <typename BufferOf>
void run_emulated(lowering::LoweredPipeline lowered, BufferOf buffer_of, bool barriers) {
    ir::Stmt body = lowered.function.body;
    if (!barriers) {
        RemoveBarriers remove;
        body = remove.mutate(body);
        REQUIRE(remove.removed > 0);
    }
    lowered.function.body = lowering::emulate_gpu_kernels(body);
    std::shared_ptr<targets::JITModule> module = targets::jit_compile(lowered.function, get_host_target());
    std::vector<void*> args;
    for (const lowering::LoweredArgument& a : lowered.function.args) {
        REQUIRE(a.is_buffer);
        args.push_back(buffer_of(a.name));
    }
    REQUIRE(module->call(args.data()) == 0);
}

lowering::LoweringOptions gpu_kernels_emulated_by_hand() {
    lowering::LoweringOptions options;
    options.gpu = true;  // kernels in the shape a GPU runs, emulated here by hand
    options.outline_gpu_kernels = false;
    return options;
}

// How many barriers each iteration of the loops named `loop` runs.
class BarriersPerIteration : public ir::Visitor {
public:
    explicit BarriersPerIteration(std::string loop) : loop_(std::move(loop)) {}
    std::vector<int> counts;

private:
    const std::string loop_;
    int* counting_ = nullptr;
    void visit(const ir::For* op) override {
        if (op->name != loop_) return ir::Visitor::visit(op);
        counts.push_back(0);
        int count = 0;
        counting_ = &count;
        ir::Visitor::visit(op);
        counting_ = nullptr;
        counts.back() = count;
    }
    void visit(const ir::Evaluate* op) override {
        if (counting_ && lowering::is_gpu_barrier(ir::handle_of(op))) ++*counting_;
        ir::Visitor::visit(op);
    }
};

}  // namespace

TEST_CASE(
    "a producer staged in shared memory needs the barrier after it: without, emulation gives wrong values") {
    const int w = 67, h = 45;
    Buffer<uint16_t> in = random_image(w, h, 7);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 16, 8,
                         TailStrategy::GuardWithIf);
    blur.blur_x.compute_at(blur.blur_y, blur.xo).gpu_threads(blur.x, blur.y);
    const lowering::LoweredPipeline lowered =
        lowering::lower({blur.blur_y.function()}, "blur", gpu_kernels_emulated_by_hand());
    REQUIRE(lowered.arguments.front().name == "blur_y");

    const Buffer<uint16_t> expected = reference_blur(in);
    Buffer<uint16_t> with(w, h), without(w, h);
    for (Buffer<uint16_t>* out : {&with, &without}) {
        run_emulated(
            lowered,
            [&](const std::string& name) { return name == "blur_y" ? out->raw_buffer() : in.raw_buffer(); },
            out == &with);
    }
    int wrong_with = 0, wrong_without = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            wrong_with += with(x, y) != expected(x, y);
            wrong_without += without(x, y) != expected(x, y);
        }
    }
    CHECK(wrong_with == 0);
    // Most of each tile reads rows of blur_x that later threads write.
    CHECK(wrong_without > w * h / 2);
}

TEST_CASE("register tiles fed by shared tiles that all the block's threads stage need two barriers a step") {
    const int n = 70, m = 45, depth = 37;
    Buffer<float> a(depth, m), b(n, depth);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    a.for_each_value([&](float& v) { v = value(rng); });
    b.for_each_value([&](float& v) { v = value(rng); });
    gpu_apps::SgemmPipeline p = gpu_apps::sgemm_pipeline();
    gpu_apps::schedule_sgemm_for_gpu(p);
    const lowering::LoweredPipeline lowered =
        lowering::lower({p.C.function()}, "sgemm", gpu_kernels_emulated_by_hand());

    // One after the tiles are staged, one before the next step overwrites them: none between the
    // two tiles, none for each thread's own sums.
    BarriersPerIteration barriers("acc.s1.k.x.ko");
    barriers.include(lowered.function.body);
    CHECK(barriers.counts == std::vector<int>{2});

    Buffer<float> with(n, m), without(n, m);
    for (Buffer<float>* c : {&with, &without}) {
        auto buffer_of = [&](const std::string& name) {
            return name == "A" ? a.raw_buffer() : name == "B" ? b.raw_buffer() : c->raw_buffer();
        };
        run_emulated(lowered, buffer_of, c == &with);
    }
    int wrong_with = 0, wrong_without = 0;
    for (int y = 0; y < m; y++) {
        for (int x = 0; x < n; x++) {
            float expected = 0.0f;
            for (int i = 0; i < depth; i++) expected = std::fma(a(i, y), b(x, i), expected);
            wrong_with += with(x, y) != expected;
            wrong_without += without(x, y) != expected;
        }
    }
    CHECK(wrong_with == 0);
    // Without barriers, threads read tiles the others have not staged yet (emulation's poison).
    CHECK(wrong_without > n * m / 2);
}
