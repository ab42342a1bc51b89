#pragma once
// Lowering: a pipeline's Funcs and schedules in, one loop-nest statement for code generation out.

#include <memory>
#include <string>
#include <vector>

#include "lang/function.h"
#include "lowering/pipeline_arguments.h"
#include "targets/lowered_function.h"

namespace tessera::lowering {

struct LoweredPipeline {
    targets::LoweredFunction function;
    std::vector<PipelineArgument> arguments;  // in the order of function.args
    std::string loop_nest;                    // what print_loop_nest() shows
};

// Runs every lowering pass in order. TESSERA_PRINT_PASSES=1 prints the IR after each pass and
// TESSERA_TIME_PASSES=1 the time each took, to stderr.
LoweredPipeline lower(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                      const std::string& name);

}  // namespace tessera::lowering
