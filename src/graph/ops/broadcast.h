#pragma once
// Numpy's broadcasting, as ONNX's elementwise operators use it.

#include <vector>

#include "graph/ops/operator.h"

namespace tessera::graph {

// The shape of the result of broadcasting shapes together; a CompileError naming the node when
// two dimensions differ and neither is 1.
std::vector<int64_t> broadcast_shapes(const OpContext& ctx, const std::vector<std::vector<int64_t>>& shapes);

// t read at the coordinates of an element of a tensor of shape out_shape that t broadcasts to.
Expr broadcast_read(const TensorFunc& t, const std::vector<Expr>& out_index,
                    const std::vector<int64_t>& out_shape);

}  // namespace tessera::graph
