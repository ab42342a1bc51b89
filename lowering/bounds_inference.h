#pragma once
// Bounds inference: defines every symbolic bound schedule_functions left behind, as lets at the
// start of the loop body (or the pipeline) where each Func is computed and stored.
//
// At each such site, consumers come first. A Func's pure loops cover what the code after its
// production (its consumers, inside this loop iteration) touches of it, widened, for the pure
// definition, by what its own updates write and read; its storage covers what its store loop's
// body touches. Outputs cover their buffers; each input image's required region
// (required_min/required_max) is the union of what all stages read of it.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt bounds_inference(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
