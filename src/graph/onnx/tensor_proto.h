#pragma once
// Conversions between ONNX's TensorProto and the graph layer's Tensor.

#include <onnx/onnx_pb.h>

#include <string>

#include "tessera/graph.h"

namespace tessera::graph {

// The tensor a TensorProto holds; a CompileError naming where (an initializer, an attribute, a
// file) when its type is not supported or its data does not fill its shape.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& where);
onnx::TensorProto tensor_to_proto(const Tensor& t, const std::string& name);

}  // namespace tessera::graph
