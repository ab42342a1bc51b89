#pragma once
// Which inputs tessera-onnx fixes when it compiles a model for given inputs.

#include "tessera/graph.h"

namespace tessera_onnx {

// Scalars and short vectors: what models pass as shapes, axes, pads, starts and ends, Resize's
// scales, the bounds of Range or Dropout's training flag, which the graph layer needs at compile
// time. A compiled model checks that later runs give the same values.
inline bool is_compile_time_input(const tessera::graph::Tensor& t) {
    return t.rank() <= 1 && t.elements() <= 16;
}

}  // namespace tessera_onnx
