// Integer helpers of Halide's library: bit counting, division rounding toward zero, saturating
// casts and lerp, all built from existing IR so that they compute exact results everywhere.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>

#include "ir/ir_util.h"
#include "lang/coercion.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

using namespace ir;

// Binds value to a fresh name around the expression body(name), so that value is computed once.
template <typename Body>
Expr let_bind(const Expr& value, Body body) {
    static std::atomic<int> next{0};
    if (value.as<Variable>() || value.as<IntImm>() || value.as<UIntImm>()) return body(value);
    std::string name = "t_bits" + std::to_string(next++);
    Expr var = Variable::make(value.type(), name);
    return Let::make(name, value, body(var));
}

Expr shr(const Expr& a, int k) {
    return Call::make_intrinsic(a.type(), Intrinsic::ShiftRight, {a, ir::make_const(a.type(), int64_t(k))});
}
Expr bit_and(const Expr& a, uint64_t mask) {
    return Call::make_intrinsic(a.type(), Intrinsic::BitAnd, {a, ir::make_const(a.type(), int64_t(mask))});
}
Expr bit_or(const Expr& a, const Expr& b) { return Call::make_intrinsic(a.type(), Intrinsic::BitOr, {a, b}); }

// The bits of x as an unsigned integer of the same width.
Expr as_unsigned(const Expr& x, const char* fn) {
    lang::check_defined(x, fn);
    TESSERA_USER_CHECK(x.type().is_int_or_uint() && !x.type().is_bool())
        << fn << "() needs an integer argument, not " << type_name(x.type()) << ".";
    return cast(x.type().with_code(Type::UInt), x);
}

// The number of set bits of an unsigned v, by adding ever wider fields in parallel.
Expr unsigned_popcount(const Expr& v) {
    const int bits = v.type().bits();
    const uint64_t ones = ~uint64_t(0) >> (64 - bits);
    return let_bind(v, [&](const Expr& v0) {
        Expr pairs = Sub::make(v0, bit_and(shr(v0, 1), ones / 3 /* 0x55... */));
        return let_bind(pairs, [&](const Expr& p) {
            Expr nibbles = Add::make(bit_and(p, ones / 5 /* 0x33... */), bit_and(shr(p, 2), ones / 5));
            return let_bind(nibbles, [&](const Expr& n) {
                Expr bytes = bit_and(Add::make(n, shr(n, 4)), ones / 17 /* 0x0f... */);
                if (bits == 8) return bytes;
                // Multiplying by 0x0101... sums every byte into the top one.
                return shr(Mul::make(bytes, ir::make_const(v.type(), int64_t(ones / 255))), bits - 8);
            });
        });
    });
}

}  // namespace

Expr popcount(Expr x) {
    Type t = x.type();
    return cast(t, unsigned_popcount(as_unsigned(x, "popcount")));
}

Expr count_leading_zeros(Expr x) {
    Type t = x.type();
    Expr v = as_unsigned(x, "count_leading_zeros");
    const int bits = v.type().bits();
    // Smear the highest set bit into every lower bit; the leading zeros are the bits left unset.
    for (int k = 1; k < bits; k *= 2) v = let_bind(v, [&](const Expr& u) { return bit_or(u, shr(u, k)); });
    return cast(t, Sub::make(ir::make_const(v.type(), int64_t(bits)), unsigned_popcount(v)));
}

Expr count_trailing_zeros(Expr x) {
    Type t = x.type();
    Expr v = as_unsigned(x, "count_trailing_zeros");
    // The trailing zeros become ones, and everything else zero: ~v & (v - 1).
    Expr trailing = let_bind(v, [&](const Expr& u) {
        Expr not_u = Call::make_intrinsic(u.type(), Intrinsic::BitNot, {u});
        return Call::make_intrinsic(u.type(), Intrinsic::BitAnd, {not_u, Sub::make(u, make_one(u.type()))});
    });
    return cast(t, unsigned_popcount(trailing));
}

Expr div_round_to_zero(Expr x, Expr y) {
    lang::match_types(x, y, "div_round_to_zero");
    TESSERA_USER_CHECK(x.type().is_int_or_uint())
        << "div_round_to_zero() needs integer arguments, not " << type_name(x.type()) << ".";
    if (x.type().is_uint()) return x / y;
    // From the Euclidean quotient q and remainder r: a negative x with a nonzero remainder
    // rounds one step toward zero.
    Expr q = x / y, r = x % y;
    Expr step = select(y > 0, make_one(x.type()), ir::make_const(x.type(), int64_t(-1)));
    return select(x < 0 && r != 0, q + step, q);
}

Expr mod_round_to_zero(Expr x, Expr y) {
    lang::match_types(x, y, "mod_round_to_zero");
    TESSERA_USER_CHECK(x.type().is_int_or_uint())
        << "mod_round_to_zero() needs integer arguments, not " << type_name(x.type()) << ".";
    if (x.type().is_uint()) return x % y;
    Expr r = x % y;
    Expr magnitude = select(y > 0, y, make_zero(y.type()) - y);
    return select(x < 0 && r != 0, r - magnitude, r);
}

Expr saturating_cast(Type t, Expr e) {
    lang::check_defined(e, "saturating_cast");
    Type from = e.type();
    t = t.with_lanes(from.lanes());
    if (from == t) return e;
    if (t.is_float()) {
        // Floats narrow to the target's range (its infinities included); integers always fit.
        if (!from.is_float() || t.bits() >= from.bits()) return cast(t, e);
        return cast(t, clamp(e, cast(from, t.min()), cast(from, t.max())));
    }
    if (from.is_float()) {
        if (t.bits() >= from.bits()) {
            // t's max is not a float: compare against the float it rounds up to.
            Expr low = max(e, cast(from, t.min()));
            return select(low >= cast(from, t.max()), t.max(), cast(t, low));
        }
        return cast(t, clamp(e, cast(from, t.min()), cast(from, t.max())));
    }
    // Integer to integer: clamp to each of t's bounds that lies inside the source type's range.
    const int from_magnitude_bits = from.bits() - (from.is_int() ? 1 : 0);
    const int to_magnitude_bits = t.bits() - (t.is_int() ? 1 : 0);
    const bool below = from.is_int() && (t.is_uint() || t.bits() < from.bits());
    const bool above = from_magnitude_bits > to_magnitude_bits;
    // Neither bound used here is the full 64-bit unsigned range, so both fit in an int64_t.
    const int64_t t_min = t.is_uint() ? 0 : t.bits() == 64 ? INT64_MIN : -(int64_t(1) << (t.bits() - 1));
    if (below) e = max(e, ir::make_const(from, t_min));
    if (above) e = min(e, ir::make_const(from, int64_t((uint64_t(1) << to_magnitude_bits) - 1)));
    return cast(t, e);
}

namespace {

// The weight of an integer lerp as an unsigned integer of the values' width u, whose full range
// stands for [0, 1].
Expr integer_lerp_weight(const Expr& weight, Type u) {
    const Type w = weight.type();
    if (w.is_float()) {
        // Scaled to u's range and truncated; 32-bit values scale in double precision.
        if (u.bits() == 32) return cast(u, cast(Float(64, w.lanes()), weight) * Expr(4294967295.0));
        return cast(u, cast(w, u.max()) * weight);
    }
    if (w.bits() == u.bits()) return cast(u, weight);
    // (2^n - 1) / (2^m - 1) is an integer when m divides n: 257 for 8 and 16 bits, and so on.
    const int wide = std::max(w.bits(), u.bits()), narrow = std::min(w.bits(), u.bits());
    const uint64_t wide_ones = wide == 64 ? ~uint64_t(0) : (uint64_t(1) << wide) - 1;
    const uint64_t factor = wide_ones / ((uint64_t(1) << narrow) - 1);
    if (w.bits() < u.bits()) return cast(u, weight) * ir::make_const(u, int64_t(factor));
    return cast(u, weight / ir::make_const(w, int64_t(factor)));
}

}  // namespace

Expr lerp(Expr zero_val, Expr one_val, Expr weight) {
    lang::check_defined(zero_val, "lerp");
    lang::check_defined(one_val, "lerp");
    lang::check_defined(weight, "lerp");
    lang::match_types(zero_val, one_val, "lerp");
    const Type t = zero_val.type();
    const Type w = weight.type();
    TESSERA_USER_CHECK(w.is_float() || w.is_uint())
        << "lerp() needs a float or unsigned integer weight, not " << type_name(w) << ".";
    if (t.is_bool()) {
        Expr half =
            w.is_float() ? ir::make_const(w, 0.5) : ir::make_const(w, int64_t(*as_const_uint(w.max()) / 2));
        return select(weight > half, one_val, zero_val);
    }
    if (t.is_float()) {
        Expr typed = w.is_float() ? cast(t, weight)
                                  : cast(t, weight) / ir::make_const(t, std::ldexp(1.0, w.bits()) - 1.0);
        return let_bind(typed, [&](const Expr& tw) { return zero_val * (make_one(t) - tw) + one_val * tw; });
    }
    TESSERA_USER_CHECK(t.bits() <= 32) << "lerp() of 64-bit integers is not supported (as in Halide).";
    // Signed values are offset into the unsigned type of the same width, where the order is kept.
    const Type u = t.with_code(Type::UInt), wide = u.with_bits(2 * t.bits());
    Expr bias = t.is_int() ? ir::make_const(u, int64_t(uint64_t(1) << (t.bits() - 1))) : make_zero(u);
    Expr zero = cast(u, zero_val) - bias, one = cast(u, one_val) - bias;
    return let_bind(integer_lerp_weight(weight, u), [&](const Expr& typed) {
        Expr inverse = ir::make_const(u, int64_t((uint64_t(1) << t.bits()) - 1)) - typed;
        // The exactly rounded (zero * inverse + one * typed) / (2^bits - 1), in twice the width.
        Expr sum = cast(wide, zero) * cast(wide, inverse) + cast(wide, one) * cast(wide, typed);
        const int64_t divisor = int64_t((uint64_t(1) << t.bits()) - 1);
        Expr result = cast(u, (sum + ir::make_const(wide, divisor / 2)) / ir::make_const(wide, divisor));
        return cast(t, result + bias);
    });
}

}  // namespace tessera
