#pragma once
// A pipeline compiled by the JIT, with what is needed to call it and to know when it is stale.

#include <memory>
#include <utility>
#include <vector>

#include "lowering/pipeline_arguments.h"
#include "tessera/target.h"

namespace tessera::targets {
class JITModule;
}

namespace tessera::lang {

struct FunctionContents;
struct ParameterContents;

struct CompiledPipeline {
    // Every Func the pipeline was compiled from, with its version then. Weak, so that a cache
    // kept in a Func does not keep the Funcs alive.
    std::vector<std::pair<std::weak_ptr<FunctionContents>, uint64_t>> signature;
    // Every buffer whose requirements (dim(d).set_min and the like) the code was compiled with,
    // input or output, with the version of its requirements then.
    std::vector<std::pair<std::weak_ptr<ParameterContents>, uint64_t>> constraint_signature;
    std::shared_ptr<targets::JITModule> module;
    std::vector<lowering::PipelineArgument> arguments;
    std::string loop_nest;
    Target target;  // what the code was compiled for
    double compile_ms = 0;

    // Whether no Func of the pipeline, and no requirement of its buffers, changed since it was
    // compiled.
    bool is_current() const;
};

}  // namespace tessera::lang
