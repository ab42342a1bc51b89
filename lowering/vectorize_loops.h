#pragma once
// Loop vectorization: real vector IR, with ramps and broadcasts.

#include "ir/stmt.h"

namespace tessera::lowering {

// Replaces every loop marked Vectorized, whose extent must by now simplify to a constant n, by its
// body computed once on vectors of n lanes: the loop variable becomes ramp(min, 1, n) and every
// expression that depends on it a vector, kept in canonical affine form where it is one (so that
// flat indices such as (x - min) + y * stride become ramp(base, 1, n), dense loads and stores).
// Each lane computes what its iteration of the serial loop would, in the same order within the
// lane; the iterations must be independent, as the schedule's checks ensure.
//
//   - Lets whose value becomes a vector bind a vector (or, for a ramp, its scalar base).
//   - An if whose condition differs across lanes runs the vector body where all lanes agree to
//     enter it, and otherwise the lanes one after another with the original scalar statements.
//   - Loops inside keep running serially, on vectors; loops marked Vectorized inside a vectorized
//     loop run serially.
//   - An allocation inside gets one copy per lane, interleaved (element i of lane l at i * n + l).
//
// A loop whose body cannot be vectorized runs serially instead, which is always correct: one that
// prints, calls a Func, has loop bounds or an allocation size that depend on the lane, contains a
// parallel loop or vectors already, or stores to lanes that may collide (a scatter, or a store to
// one address) in a buffer it also loads from. Loops of fewer than 2 iterations also run serially.
ir::Stmt vectorize_loops(const ir::Stmt& s);

}  // namespace tessera::lowering
