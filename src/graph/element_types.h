#pragma once
// ONNX's element types (TensorProto.DataType) and the Tessera Types that hold them.

#include <optional>
#include <string>

#include "tessera/type.h"

namespace tessera::graph {

// The Type of an ONNX data type, or nothing when Tessera has none (strings, float16, complex).
std::optional<Type> type_of_onnx_data_type(int64_t data_type);
// The ONNX data type of a Type.
int onnx_data_type_of(Type t);
// "FLOAT16", "STRING", ...: how messages name an ONNX data type.
std::string onnx_data_type_name(int64_t data_type);

}  // namespace tessera::graph
