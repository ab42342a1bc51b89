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

// Turns the inputs named in values into constants holding those values (of the input's type and
// shape), so that operators can read them at compile time.
Graph bind_input_values(const Graph& g, const std::map<std::string, Tensor>& values);

}  // namespace tessera::graph
