#pragma once
// Conversions between ONNX's TensorProto and the graph layer's Tensor, and reading ONNX files.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph.h"

namespace tessera::graph {

// The tensor a TensorProto holds; a CompileError naming where (an initializer, an attribute, a
// file) when its type is not supported or its data does not fill its shape.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& where);
onnx::TensorProto tensor_to_proto(const Tensor& t, const std::string& name);

// The number of elements of shape; a CompileError naming what when a dimension is negative or the
// count passes 2^31 - 1, the most elements a Tessera buffer holds.
int64_t checked_elements(const std::vector<int64_t>& shape, const std::string& what);

// The bytes of the file at path; a CompileError saying why when it cannot be read. what names the
// kind of file in the message ("model", "tensor").
std::string read_onnx_file(const std::string& path, const std::string& what);

}  // namespace tessera::graph
