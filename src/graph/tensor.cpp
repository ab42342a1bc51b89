#include <cstring>
#include <sstream>

#include "graph/ops/operator.h"
#include "tessera/graph.h"
#include "util/error_stream.h"

namespace tessera::graph {
namespace {

// Reads element i of data, of type t, as a C++ arithmetic type.
template <typename To>
To element_as(Type t, const uint8_t* data, int64_t i) {
    auto get = [&](auto zero) {
        decltype(zero) v;
        std::memcpy(&v, data + i * int64_t(sizeof(v)), sizeof(v));
        return To(v);
    };
    if (t.is_bool()) return To(data[i] != 0);
    if (t.is_float()) return t.bits() == 64 ? get(double()) : get(float());
    if (t.is_int()) {
        switch (t.bits()) {
            case 8: return get(int8_t());
            case 16: return get(int16_t());
            case 32: return get(int32_t());
            default: return get(int64_t());
        }
    }
    switch (t.bits()) {
        case 8: return get(uint8_t());
        case 16: return get(uint16_t());
        case 32: return get(uint32_t());
        default: return get(uint64_t());
    }
}

}  // namespace

Tensor::Tensor(Type type, std::vector<int64_t> shape) : type_(type), shape_(std::move(shape)) {
    for (int64_t d : shape_)
        TESSERA_USER_CHECK(d >= 0) << "a tensor dimension of " << d << " elements; sizes are 0 or more.";
    // Aligned for vector loads, and never empty, so that data() is a valid pointer.
    const size_t n = std::max<size_t>(bytes(), 1);
    const size_t padded = (n + 63) / 64 * 64;
    uint8_t* p = static_cast<uint8_t*>(::operator new[](padded, std::align_val_t(64)));
    std::memset(p, 0, padded);
    storage_ =
        std::shared_ptr<uint8_t[]>(p, [](uint8_t* q) { ::operator delete[](q, std::align_val_t(64)); });
}

int64_t Tensor::elements() const {
    int64_t n = 1;
    for (int64_t d : shape_) n *= d;
    return n;
}

size_t Tensor::bytes() const { return size_t(elements()) * size_t(type_.bytes()); }

std::vector<double> Tensor::to_doubles() const {
    std::vector<double> out(static_cast<size_t>(elements()));
    for (int64_t i = 0; i < elements(); i++) out[i] = element_as<double>(type_, storage_.get(), i);
    return out;
}

std::vector<int64_t> Tensor::to_int64s() const {
    std::vector<int64_t> out(static_cast<size_t>(elements()));
    for (int64_t i = 0; i < elements(); i++) out[i] = element_as<int64_t>(type_, storage_.get(), i);
    return out;
}

Tensor Tensor::clone() const {
    Tensor t(type_, shape_);
    if (bytes() > 0) std::memcpy(t.data(), data(), bytes());
    return t;
}

Tensor Tensor::view(const Tensor& base, size_t byte_offset, Type type, std::vector<int64_t> shape) {
    Tensor t;
    t.type_ = type;
    t.shape_ = std::move(shape);
    TESSERA_USER_CHECK(base.defined() && byte_offset + t.bytes() <= base.bytes())
        << "a view of " << describe(t) << " at byte " << byte_offset << " of " << describe(base)
        << " reaches past its end.";
    t.storage_ = std::shared_ptr<uint8_t[]>(base.storage_, base.storage_.get() + byte_offset);
    return t;
}

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
    Tensor t = *this;
    t.shape_ = std::move(shape);
    TESSERA_USER_CHECK(t.elements() == elements())
        << "cannot view " << describe(*this) << " as " << describe(t) << ": the element counts differ.";
    return t;
}

void Tensor::check_element_type(Type t) const {
    TESSERA_USER_CHECK(t == type_) << "reading " << describe(*this) << " as " << type_name(t) << ".";
}

void Tensor::check_element_count(size_t n) const {
    TESSERA_USER_CHECK(int64_t(n) == elements())
        << "a tensor of shape " << describe(*this) << " needs " << elements() << " values, not " << n << ".";
}

std::string describe(const Tensor& t) { return type_name(t.type()) + shape_text(t.shape()); }

}  // namespace tessera::graph
