#pragma once
// Comparing a computed tensor with a reference, as ONNX's backend tests do.

#include <string>

#include "tessera/graph.h"

namespace tessera_onnx {

struct Comparison {
    bool matches = true;
    std::string worst;  // the worst element and how many differ, when it does not match
};

// Floats match within atol + rtol * |expected| (NaN matches NaN); integers and bools exactly.
Comparison compare_tensors(const tessera::graph::Tensor& actual, const tessera::graph::Tensor& expected,
                           double rtol = 1e-3, double atol = 1e-4);

}  // namespace tessera_onnx
