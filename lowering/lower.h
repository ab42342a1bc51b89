#pragma once
// Lowering: a pipeline's Funcs and schedules in, one loop-nest statement for code generation out.

#include <memory>
#include <string>
#include <vector>

#include "lang/function.h"
#include "lowering/lowered_function.h"
#include "lowering/pipeline_arguments.h"
#include "tessera/target.h"

namespace tessera::lowering {

// What the code contains beyond the pipeline itself, from the target's switches.
struct LoweringOptions {
    bool check_bounds = false;  // add_access_checks (the target feature check_bounds)
    bool gpu = false;           // GPU schedules make kernels (the target feature cuda, or emulation)
    // Kernels run on the CPU (the target feature gpu_emulation, or TESSERA_GPU_EMULATION=1).
    bool emulate_gpu = false;
    // Kernels not emulated are outlined and launched from the host; tests that treat the kernels
    // themselves keep them in the loop nest.
    bool outline_gpu_kernels = true;
    int cuda_capability = 75;  // of the GPU the kernels are for (the target's cuda_capability_XX)
};

struct LoweredPipeline {
    LoweredFunction function;
    std::vector<PipelineArgument> arguments;  // in the order of function.args
    std::string loop_nest;                    // what print_loop_nest() shows
};

LoweringOptions lowering_options(const Target& target);

// Runs every lowering pass in order. TESSERA_PRINT_PASSES=1 prints the IR after each pass and
// TESSERA_TIME_PASSES=1 the time each took, to stderr.
LoweredPipeline lower(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                      const std::string& name, const LoweringOptions& options = LoweringOptions());

// The loop nest as the first passes leave it, for analysis: bounds inferred, storage flattened and
// simplified, every loop still marked parallel, vectorized or unrolled as its schedule says.
ir::Stmt lower_loop_nest(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs);

// Runs the passes up to bounds inference, which throw a CompileError where a schedule's regions
// cannot be inferred: a cheap test of a schedule before the costly passes.
void infer_bounds(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs);

}  // namespace tessera::lowering
