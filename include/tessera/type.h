#pragma once
// The scalar and vector types of Tessera values, spelled as Halide spells them.

#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {

class Expr;

class Type {
public:
    enum Code : uint8_t { Int = 0, UInt = 1, Float = 2, Handle = 3 };

    constexpr Type() = default;
    constexpr Type(Code code, int bits, int lanes = 1)
        : code_(code), bits_(uint8_t(bits)), lanes_(uint16_t(lanes)) {}

    constexpr Code code() const { return code_; }
    constexpr int bits() const { return bits_; }
    constexpr int bytes() const { return (bits_ + 7) / 8; }
    constexpr int lanes() const { return lanes_; }

    constexpr bool is_int() const { return code_ == Int; }
    constexpr bool is_uint() const { return code_ == UInt; }
    constexpr bool is_bool() const { return code_ == UInt && bits_ == 1; }
    constexpr bool is_float() const { return code_ == Float; }
    constexpr bool is_handle() const { return code_ == Handle; }
    constexpr bool is_int_or_uint() const { return code_ == Int || code_ == UInt; }
    constexpr bool is_scalar() const { return lanes_ == 1; }
    constexpr bool is_vector() const { return lanes_ != 1; }

    constexpr Type with_code(Code c) const { return Type(c, bits_, lanes_); }
    constexpr Type with_bits(int b) const { return Type(code_, b, lanes_); }
    constexpr Type with_lanes(int l) const { return Type(code_, bits_, l); }
    constexpr Type element_of() const { return with_lanes(1); }

    constexpr bool operator==(const Type& o) const {
        return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_;
    }
    constexpr bool operator!=(const Type& o) const { return !(*this == o); }

    // Whether every value of this type is representable in `other`.
    bool can_represent(Type other) const;
    bool can_represent(int64_t x) const;
    bool can_represent(uint64_t x) const;
    bool can_represent(double x) const;

    // The largest and smallest values of this type, as constants.
    Expr max() const;
    Expr min() const;

private:
    Code code_ = Int;
    uint8_t bits_ = 32;
    uint16_t lanes_ = 1;
};

constexpr Type Int(int bits, int lanes = 1) { return Type(Type::Int, bits, lanes); }
constexpr Type UInt(int bits, int lanes = 1) { return Type(Type::UInt, bits, lanes); }
constexpr Type Float(int bits, int lanes = 1) { return Type(Type::Float, bits, lanes); }
constexpr Type Bool(int lanes = 1) { return UInt(1, lanes); }
constexpr Type Handle(int lanes = 1) { return Type(Type::Handle, 64, lanes); }

// "uint8", "int32", "float32x8", "bool": used in messages and the IR printer.
std::string type_name(Type t);

// The Type of a C++ scalar type.
template <typename T>
constexpr Type type_of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>)
        return Bool();
    else if constexpr (std::is_floating_point_v<U>)
        return Float(8 * sizeof(U));
    else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>)
        return Int(8 * sizeof(U));
    else if constexpr (std::is_integral_v<U>)
        return UInt(8 * sizeof(U));
    else if constexpr (std::is_pointer_v<U>)
        return Handle();
    else
        static_assert(sizeof(U) == 0, "type_of: not a scalar type Tessera knows");
}

}  // namespace tessera
