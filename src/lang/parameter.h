#pragma once
// The compiler's view of a Param or an ImageParam.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lang/wrapper.h"
#include "tessera/buffer.h"
#include "tessera/expr.h"
#include "tessera/rdom.h"

namespace tessera::lang {

// What an ImageParam's or an output's buffer must have in one dimension (ParamDimension::set_min
// and the like): each defined field is checked when the pipeline runs, and the compiled code uses
// the constraint in place of the field, so that a constant one simplifies.
struct BufferConstraint {
    Expr min, extent, stride;
};

struct ParameterContents {
    std::string name;
    Type type;  // of the scalar, or of the buffer's elements
    bool is_buffer = false;
    int dimensions = 0;
    // A scalar's current value, as bytes; compiled code reads it through a pointer.
    alignas(8) uint8_t scalar[8] = {};
    Expr min_value, max_value;
    // An ImageParam's bound buffer (null until set()).
    std::shared_ptr<BufferContents> buffer;
    // Of a buffer, one per dimension. Dimension 0 has stride 1 unless set otherwise, as in Halide.
    std::vector<BufferConstraint> constraints;
    // Counts changes to the constraints, so that code compiled with older ones is compiled again.
    uint64_t constraints_version = 0;
    // The buffer of a Func's output (Func::output_buffer), not an input of the pipeline.
    bool is_output = false;
    // An ImageParam's wrappers, made by in().
    std::vector<Wrapper> wrappers;
    // What automatic schedulers assume: a scalar's typical value, a buffer's typical shape (one
    // Range per dimension, undefined where no estimate was given). They change no code.
    Expr scalar_estimate;
    std::vector<Range> estimates;
};

}  // namespace tessera::lang
