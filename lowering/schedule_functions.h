#pragma once
// Builds the loop nest of a pipeline from its (inlined) environment: the outputs' productions at
// the root, then every other Func, consumers first, injected where its schedule says: its
// production (produce f, followed by consume f around the code that uses it) at the start of the
// body of its compute loop, and a Realize of its storage around the body of its store loop. Loop
// bounds are symbolic (loop_min/loop_max names), to be defined by bounds inference.
//
// A compute or store level that does not enclose every use of the Func is a CompileError listing
// the places that would be legal.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt schedule_functions(const Environment& env);

}  // namespace tessera::lowering
