#pragma once
// Inlining: every call to a Func computed inline is replaced by its pure definition, with the
// call's arguments bound by lets, and the Func leaves the realization order.

#include "lowering/environment.h"

namespace tessera::lowering {

// Whether the schedule (or the default: pure, not an output) computes f inline.
bool is_computed_inline(const Environment& env, const std::string& name);

void inline_functions(Environment& env);

}  // namespace tessera::lowering
