#pragma once
// Loop unrolling.

#include "ir/stmt.h"

namespace tessera::lowering {

// Replaces every loop marked Unrolled, whose extent must by now simplify to a constant, by copies
// of its body with the loop variable substituted (min + 0, min + 1, ...); the min is evaluated
// once, before the copies, as the loop would. Unrolled loops nested inside are unrolled too. Leaves
// all other loops untouched.
ir::Stmt unroll_loops(const ir::Stmt& s);

}  // namespace tessera::lowering
