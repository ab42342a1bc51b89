#pragma once
// Checks the GPU loops of a pipeline, after simplification has folded constant extents into the
// loops: the target makes kernels (the feature cuda, or GPU emulation); a kernel's block loops (at
// most three, nested with nothing but lets between them) enclose its thread loops (at most three
// per nest, likewise), no kernel runs inside a CPU-parallel or vectorized loop and none holds a
// parallel loop; thread loops have constant extents, with at most 1024 threads a block and 32
// lanes a warp. Each violation is a CompileError naming the Func, the Var and the fix. Returns s
// with each thread loop's extent written as the constant it is.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt check_gpu_schedule(const ir::Stmt& s, const Environment& env, bool target_has_gpu);

}  // namespace tessera::lowering
