#pragma once
// Storage flattening: each Realize becomes one flat Allocate per value (dense, first dimension
// innermost), preceded by a check that its size fits; each Provide becomes a Store and each call of
// a Func or an input image a Load, at the flat index computed from the region's mins and strides.
// Outputs and inputs use the mins and strides of their buffer arguments.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt flatten_storage(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
