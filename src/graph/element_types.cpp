#include "graph/element_types.h"

namespace tessera::graph {
namespace {

struct DataType {
    int64_t code;
    const char* name;
    std::optional<Type> type;
};

const DataType data_types[] = {
    {1, "FLOAT", Float(32)},  {2, "UINT8", UInt(8)}, {3, "INT8", Int(8)},       {4, "UINT16", UInt(16)},
    {5, "INT16", Int(16)},    {6, "INT32", Int(32)}, {7, "INT64", Int(64)},     {8, "STRING", {}},
    {9, "BOOL", Bool()},      {10, "FLOAT16", {}},   {11, "DOUBLE", Float(64)}, {12, "UINT32", UInt(32)},
    {13, "UINT64", UInt(64)}, {14, "COMPLEX64", {}}, {15, "COMPLEX128", {}},    {16, "BFLOAT16", {}},
};

}  // namespace

std::optional<Type> type_of_onnx_data_type(int64_t data_type) {
    for (const DataType& d : data_types)
        if (d.code == data_type) return d.type;
    return {};
}

int onnx_data_type_of(Type t) {
    for (const DataType& d : data_types)
        if (d.type && *d.type == t) return int(d.code);
    return 0;
}

std::string onnx_data_type_name(int64_t data_type) {
    for (const DataType& d : data_types)
        if (d.code == data_type) return d.name;
    return "data type " + std::to_string(data_type);
}

}  // namespace tessera::graph
