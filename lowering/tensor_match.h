#pragma once
// Matching a loop nest against a tensor intrinsic's declaration: the loops, the statement and the
// memory each operand is read from and written to.

#include <string>

#include "ir/stmt.h"
#include "lang/tensor_intrinsic.h"
#include "lowering/tensor_kernels.h"

namespace tessera::lowering {

struct TensorMatch {
    TensorBinding binding;
    // True where the loops are whole: no guard (of a split that does not divide) cuts them short.
    Expr whole_tile;
};

// Matches the nest from `loop` inwards (flattened, simplified IR) against the declaration, or
// throws a CompileError showing both; `where` names the tensorize call for messages.
TensorMatch match_tensor_intrinsic(const ir::For* loop, const lang::TensorIntrinsicContents& intrinsic,
                                   const std::string& where);

}  // namespace tessera::lowering
