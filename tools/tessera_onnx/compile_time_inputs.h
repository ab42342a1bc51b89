#pragma once
// Which inputs tessera-onnx fixes when it compiles a model for given inputs.

#include "tessera/graph.h"

namespace tessera_onnx {

// Small integer tensors and scalars: what models pass as shapes, axes, pads, starts and ends, the
// bounds of Range or Dropout's training flag, which the graph layer needs at compile time. A
// compiled model checks that later runs give the same values.
inline bool is_compile_time_input(const tessera::graph::Tensor& t) {
    const bool small_integers = t.type().is_int_or_uint() && !t.type().is_bool() && t.rank() <= 1 && t.elements() <= 16;
    return small_integers || t.rank() == 0;
}

}  // namespace tessera_onnx
