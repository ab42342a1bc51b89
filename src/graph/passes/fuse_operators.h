#pragma once
#include <vector>

#include "graph/fusion_group.h"

namespace tessera::graph {

// Groups the nodes of g into fused groups, each compiled as one pipeline. Walking the nodes in
// order, a node joins the group of a value it reads when its kind allows:
//   - an elementwise node joins an elementwise or injective group, or the group of a convolution
//     or matrix product whose output has its shape (an epilogue: bias, activation, residual add);
//   - an injective node (reshape, transpose, slice, resize ...) joins an elementwise or injective group;
//   - reductions and the rest stay alone.
// The node's other inputs must come from nodes before the group's first node, so that the groups
// can run in the order of their first nodes, each after everything it reads.
std::vector<FusionGroup> fuse_operators(const Graph& g);

}  // namespace tessera::graph
