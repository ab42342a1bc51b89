#pragma once
// The placeholder `_` in the coordinates of a Buffer or ImageParam access.

#include <vector>

#include "tessera/expr.h"

namespace tessera::lang {

// Replaces a placeholder `_` among args by as many implicit Vars (_0, _1, ..., after any already
// among args) as make `dimensions` coordinates in all, as Halide does: im(x, _) on a 3-D im is
// im(x, _0, _1). Leaves args without a placeholder unchanged.
void expand_placeholder(std::vector<Expr>& args, int dimensions);

}  // namespace tessera::lang
