#pragma once
// Decides where each allocation lives, after simplification has made what can be constant
// constant: Auto becomes Stack when the size is a constant of at most 16 KiB (no call to the
// allocator, and memory that stays in cache), else Heap. A Func stored in Stack or Register memory
// whose size is not a constant, or in GPU memory outside a GPU kernel, is a CompileError that names
// the Func and says what to do.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt place_allocations(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
