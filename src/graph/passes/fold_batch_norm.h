#pragma once
#include "tessera/graph.h"

namespace tessera::graph {

// Folds every BatchNormalization whose input is a Conv that nothing else reads, and whose
// parameters and the Conv's weights and bias are constants, into the Conv's weights and bias:
//   W' = W * s (per output channel), b' = (b - mean) * s + B, with s = scale / sqrt(var + epsilon).
// W' and b' are new nodes over constants, which shape inference then computes; the graph computes
// the same values with one node fewer at run time.
Graph fold_batch_norm(const Graph& g);

}  // namespace tessera::graph
