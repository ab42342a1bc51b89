#pragma once
// Computing a node whose inputs are all constants, at compile time, with the node's own
// definition: what constant folding runs.

#include <vector>

#include "tessera/graph.h"

namespace tessera::graph {

// The values of node's outputs. Every input of node must be a constant of g (or left out), except
// for operators that read only their inputs' shapes.
std::vector<Tensor> evaluate_node(const Graph& g, const Node& node, const Target& target);

}  // namespace tessera::graph
