#include "ir/const_fold.h"

#include <cmath>

#include "ir/constant_bounds.h"
#include "ir/ir_util.h"

namespace tessera::ir {
namespace {

template <typename T>
Expr compare(IRKind op, T x, T y) {
    switch (op) {
        case IRKind::EQ: return make_bool(x == y);
        case IRKind::NE: return make_bool(x != y);
        case IRKind::LT: return make_bool(x < y);
        case IRKind::LE: return make_bool(x <= y);
        case IRKind::GT: return make_bool(x > y);
        case IRKind::GE: return make_bool(x >= y);
        default: return Expr();
    }
}

// Signed integers: exact 128-bit arithmetic, then IntImm::make wraps to the type's width.
Expr fold_int(IRKind op, Type t, Int128 x, Int128 y) {
    auto wrap = [t](Int128 v) { return IntImm::make(t, int64_t(v)); };
    switch (op) {
        case IRKind::Add: return wrap(x + y);
        case IRKind::Sub: return wrap(x - y);
        case IRKind::Mul: return wrap(x * y);
        case IRKind::Div: return wrap(euclidean_div(x, y));
        case IRKind::Mod: return wrap(euclidean_mod(x, y));
        case IRKind::Min: return wrap(x < y ? x : y);
        case IRKind::Max: return wrap(x > y ? x : y);
        default: return compare(op, x, y);
    }
}

// Unsigned integers and bools: arithmetic modulo 2^64, then UIntImm::make wraps to the width.
Expr fold_uint(IRKind op, Type t, uint64_t x, uint64_t y) {
    auto wrap = [t](uint64_t v) { return UIntImm::make(t, v); };
    switch (op) {
        case IRKind::Add: return wrap(x + y);
        case IRKind::Sub: return wrap(x - y);
        case IRKind::Mul: return wrap(x * y);
        case IRKind::Div: return wrap(y == 0 ? 0 : x / y);
        case IRKind::Mod: return wrap(y == 0 ? 0 : x % y);
        case IRKind::Min: return wrap(x < y ? x : y);
        case IRKind::Max: return wrap(x > y ? x : y);
        case IRKind::And: return make_bool(x && y);
        case IRKind::Or: return make_bool(x || y);
        default: return compare(op, x, y);
    }
}

// F is the type's own precision, so that every operation rounds as generated code rounds.
template <typename F>
Expr fold_float(IRKind op, Type t, F x, F y) {
    auto make = [t](F v) { return FloatImm::make(t, double(v)); };
    switch (op) {
        case IRKind::Add: return make(x + y);
        case IRKind::Sub: return make(x - y);
        case IRKind::Mul: return make(x * y);
        case IRKind::Div: return make(x / y);
        case IRKind::Mod: {
            F q = std::floor(x / y);
            F product = y * q;
            return make(x - product);
        }
        case IRKind::Min:
        case IRKind::Max: {
            // NaN operands and zeros of both signs are where min/max implementations disagree.
            if (std::isnan(x) || std::isnan(y)) return Expr();
            if (x == y && std::signbit(x) != std::signbit(y)) return Expr();
            return make(op == IRKind::Min ? (x < y ? x : y) : (x > y ? x : y));
        }
        default: return compare(op, x, y);
    }
}

bool foldable_float(Type t) { return t.is_float() && (t.bits() == 32 || t.bits() == 64); }

Expr float_const(Type t, double v) { return FloatImm::make(t, t.bits() == 32 ? double(float(v)) : v); }

Expr cast_int_value(Type t, Int128 v) {
    if (t.is_bool()) return v == 0 || v == 1 ? make_bool(v == 1) : Expr();
    if (t.is_int()) return IntImm::make(t, int64_t(v));
    if (t.is_uint()) return UIntImm::make(t, uint64_t(v));
    if (t.bits() == 32) return FloatImm::make(t, double(v < 0 ? float(int64_t(v)) : float(uint64_t(v))));
    if (t.bits() == 64) return FloatImm::make(t, v < 0 ? double(int64_t(v)) : double(uint64_t(v)));
    return Expr();
}

Expr cast_float_value(Type t, double v) {
    if (t.is_float()) return foldable_float(t) ? float_const(t, v) : Expr();
    if (t.is_bool()) return v == 0 || v == 1 ? make_bool(v == 1) : Expr();
    // Truncation toward zero, folded only where generated code is defined.
    if (std::isnan(v)) return Expr();
    const double truncated = std::trunc(v);
    if (!t.can_represent(truncated)) return Expr();
    if (t.is_uint()) return UIntImm::make(t, uint64_t(truncated));
    return IntImm::make(t, int64_t(truncated));
}

}  // namespace

Expr fold_binary(IRKind op, const Expr& a, const Expr& b) {
    if (!a.defined() || !b.defined() || a.type() != b.type() || !a.type().is_scalar()) return Expr();
    Type t = a.type();
    if (const IntImm* x = a.as<IntImm>()) {
        if (const IntImm* y = b.as<IntImm>()) return fold_int(op, t, x->value, y->value);
    }
    if (const UIntImm* x = a.as<UIntImm>()) {
        if (const UIntImm* y = b.as<UIntImm>()) return fold_uint(op, t, x->value, y->value);
    }
    if (const FloatImm* x = a.as<FloatImm>()) {
        const FloatImm* y = b.as<FloatImm>();
        if (!y || !foldable_float(t)) return Expr();
        if (t.bits() == 32) return fold_float<float>(op, t, float(x->value), float(y->value));
        return fold_float<double>(op, t, x->value, y->value);
    }
    return Expr();
}

Expr fold_not(const Expr& a) {
    const UIntImm* x = a.as<UIntImm>();
    return x && a.type().is_bool() ? make_bool(x->value == 0) : Expr();
}

Expr fold_cast(Type t, const Expr& value) {
    if (!t.is_scalar()) return Expr();
    if (const IntImm* i = value.as<IntImm>()) return cast_int_value(t, i->value);
    if (const UIntImm* u = value.as<UIntImm>()) return cast_int_value(t, u->value);
    if (const FloatImm* f = value.as<FloatImm>()) {
        return foldable_float(value.type()) ? cast_float_value(t, f->value) : Expr();
    }
    return Expr();
}

Expr fold_reinterpret(Type t, const Expr& value) {
    // Only between integers of one width, where reinterpreting is re-wrapping the same bits.
    if (!t.is_scalar() || !t.is_int_or_uint() || t.is_bool() || value.type().bits() != t.bits())
        return Expr();
    if (const IntImm* i = value.as<IntImm>()) return make_const(t, i->value);
    if (const UIntImm* u = value.as<UIntImm>()) return make_const(t, int64_t(u->value));
    return Expr();
}

namespace {

Expr fold_abs(Type t, const Expr& x) {
    if (const IntImm* i = x.as<IntImm>()) {
        const uint64_t magnitude = i->value < 0 ? 0 - uint64_t(i->value) : uint64_t(i->value);
        return t.is_uint()  ? UIntImm::make(t, magnitude)
               : t.is_int() ? IntImm::make(t, int64_t(magnitude))
                            : Expr();
    }
    if (x.as<UIntImm>()) return t == x.type() ? x : Expr();
    if (const FloatImm* f = x.as<FloatImm>())
        return foldable_float(t) ? float_const(t, std::fabs(f->value)) : Expr();
    return Expr();
}

Expr fold_rounding(Intrinsic op, Type t, const Expr& x) {
    const FloatImm* f = x.as<FloatImm>();
    if (!f || !foldable_float(t) || t != x.type()) return Expr();
    switch (op) {
        case Intrinsic::Floor: return float_const(t, std::floor(f->value));
        case Intrinsic::Ceil: return float_const(t, std::ceil(f->value));
        case Intrinsic::Trunc: return float_const(t, std::trunc(f->value));
        default: return Expr();
    }
}

Expr fold_bitwise(Intrinsic op, Type t, const std::vector<Expr>& args) {
    if (!t.is_int_or_uint() || !t.is_scalar()) return Expr();
    std::vector<uint64_t> v;
    for (const Expr& a : args) {
        if (a.type() != t) return Expr();
        if (const IntImm* i = a.as<IntImm>())
            v.push_back(uint64_t(i->value));
        else if (const UIntImm* u = a.as<UIntImm>())
            v.push_back(u->value);
        else
            return Expr();
    }
    uint64_t r;
    if (op == Intrinsic::BitNot && v.size() == 1)
        r = ~v[0];
    else if (v.size() != 2)
        return Expr();
    else if (op == Intrinsic::BitAnd)
        r = v[0] & v[1];
    else if (op == Intrinsic::BitOr)
        r = v[0] | v[1];
    else if (op == Intrinsic::BitXor)
        r = v[0] ^ v[1];
    else
        return Expr();
    return make_const(t, int64_t(r));
}

}  // namespace

Expr fold_intrinsic(const Call* op, const std::vector<Expr>& args) {
    if (op->call_type != CallType::Intrinsic || args.empty()) return Expr();
    switch (op->intrinsic) {
        case Intrinsic::Abs: return args.size() == 1 ? fold_abs(op->type, args[0]) : Expr();
        case Intrinsic::Floor:
        case Intrinsic::Ceil:
        case Intrinsic::Trunc:
            return args.size() == 1 ? fold_rounding(op->intrinsic, op->type, args[0]) : Expr();
        case Intrinsic::BitAnd:
        case Intrinsic::BitOr:
        case Intrinsic::BitXor:
        case Intrinsic::BitNot: return fold_bitwise(op->intrinsic, op->type, args);
        case Intrinsic::AllLanesTrue:
        case Intrinsic::ExtractLane:
            // Of a vector whose lanes are all one value, that value.
            if (const Broadcast* b = args[0].as<Broadcast>()) return b->value;
            return args[0].type().is_scalar() ? args[0] : Expr();
        default: return Expr();
    }
}

}  // namespace tessera::ir
