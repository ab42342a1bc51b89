#pragma once
// Makes the indices of Stack and Register storage constants where the lets around them allow.
// Flattening writes an index in terms of the stage's lets (x * 16 + (co - co_min) * extent -
// x_min * 16, with x = x_min + 1 once unrolled), which cancel only once substituted, and LLVM does
// not always see through them: one variable index keeps a whole register tile on the stack. With
// every index a constant, LLVM keeps the tile in registers. A loop that runs once (a tile one row
// tall, inside a strip of rows) stands for its min there.

#include "ir/stmt.h"

namespace tessera::lowering {

ir::Stmt constant_stack_indices(const ir::Stmt& s);

}  // namespace tessera::lowering
