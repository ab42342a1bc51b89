#include "graph/onnx/tensor_proto.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

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

const char* typed_field_name(Type t) {
    if (t == Float(32)) return "float_data";
    if (t == Float(64)) return "double_data";
    if (t == Int(64)) return "int64_data";
    if (t == UInt(32) || t == UInt(64)) return "uint64_data";
    return "int32_data";
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

// "float32[2,3]", for a shape that may be too large to allocate.
std::string typed_shape_text(Type type, const std::vector<int64_t>& shape) {
    return type_name(type) + shape_text(shape);
}

}  // namespace

int64_t checked_elements(const std::vector<int64_t>& shape, const std::string& what) {
    // A buffer's strides are 32-bit counts of elements (tessera_dimension_t): no tensor holds more.
    constexpr int64_t max_elements = (int64_t(1) << 31) - 1;
    int64_t elements = 1;
    bool empty = false;
    // The dimensions other than 0 are bounded too: Tensor multiplies them all, in order.
    for (int64_t d : shape) {
        TESSERA_USER_CHECK(d >= 0) << what << " has a negative dimension.";
        empty = empty || d == 0;
        TESSERA_USER_CHECK(d <= max_elements / elements)
            << what << " has more than 2^31 - 1 elements, the most a Tessera buffer holds.";
        elements *= std::max<int64_t>(d, 1);
    }
    return empty ? 0 : elements;
}

Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& where) {
    std::optional<Type> type = type_of_onnx_data_type(p.data_type());
    if (!type)
        TESSERA_UNSUPPORTED << where << ": tensors of " << onnx_data_type_name(p.data_type())
                            << " are not supported (float32, float64, the integer types and bool are).";
    if (p.data_location() == onnx::TensorProto::EXTERNAL)
        TESSERA_UNSUPPORTED
            << where << ": the tensor's data is in an external file, which is not supported; save the model "
            << "with its data inside.";
    const std::vector<int64_t> shape(p.dims().begin(), p.dims().end());
    const std::string described = typed_shape_text(*type, shape);
    const int64_t elements = checked_elements(shape, where + ": " + described);
    // The data must fill the shape before the tensor is allocated: a file that declares a huge shape
    // and holds a few bytes is a mistake to report, not memory to zero.
    if (p.has_raw_data()) {
        const int64_t bytes = elements * type->bytes();
        TESSERA_USER_CHECK(int64_t(p.raw_data().size()) == bytes)
            << where << ": " << described << " needs " << bytes << " bytes of data, the file holds "
            << p.raw_data().size() << ".";
        Tensor t(*type, shape);
        if (bytes) std::memcpy(t.data(), p.raw_data().data(), size_t(bytes));
        return t;
    }
    TESSERA_USER_CHECK(typed_field_size(p, *type) == elements)
        << where << ": " << described << " needs " << elements << " values, the file holds "
        << typed_field_size(p, *type) << " (in " << typed_field_name(*type) << ", and no raw_data).";
    Tensor t(*type, shape);
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

std::string read_onnx_file(const std::string& path, const std::string& what) {
    std::error_code ignored;
    TESSERA_USER_CHECK(!std::filesystem::is_directory(path, ignored))
        << "the " << what << " file " << path << " is a directory.";
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int error = errno;
        TESSERA_USER_ERROR << "cannot open the " << what << " file " << path << ": "
                           << std::generic_category().message(error) << ".";
    }
    std::stringstream bytes;
    bytes << in.rdbuf();
    TESSERA_USER_CHECK(!in.bad()) << "reading the " << what << " file " << path << " failed.";
    return bytes.str();
}

Tensor read_tensor_proto(const std::string& path, std::string* name) {
    const std::string bytes = read_onnx_file(path, "tensor");
    TESSERA_USER_CHECK(!bytes.empty()) << path << " is empty (0 bytes), not a serialized TensorProto.";
    onnx::TensorProto p;
    TESSERA_USER_CHECK(p.ParseFromString(bytes))
        << path << " is not a serialized TensorProto (its " << bytes.size()
        << " bytes do not parse as one; the file may be truncated).";
    if (name) *name = p.name();
    return tensor_from_proto(p, path);
}

void write_tensor_proto(const Tensor& t, const std::string& name, const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    TESSERA_USER_CHECK(out) << "cannot write the tensor file " << path << ".";
    TESSERA_USER_CHECK(tensor_to_proto(t, name).SerializeToOstream(&out)) << "writing " << path << " failed.";
}

}  // namespace tessera::graph
