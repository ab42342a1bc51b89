#pragma once
// A fused group: nodes of a graph that compile into one Tessera pipeline.

#include <vector>

#include "tessera/graph.h"

namespace tessera::graph {

struct FusionGroup {
    std::vector<int> nodes;    // node indices, in graph order; the first decides the group's kind
    std::vector<int> inputs;   // value ids read from outside the group, constants included
    std::vector<int> outputs;  // value ids the graph's outputs or nodes of other groups read
};

// Fills in each group's inputs and outputs from its nodes. Groups run in the order given.
void find_group_boundaries(const Graph& g, std::vector<FusionGroup>& groups);

// One group per node: what compile() runs without fusion.
std::vector<FusionGroup> one_group_per_node(const Graph& g);

}  // namespace tessera::graph
