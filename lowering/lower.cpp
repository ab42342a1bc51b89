#include "lowering/lower.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "ir/printer.h"
#include "ir/simplify.h"
#include "lowering/add_access_checks.h"
#include "lowering/add_buffer_checks.h"
#include "lowering/add_param_checks.h"
#include "lowering/bounds_inference.h"
#include "lowering/check_gpu_schedule.h"
#include "lowering/check_loop_extents.h"
#include "lowering/constant_stack_indices.h"
#include "lowering/emulate_gpu_kernels.h"
#include "lowering/environment.h"
#include "lowering/flatten_storage.h"
#include "lowering/fold_storage.h"
#include "lowering/fuse_gpu_thread_loops.h"
#include "lowering/inject_device_copies.h"
#include "lowering/inline_functions.h"
#include "lowering/loop_nest_text.h"
#include "lowering/outline_gpu_kernels.h"
#include "lowering/partition_loops.h"
#include "lowering/place_allocations.h"
#include "lowering/place_gpu_storage.h"
#include "lowering/schedule_functions.h"
#include "lowering/sliding_window.h"
#include "lowering/tensorize.h"
#include "lowering/unroll_loops.h"
#include "lowering/vectorize_loops.h"

namespace tessera::lowering {
namespace {

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::string(v) != "0";
}

// Runs one pass, printing its output and its time when asked to.
template <typename Pass>
auto run_pass(const char* name, Pass&& pass) {
    static const bool print = env_flag("TESSERA_PRINT_PASSES"), time = env_flag("TESSERA_TIME_PASSES");
    const auto start = std::chrono::steady_clock::now();
    auto result = pass();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (time) std::cerr << "tessera: pass " << name << ": " << ms << " ms\n";
    if constexpr (std::is_same_v<decltype(result), ir::Stmt>) {
        if (print) std::cerr << "tessera: after " << name << ":\n" << result << "\n";
    }
    return result;
}

}  // namespace

LoweringOptions lowering_options(const Target& target) {
    LoweringOptions options;
    options.check_bounds = target.has_feature(Target::CheckBounds);
    options.emulate_gpu = target.has_feature(Target::GPUEmulation) || env_flag("TESSERA_GPU_EMULATION");
    options.gpu = target.has_feature(Target::CUDA) || options.emulate_gpu;
    options.cuda_capability = target.cuda_capability();
    return options;
}

namespace {

// The passes up to the first simplification, which every use of the loop nest shares.
ir::Stmt front_passes(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                      const LoweringOptions& options, Environment& env, LoweredPipeline& result) {
    env = run_pass("build environment", [&] { return build_environment(outputs); });
    run_pass("inline functions", [&] {
        inline_functions(env);
        return 0;
    });
    ir::Stmt s = run_pass("schedule functions", [&] { return schedule_functions(env); });
    result.loop_nest = loop_nest_text(s);
    result.arguments = pipeline_arguments(env, s);
    s = run_pass("bounds inference", [&] { return bounds_inference(s, env); });
    s = run_pass("fold storage", [&] { return fold_storage(s, env); });
    s = run_pass("sliding window", [&] { return sliding_window(s, env); });
    s = run_pass("add buffer checks", [&] { return add_buffer_checks(s, result.arguments); });
    s = run_pass("add param checks", [&] { return add_param_checks(s, result.arguments); });
    if (options.check_bounds) s = run_pass("add access checks", [&] { return add_access_checks(s, env); });
    s = run_pass("flatten storage", [&] { return flatten_storage(s, env); });
    // Simplification folds constant bounds into the loops that unrolling and vectorization need.
    s = run_pass("simplify", [&] { return ir::simplify(s); });
    return run_pass("check loop extents", [&] { return check_loop_extents(s, env); });
}

}  // namespace

ir::Stmt lower_loop_nest(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs) {
    LoweredPipeline result;
    Environment env;
    return front_passes(outputs, LoweringOptions(), env, result);
}

void infer_bounds(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs) {
    Environment env = build_environment(outputs);
    inline_functions(env);
    bounds_inference(schedule_functions(env), env);
}

LoweredPipeline lower(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                      const std::string& name, const LoweringOptions& options) {
    LoweredPipeline result;
    Environment env;
    ir::Stmt s = front_passes(outputs, options, env, result);
    s = run_pass("check GPU schedule", [&] { return check_gpu_schedule(s, env, options.gpu); });
    s = run_pass("place GPU storage", [&] { return place_gpu_storage(s, env, options.cuda_capability); });
    s = run_pass("fuse GPU thread loops", [&] { return fuse_gpu_thread_loops(s); });
    if (options.emulate_gpu) s = run_pass("emulate GPU kernels", [&] { return emulate_gpu_kernels(s); });
    s = run_pass("tensorize", [&] { return tensorize(s, env); });
    s = run_pass("partition loops", [&] { return partition_loops(s); });
    s = run_pass("unroll loops", [&] { return unroll_loops(s); });
    s = run_pass("vectorize loops", [&] { return vectorize_loops(s); });
    s = run_pass("simplify vectors", [&] { return ir::simplify(s); });
    const bool gpu_kernels = options.gpu && !options.emulate_gpu && options.outline_gpu_kernels;
    if (gpu_kernels) {
        s = run_pass("inject device copies",
                     [&] { return inject_device_copies(s, result.function.device_allocations); });
    }
    s = run_pass("place allocations", [&] { return place_allocations(s, env); });
    s = run_pass("constant stack indices", [&] { return constant_stack_indices(s); });
    if (gpu_kernels)
        s = run_pass("outline GPU kernels", [&] { return outline_gpu_kernels(s, result.function.kernels); });
    result.function.name = name;
    result.function.body = s;
    result.function.extern_symbols = tensor_intrinsic_functions(env);
    for (const PipelineArgument& a : result.arguments) {
        result.function.args.push_back({a.name, a.is_buffer(), a.type, a.dimensions});
    }
    return result;
}

}  // namespace tessera::lowering
