#pragma once
// Unrolled and vectorized loops need extents known at compile time. Run after simplification has
// folded constant bounds into the loops; a loop whose extent is still not a constant is a
// CompileError naming the Func and the Var, and saying how to give the loop a constant extent.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

void check_loop_extents(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
