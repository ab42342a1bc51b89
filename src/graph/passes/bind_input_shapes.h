#pragma once
#include <map>
#include <string>
#include <vector>

#include "tessera/graph.h"

namespace tessera::graph {

// Gives every input a static shape: an input named in shapes takes that shape (which must agree
// with its known dimensions); a symbolic dimension takes the size given for its name (a
// one-element entry). A dimension left unknown is a CompileError saying how to give it.
Graph bind_input_shapes(const Graph& g, const std::map<std::string, std::vector<int64_t>>& shapes);

}  // namespace tessera::graph
