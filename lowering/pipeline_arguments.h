#pragma once
// The arguments a lowered pipeline takes: its output buffers, then every input buffer
// (Buffer or ImageParam) and scalar Param its definitions read, in a stable order.

#include <memory>
#include <string>
#include <vector>

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

struct PipelineArgument {
    enum class Kind { OutputBuffer, InputBuffer, Scalar };
    Kind kind;
    std::string name;
    Type type;
    int dimensions = 0;
    // Where the value comes from at run time: an input Buffer, or an ImageParam or Param.
    std::shared_ptr<lang::BufferContents> buffer;
    std::shared_ptr<lang::ParameterContents> param;
    // For outputs: which Func, and which of its values.
    std::string func;
    int value_index = 0;
    bool is_buffer() const { return kind != Kind::Scalar; }
    // Whether the code assumes, and checks, stride 1 in dimension 0: always for outputs and
    // ImageParams (as Halide does), and for an input Buffer that had it when compiled.
    bool dense_dimension_0 = false;
};

// Outputs come from the environment; inputs and scalars from the statement's Image calls and
// Param variables (before storage flattening).
std::vector<PipelineArgument> pipeline_arguments(const Environment& env, const ir::Stmt& s);

}  // namespace tessera::lowering
