#pragma once
// The code a matched tensor intrinsic becomes: a call of its C function, or one of the built-in
// kernels, written as loop-nest IR that unrolling and vectorization then lower.

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "lang/tensor_intrinsic.h"

namespace tessera::lowering {

// An operand as the matched loops access it: element (x0, x1, ...) of the declaration's operand is
// element base + sum(xd * strides[d]) of the flattened memory `buffer`.
struct TensorOperandView {
    std::string buffer;
    Type type;
    Expr base;
    std::vector<Expr> strides, extents;
};

struct TensorBinding {
    std::vector<TensorOperandView> inputs;  // in the intrinsic's order
    TensorOperandView output;
    std::vector<Expr> extent_values;  // one per extent Param, in order
};

struct TensorKernel {
    ir::Stmt body;
    // What the kernel assumes of the strides beyond the declaration (contiguous packing); where it
    // is false at run time the original loops run instead.
    Expr precondition;
};

// `unique` makes the kernel's loop and allocation names distinct from any other's.
TensorKernel tensor_kernel(const lang::TensorIntrinsicContents& intrinsic, const TensorBinding& binding,
                           const std::string& unique);

}  // namespace tessera::lowering
