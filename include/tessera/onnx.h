#pragma once
// ONNX files: models as graphs, and tensors in the TensorProto format of ONNX's test data.

#include <string>

#include "tessera/graph.h"

namespace tessera::graph {

// Reads an ONNX model (opsets 6 to 18 of the default domain). A file that cannot be read, is not
// a model, or is inconsistent (an input that no node produces, a node of an unknown domain, a
// graph attribute) is a CompileError saying what is wrong, and where.
Graph load_onnx(const std::string& path);
// The same from the bytes of a file; source names it in messages.
Graph load_onnx_from_bytes(const std::string& bytes, const std::string& source = "model");

// Writes g as an ONNX model (its constants as initializers), which onnxruntime and load_onnx read.
// Every value must have a static shape or symbolic dimensions; types must be ONNX's.
void save_onnx(const Graph& g, const std::string& path);

// A tensor from a file holding one serialized TensorProto; name, when given, receives its name.
Tensor read_tensor_proto(const std::string& path, std::string* name = nullptr);
// Writes t as one serialized TensorProto named name.
void write_tensor_proto(const Tensor& t, const std::string& name, const std::string& path);

}  // namespace tessera::graph
