#pragma once
// Loop partitioning: a serial loop whose body is guarded by conditions that hold for its first
// iterations and fail only at its end, as a GuardWithIf split's guards do (xo * 8 + xi < extent
// fails only in the last xo), becomes two loops: the steady part, which runs those iterations with
// the guards left out, and the rest, which keeps them. The steady part is then free of branches,
// so unrolled and vectorized code in it needs no masks.
//
// A guard is an IfThenElse without an else branch whose condition, with the lets inside the loop
// expanded, is a conjunction of comparisons c * v + rest < 0 (or <=, >, >= rearranged so) with v
// the loop's variable, c a positive constant and rest bounded above over the ranges of the loops
// between the loop and the guard. Any other condition stays in both parts.

#include "ir/stmt.h"

namespace tessera::lowering {

ir::Stmt partition_loops(const ir::Stmt& s);

}  // namespace tessera::lowering
