#include <cmath>
#include <limits>

#include "ir/ir_util.h"
#include "tessera/type.h"

namespace tessera {

std::string type_name(Type t) {
    std::string name;
    if (t.is_bool()) {
        name = "bool";
    } else {
        switch (t.code()) {
            case Type::Int: name = "int"; break;
            case Type::UInt: name = "uint"; break;
            case Type::Float: name = "float"; break;
            case Type::Handle: name = "handle"; break;
        }
        name += std::to_string(t.bits());
    }
    if (t.is_vector()) name += "x" + std::to_string(t.lanes());
    return name;
}

bool Type::can_represent(Type other) const {
    if (lanes() != other.lanes()) return false;
    if (*this == other) return true;
    if (is_float()) return !other.is_float() ? other.bits() < bits() : other.bits() <= bits();
    if (other.is_float()) return false;
    if (is_int() && other.is_int()) return other.bits() <= bits();
    if (is_uint() && other.is_uint()) return other.bits() <= bits();
    if (is_int() && other.is_uint()) return other.bits() < bits();
    return false;
}

bool Type::can_represent(int64_t x) const {
    if (is_int()) {
        if (bits() >= 64) return true;
        const int64_t lo = -(int64_t(1) << (bits() - 1)), hi = (int64_t(1) << (bits() - 1)) - 1;
        return x >= lo && x <= hi;
    }
    if (is_uint()) return x >= 0 && (bits() >= 64 || uint64_t(x) < (uint64_t(1) << bits()));
    if (is_float()) return bits() == 64 ? int64_t(double(x)) == x : int64_t(float(x)) == x;
    return false;
}

bool Type::can_represent(uint64_t x) const {
    if (is_int())
        return bits() >= 64 ? x <= uint64_t(std::numeric_limits<int64_t>::max())
                            : x < (uint64_t(1) << (bits() - 1));
    if (is_uint()) return bits() >= 64 || x < (uint64_t(1) << bits());
    if (is_float()) return bits() == 64 ? uint64_t(double(x)) == x : uint64_t(float(x)) == x;
    return false;
}

bool Type::can_represent(double x) const {
    if (is_float()) return bits() == 64 || std::isnan(x) || std::isinf(x) || double(float(x)) == x;
    if (x != std::trunc(x)) return false;
    if (is_int()) return x >= -std::ldexp(1.0, bits() - 1) && x < std::ldexp(1.0, bits() - 1);
    if (is_uint()) return x >= 0 && x < std::ldexp(1.0, bits());
    return false;
}

Expr Type::max() const { return ir::type_max(*this); }
Expr Type::min() const { return ir::type_min(*this); }

}  // namespace tessera
