#pragma once
// Bounds inference: defines, as lets around the pipeline, every symbolic bound schedule_functions
// left behind. Consumers come first: each Func's region is the union of what its consumers'
// loops touch, widened by what its own updates write and read; each input image's required
// region (required_min/required_max) is the union of what all stages read of it.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt bounds_inference(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
