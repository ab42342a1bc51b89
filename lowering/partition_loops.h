#pragma once
// Loop partitioning: a serial loop whose body holds tests that come out the same way in all but its
// first and last iterations is cut into up to three loops: a prologue and an epilogue that run the
// body as it is, and the steady part between them, which runs it with those tests resolved. The
// steady part is then free of the branches of guards and of the clamps of boundary conditions, so
// unrolled and vectorized code in it needs no masks and reads memory with dense vectors.
//
// The tests resolved, each only where the pass proves how it comes out over the whole steady range
// (for every value of the loops inside):
//   - a guard, an IfThenElse without an else branch, as a GuardWithIf split makes: taken;
//   - min(a, b) or max(a, b) with one operand marked likely() (as BoundaryConditions::repeat_edge
//     marks its clamps): that operand;
//   - select(likely(c), t, f), as BoundaryConditions::constant_exterior makes: t.
// A test is proved when it is a conjunction of comparisons linear in the loop's variable, with the
// lets inside the loop expanded and the likely sides of the other tests taken. Tests that read a
// variable of an enclosing serial loop are left to that loop; other tests stay in every part.
// Loops with a gpu_barrier() inside are left whole.

#include "ir/stmt.h"

namespace tessera::lowering {

ir::Stmt partition_loops(const ir::Stmt& s);

}  // namespace tessera::lowering
