#pragma once
// Arithmetic, comparison, logical and bitwise operators on Exprs, casts and the math library,
// with Halide's type coercion rules:
//   - operands of the same type need nothing;
//   - a C++ integer constant takes the type of the other operand (an error if it does not fit);
//   - a C++ float constant is a float32 unless the other operand is a wider float;
//   - float with non-float: the non-float is converted to the float type;
//   - two floats, or two integers of the same signedness: the narrower is widened;
//   - signed with unsigned: both become signed, with the wider of the two widths.
// Integer division and modulo round toward negative infinity (the remainder is never negative)
// and give zero when dividing by zero.

#include <string>
#include <vector>

#include "tessera/expr.h"
#include "tessera/type.h"

namespace tessera {

Expr cast(Type t, Expr e);
template <typename T>
Expr cast(Expr e) {
    return cast(type_of<T>(), std::move(e));
}
// The same bits seen as another type of the same width.
Expr reinterpret(Type t, Expr e);
template <typename T>
Expr reinterpret(Expr e) {
    return reinterpret(type_of<T>(), std::move(e));
}

#define TESSERA_DECLARE_BINARY_OPERATOR(op)  \
    Expr operator op(Expr a, Expr b);        \
    Expr operator op(Expr a, int b);         \
    Expr operator op(int a, Expr b);         \
    Expr operator op(Expr a, float b);       \
    Expr operator op(float a, Expr b);       \
    Expr operator op(Expr a, double b);      \
    Expr operator op(double a, Expr b);

TESSERA_DECLARE_BINARY_OPERATOR(+)
TESSERA_DECLARE_BINARY_OPERATOR(-)
TESSERA_DECLARE_BINARY_OPERATOR(*)
TESSERA_DECLARE_BINARY_OPERATOR(/)
TESSERA_DECLARE_BINARY_OPERATOR(%)
TESSERA_DECLARE_BINARY_OPERATOR(==)
TESSERA_DECLARE_BINARY_OPERATOR(!=)
TESSERA_DECLARE_BINARY_OPERATOR(<)
TESSERA_DECLARE_BINARY_OPERATOR(<=)
TESSERA_DECLARE_BINARY_OPERATOR(>)
TESSERA_DECLARE_BINARY_OPERATOR(>=)
#undef TESSERA_DECLARE_BINARY_OPERATOR

Expr operator-(Expr a);
Expr operator!(Expr a);
Expr operator&&(Expr a, Expr b);
Expr operator&&(Expr a, bool b);
Expr operator&&(bool a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator||(Expr a, bool b);
Expr operator||(bool a, Expr b);

// Bitwise operators work on integers of the same signedness (the narrower is widened) and on
// bools. Shifts keep the type of the left operand; a negative signed shift amount shifts the
// other way.
Expr operator&(Expr a, Expr b);
Expr operator&(Expr a, int b);
Expr operator&(int a, Expr b);
Expr operator|(Expr a, Expr b);
Expr operator|(Expr a, int b);
Expr operator|(int a, Expr b);
Expr operator^(Expr a, Expr b);
Expr operator^(Expr a, int b);
Expr operator^(int a, Expr b);
Expr operator~(Expr a);
Expr operator<<(Expr a, Expr b);
Expr operator<<(Expr a, int b);
Expr operator>>(Expr a, Expr b);
Expr operator>>(Expr a, int b);

// Compound assignment keeps the type of the left operand.
Expr& operator+=(Expr& a, Expr b);
Expr& operator-=(Expr& a, Expr b);
Expr& operator*=(Expr& a, Expr b);
Expr& operator/=(Expr& a, Expr b);

Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr min(Expr a, int b);
Expr min(int a, Expr b);
Expr max(Expr a, int b);
Expr max(int a, Expr b);
Expr min(Expr a, float b);
Expr min(float a, Expr b);
Expr max(Expr a, float b);
Expr max(float a, Expr b);
template <typename A, typename B, typename C, typename... Rest>
Expr min(A&& a, B&& b, C&& c, Rest&&... rest) {
    return min(Expr(std::forward<A>(a)), min(Expr(std::forward<B>(b)), Expr(std::forward<C>(c)), std::forward<Rest>(rest)...));
}
template <typename A, typename B, typename C, typename... Rest>
Expr max(A&& a, B&& b, C&& c, Rest&&... rest) {
    return max(Expr(std::forward<A>(a)), max(Expr(std::forward<B>(b)), Expr(std::forward<C>(c)), std::forward<Rest>(rest)...));
}
// min(max(a, lo), hi), with lo and hi converted to a's type.
Expr clamp(Expr a, Expr lo, Expr hi);
// |a|. For a signed integer the result is the unsigned type of the same width, as in Halide.
Expr abs(Expr a);
// |a - b| without overflow, in the unsigned type for integers.
Expr absd(Expr a, Expr b);

// select(c, t, f) is t where c holds and f elsewhere; select(c1, v1, c2, v2, ..., otherwise)
// chains.
Expr select(Expr condition, Expr true_value, Expr false_value);
template <typename... Rest>
Expr select(Expr c0, Expr v0, Expr c1, Expr v1, Rest&&... rest) {
    return select(std::move(c0), std::move(v0), select(std::move(c1), std::move(v1), std::forward<Rest>(rest)...));
}

// Math on floats; integer arguments are converted to float32 first, as in Halide.
Expr sqrt(Expr x);
Expr exp(Expr x);
Expr log(Expr x);
Expr pow(Expr x, Expr y);
Expr sin(Expr x);
Expr cos(Expr x);
Expr tan(Expr x);
Expr tanh(Expr x);
Expr floor(Expr x);
Expr ceil(Expr x);
Expr round(Expr x);  // to nearest, ties to even
Expr trunc(Expr x);
Expr is_nan(Expr x);
Expr fast_inverse(Expr x);
Expr lerp(Expr zero_val, Expr one_val, Expr weight);

// Debugging: print(args...) prints its arguments (Exprs and strings) each time the value is
// computed and returns the first; print_when(cond, value, args...) prints only where cond holds.
Expr print_expr(const std::vector<Expr>& args);
Expr print_when_expr(Expr condition, const std::vector<Expr>& args);
template <typename... Args>
Expr print(Expr first, Args&&... rest) {
    return print_expr({std::move(first), Expr(std::forward<Args>(rest))...});
}
template <typename... Args>
Expr print_when(Expr condition, Expr first, Args&&... rest) {
    return print_when_expr(std::move(condition), {std::move(first), Expr(std::forward<Args>(rest))...});
}

// Constants of a type.
Expr make_const(Type t, int64_t value);
Expr make_const(Type t, double value);

}  // namespace tessera
