#pragma once
// A constant no smaller than an integer expression's value, where one can be found: for the sizes
// of GPU thread blocks and shared memory, which must be fixed when compiling although the region a
// tile computes (clamped at the edges of an image) varies.

#include <cstdint>
#include <optional>

#include "ir/stmt.h"

namespace tessera::ir {

// Sums and differences are carried into the min and max around them (min(a, b) - c is
// min(a - c, b - c)), so that the terms that vary cancel where they can; a min is bounded by the
// bound of either side, a max by the larger of both. Nothing if no constant bound is found.
std::optional<int64_t> constant_upper_bound(const Expr& e);

}  // namespace tessera::ir
