#pragma once
// Unrolled and vectorized loops need extents known at compile time. Run after simplification has
// folded constant bounds into the loops. Where a loop's extent is a constant only once the lets
// around it are expanded (a Func's pure loop spans the region of its updates too, written as a
// max and a min of lets that cancel), the loop gets that constant. A loop whose extent is still
// not a constant is a CompileError naming the Func and the Var, and saying how to give the loop a
// constant extent.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt check_loop_extents(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
