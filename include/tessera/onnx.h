#pragma once
// ONNX files: models as graphs, and tensors in the TensorProto format of ONNX's test data.

#include <string>

#include "tessera/graph.h"

namespace tessera::graph {

// Reads an ONNX model (opsets 9 to 17 of the default domain). A file that cannot be read, is not
// a model, or is inconsistent (an input that no node produces, a node of an unknown domain, a
// graph attribute) is a CompileError saying what is wrong, and where.
Graph load_onnx(const std::string& path);
// The same from the bytes of a file; source names it in messages.
Graph load_onnx_from_bytes(const std::string& bytes, const std::string& source = "model");

// A tensor from a file holding one serialized TensorProto; name, when given, receives its name.
Tensor read_tensor_proto(const std::string& path, std::string* name = nullptr);
// Writes t as one serialized TensorProto named name.
void write_tensor_proto(const Tensor& t, const std::string& name, const std::string& path);

}  // namespace tessera::graph
