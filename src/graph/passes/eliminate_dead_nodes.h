#pragma once
#include "tessera/graph.h"

namespace tessera::graph {

// Removes every node that no output depends on, and every node whose outputs are all constants
// by now (computed at compile time), then every value no remaining node or output uses.
Graph eliminate_dead_nodes(const Graph& g);

}  // namespace tessera::graph
