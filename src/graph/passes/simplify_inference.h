#pragma once
#include "tessera/graph.h"

namespace tessera::graph {

// Removes what only training needs: Identity, and Dropout whose mask nothing reads, each replaced
// by its input (kept where its output is a graph output, whose name it carries). Turns every
// remaining BatchNormalization with constant parameters into a scale and a shift, x * s + t,
// elementwise operators that fuse into their producer's group.
Graph simplify_inference(const Graph& g);

}  // namespace tessera::graph
