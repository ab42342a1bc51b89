#pragma once
#include "tessera/graph.h"

namespace tessera::graph {

// Gives every value its element type and static shape, node by node in order, from each
// operator's definition; the inputs must have static shapes (bind_input_shapes). A node whose
// inputs are all constants is computed here and its outputs become constants, so that shapes
// computed from Shape nodes, as exporters write reshapes, are known before the nodes that read
// them. A node that cannot be defined (unknown op, shapes that do not fit) is a CompileError
// naming it.
Graph infer_shapes(const Graph& g, const Target& target);

}  // namespace tessera::graph
