#pragma once
// The names lowering gives to loop variables, bounds and buffers. Every pass builds names through
// these functions, so they agree on them without matching strings by hand.

#include <string>

namespace tessera::lowering {

// The loop variable of dimension `var` (a pure Var or an RVar name) in stage `stage` of `func`.
std::string loop_var(const std::string& func, int stage, const std::string& var);
// The first and last values a stage loop covers.
std::string loop_min(const std::string& func, int stage, const std::string& var);
std::string loop_max(const std::string& func, int stage, const std::string& var);

// The first value and the number of iterations of the loop over a dimension of a stage (an original
// Var or RVar, or a loop a split made, named in full: "x.xo").
std::string dim_loop_min(const std::string& func, int stage, const std::string& dim);
std::string dim_loop_extent(const std::string& func, int stage, const std::string& dim);

// The region a Func is stored over, per dimension.
std::string realized_min(const std::string& func, int dim);
std::string realized_extent(const std::string& func, int dim);

// The region the pipeline's consumers require of a Func (or an input), per dimension.
std::string required_min(const std::string& func, int dim);
std::string required_max(const std::string& func, int dim);

// The flat buffer (allocation or argument) holding value `index` of a Func with `values` values.
std::string value_buffer(const std::string& func, int index, int values);

// Fields of a buffer argument, read from its tessera_buffer_t at entry.
std::string buffer_struct(const std::string& buffer);
std::string buffer_min(const std::string& buffer, int dim);
std::string buffer_extent(const std::string& buffer, int dim);
std::string buffer_stride(const std::string& buffer, int dim);

// The index of a GPU kernel's block, and of a thread in its block, in dimension 0 (x), 1 (y) or
// 2 (z): the variables of the loops that GPU lowering makes of a kernel's block and thread loops.
std::string gpu_block_id(int dim);
std::string gpu_thread_id(int dim);

}  // namespace tessera::lowering
