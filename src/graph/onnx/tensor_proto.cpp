#include "graph/onnx/tensor_proto.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "graph/element_types.h"
#include "graph/ops/operator.h"
#include "tessera/onnx.h"
#include "util/error_stream.h"

namespace tessera::graph {
namespace {

// Copies values of a repeated field into t, converting each to the tensor's element type.
template <typename Field>
void copy_typed_field(const Field& field, Tensor& t) {
    uint8_t* out = static_cast<uint8_t*>(t.data());
    const int bytes = t.type().bytes();
    for (int i = 0; i < field.size(); i++) {
        const auto v = field.Get(i);
        const Type type = t.type();
        auto store = [&](auto x) { std::memcpy(out + int64_t(i) * bytes, &x, sizeof(x)); };
        if (type.is_bool())
            store(uint8_t(v != 0));
        else if (type == Float(32))
            store(float(v));
        else if (type == Float(64))
            store(double(v));
        else if (type == Int(8))
            store(int8_t(v));
        else if (type == Int(16))
            store(int16_t(v));
        else if (type == Int(32))
            store(int32_t(v));
        else if (type == Int(64))
            store(int64_t(v));
        else if (type == UInt(8))
            store(uint8_t(v));
        else if (type == UInt(16))
            store(uint16_t(v));
        else if (type == UInt(32))
            store(uint32_t(v));
        else
            store(uint64_t(v));
    }
}

// The number of values in the typed field that holds data of this type, and a copier.
int typed_field_size(const onnx::TensorProto& p, Type t) {
    if (t == Float(32)) return p.float_data_size();
    if (t == Float(64)) return p.double_data_size();
    if (t == Int(64)) return p.int64_data_size();
    if (t == UInt(32) || t == UInt(64)) return p.uint64_data_size();
    return p.int32_data_size();
}

void copy_typed_data(const onnx::TensorProto& p, Tensor& t) {
    const Type type = t.type();
    if (type == Float(32))
        copy_typed_field(p.float_data(), t);
    else if (type == Float(64))
        copy_typed_field(p.double_data(), t);
    else if (type == Int(64))
        copy_typed_field(p.int64_data(), t);
    else if (type == UInt(32) || type == UInt(64))
        copy_typed_field(p.uint64_data(), t);
    else
        copy_typed_field(p.int32_data(), t);
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& where) {
    std::optional<Type> type = type_of_onnx_data_type(p.data_type());
    if (!type)
        TESSERA_UNSUPPORTED << where << ": tensors of " << onnx_data_type_name(p.data_type())
                            << " are not supported (float32, float64, the integer types and bool are).";
    if (p.data_location() == onnx::TensorProto::EXTERNAL)
        TESSERA_UNSUPPORTED
            << where << ": the tensor's data is in an external file, which is not supported; save the model "
            << "with its data inside.";
    std::vector<int64_t> shape;
    int64_t elements = 1;
    for (int64_t d : p.dims()) {
        TESSERA_USER_CHECK(d >= 0 && d < (int64_t(1) << 40)) << where << ": a dimension of " << d << ".";
        shape.push_back(d);
        elements *= d;
    }
    TESSERA_USER_CHECK(elements < (int64_t(1) << 34))
        << where << ": " << elements << " elements is too many.";
    Tensor t(*type, shape);
    if (p.has_raw_data()) {
        TESSERA_USER_CHECK(p.raw_data().size() == t.bytes())
            << where << ": " << describe(t) << " needs " << t.bytes() << " bytes of data, the file holds "
            << p.raw_data().size() << ".";
        if (t.bytes()) std::memcpy(t.data(), p.raw_data().data(), t.bytes());
        return t;
    }
    TESSERA_USER_CHECK(typed_field_size(p, *type) == elements)
        << where << ": " << describe(t) << " needs " << elements << " values, the file holds "
        << typed_field_size(p, *type) << ".";
    copy_typed_data(p, t);
    return t;
}

onnx::TensorProto tensor_to_proto(const Tensor& t, const std::string& name) {
    onnx::TensorProto p;
    p.set_name(name);
    p.set_data_type(onnx_data_type_of(t.type()));
    for (int64_t d : t.shape()) p.add_dims(d);
    p.set_raw_data(std::string(static_cast<const char*>(t.data()), t.bytes()));
    return p;
}

Tensor read_tensor_proto(const std::string& path, std::string* name) {
    std::ifstream in(path, std::ios::binary);
    TESSERA_USER_CHECK(in) << "cannot open the tensor file " << path << ".";
    std::stringstream bytes;
    bytes << in.rdbuf();
    onnx::TensorProto p;
    TESSERA_USER_CHECK(p.ParseFromString(bytes.str()))
        << path << " is not a serialized TensorProto (it may be truncated).";
    if (name) *name = p.name();
    return tensor_from_proto(p, path);
}

void write_tensor_proto(const Tensor& t, const std::string& name, const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    TESSERA_USER_CHECK(out) << "cannot write the tensor file " << path << ".";
    TESSERA_USER_CHECK(tensor_to_proto(t, name).SerializeToOstream(&out)) << "writing " << path << " failed.";
}

}  // namespace tessera::graph
