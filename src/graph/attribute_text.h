#pragma once
// Attributes as text: for the graph printer, and as keys that tell equal attributes apart.

#include <string>

#include "tessera/graph.h"

namespace tessera::graph {

// 3, 0.5, "nearest", [1,1], float32[4]; a tensor with its values too when with_values is set.
std::string attribute_text(const Attribute& a, bool with_values = false);
// name=value, ... in name order, tensors with their values: equal text, equal attributes.
std::string attributes_key(const Attributes& attributes);
// "float32[1,3,640,640]", "float32[N,3]" with symbolic dimensions, "float32[?]" before shape
// inference: a value's type and shape as the graph printer writes them.
std::string shape_text(const Value& v);
// The elements of a tensor, comma separated, exactly (for keys).
std::string tensor_values_text(const Tensor& t);

}  // namespace tessera::graph
