#pragma once
#include "tessera/graph.h"

namespace tessera::graph {

// Merges constants of equal type, shape and values (up to a size where comparing is cheap), then
// every node that computes what an earlier node computes (the same op, attributes and inputs):
// its readers read the earlier node's outputs. A node whose output is a graph output stays, so
// that the output keeps its name.
Graph eliminate_common_subexpressions(const Graph& g);

}  // namespace tessera::graph
