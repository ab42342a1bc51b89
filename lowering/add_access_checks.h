#pragma once
// The checked mode (the target feature check_bounds): every read of a Func, an input buffer or an
// output buffer, and every write of a Func or an output buffer, is checked against the region
// allocated for it (or the buffer passed) before it happens. One outside is a failed
// require() whose message names the Func, the coordinate and the region, so that a wrong index
// is an error at the access rather than a value read from whatever lies there.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

// Runs on the multi-dimensional accesses (Provide, and Calls of Funcs and images), before storage
// is flattened and after storage is folded, so each access is checked against the region stored.
ir::Stmt add_access_checks(const ir::Stmt& s, const Environment& env);

// s without the checks add_access_checks made: the accesses alone, for the passes that match
// loop bodies against patterns (tensorize).
ir::Stmt without_access_checks(const ir::Stmt& s);

}  // namespace tessera::lowering
