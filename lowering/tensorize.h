#pragma once

#include <map>
#include <string>

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

// Replaces each tensorized loop nest by its intrinsic, where the nest's tile is whole, keeping the
// loops for tiles that guards cut short. Runs on flattened, simplified IR, before unrolling and
// vectorization (which then lower the built-in kernels).
ir::Stmt tensorize(const ir::Stmt& s, const Environment& env);

// The C functions of the tensor intrinsics the pipeline's schedules use, with their addresses.
std::map<std::string, const void*> tensor_intrinsic_functions(const Environment& env);

}  // namespace tessera::lowering
