// The barriers that GPU lowering places between the stretches of a block's code are what make a
// producer staged in shared memory safe to read: emulated with them, a blur gives the reference's
// bits; emulated without them, every thread reads rows its neighbours have not written yet.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include "ir/ir_util.h"
#include "ir/mutator.h"
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

// Runs the lowered blur (arguments: the output, then the input) with its kernels emulated.
Buffer<uint16_t> run_emulated(lowering::LoweredPipeline lowered, const Buffer<uint16_t>& in, bool barriers) {
    ir::Stmt body = lowered.function.body;
    if (!barriers) {
        RemoveBarriers remove;
        body = remove.mutate(body);
        REQUIRE(remove.removed > 0);
    }
    lowered.function.body = lowering::emulate_gpu_kernels(body);
    std::shared_ptr<targets::JITModule> module = targets::jit_compile(lowered.function, get_host_target());
    Buffer<uint16_t> out(in.width(), in.height());
    std::vector<void*> args;
    for (const lowering::LoweredArgument& a : lowered.function.args) {
        REQUIRE(a.is_buffer);
        args.push_back(a.name == lowered.arguments.front().name ? out.raw_buffer() : in.raw_buffer());
    }
    REQUIRE(module->call(args.data()) == 0);
    return out;
}

}  // namespace

TEST_CASE(
    "a producer staged in shared memory needs the barrier after it: without, emulation gives wrong values") {
    const int w = 67, h = 45;
    Buffer<uint16_t> in = random_image(w, h, 7);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 16, 8,
                         TailStrategy::GuardWithIf);
    blur.blur_x.compute_at(blur.blur_y, blur.xo).gpu_threads(blur.x, blur.y);
    lowering::LoweringOptions options;
    options.gpu = true;  // kernels in the shape a GPU runs, emulated here by hand
    options.outline_gpu_kernels = false;
    const lowering::LoweredPipeline lowered = lowering::lower({blur.blur_y.function()}, "blur", options);
    REQUIRE(lowered.arguments.front().name == "blur_y");

    const Buffer<uint16_t> expected = reference_blur(in);
    const Buffer<uint16_t> with = run_emulated(lowered, in, true);
    const Buffer<uint16_t> without = run_emulated(lowered, in, false);
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
