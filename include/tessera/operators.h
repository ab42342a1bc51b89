#pragma once
// Arithmetic, comparison, logical and bitwise operators on Exprs, casts and the math library,
// with Halide's type coercion rules:
//   - operands of the same type need nothing;
//   - a C++ integer constant takes the type of the other operand (an error if it does not fit);
//   - a C++ float constant is a float32 unless the other operand is a wider float;
//   - float with non-float: the non-float is converted to the float type;
//   - two floats, or two integers of the same signedness: the narrower is widened;
//   - signed with unsigned: both become signed, with the wider of the two widths.
// Integer division and modulo are Euclidean, as in Halide: the remainder is never negative, so
// the quotient rounds toward negative infinity for a positive divisor (and toward positive infinity
// for a negative one). Dividing by zero gives zero.

#include <initializer_list>
#include <string>
#include <vector>

#include "tessera/expr.h"
#include "tessera/tuple.h"
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

#define TESSERA_DECLARE_BINARY_OPERATOR(op) \
    Expr operator op(Expr a, Expr b);       \
    Expr operator op(Expr a, int b);        \
    Expr operator op(int a, Expr b);        \
    Expr operator op(Expr a, float b);      \
    Expr operator op(float a, Expr b);      \
    Expr operator op(Expr a, double b);     \
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

class FuncRef;

Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
// For calls of Funcs, so that min(f(x), g(x)) stays Tessera's even beside `using namespace std`.
Expr min(const FuncRef& a, const FuncRef& b);
Expr max(const FuncRef& a, const FuncRef& b);
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
    return min(Expr(std::forward<A>(a)),
               min(Expr(std::forward<B>(b)), Expr(std::forward<C>(c)), std::forward<Rest>(rest)...));
}
template <typename A, typename B, typename C, typename... Rest>
Expr max(A&& a, B&& b, C&& c, Rest&&... rest) {
    return max(Expr(std::forward<A>(a)),
               max(Expr(std::forward<B>(b)), Expr(std::forward<C>(c)), std::forward<Rest>(rest)...));
}
// max(min(a, hi), lo), with lo and hi converted to a's type (so lo wins when lo > hi, as in Halide).
Expr clamp(Expr a, Expr lo, Expr hi);
// |a|. For a signed integer the result is the unsigned type of the same width, as in Halide.
Expr abs(Expr a);
// |a - b| without overflow, in the unsigned type for integers.
Expr absd(Expr a, Expr b);

// select(c, t, f) is t where c holds and f elsewhere; select(c1, v1, c2, v2, ..., otherwise)
// chains. As in Halide, an integer constant among the values takes the type of the other value.
Expr select(Expr condition, Expr true_value, Expr false_value);
template <typename... Rest>
Expr select(Expr c0, Expr v0, Expr c1, Expr v1, Rest&&... rest) {
    return select(std::move(c0), std::move(v0),
                  select(std::move(c1), std::move(v1), std::forward<Rest>(rest)...));
}
// select on each element of Tuples; the condition is one Expr or a Tuple of them.
Tuple tuple_select(const Tuple& condition, const Tuple& true_value, const Tuple& false_value);
Tuple tuple_select(const Expr& condition, const Tuple& true_value, const Tuple& false_value);
template <typename C, typename... Rest>
Tuple tuple_select(const C& c0, const Tuple& v0, const C& c1, const Tuple& v1, Rest&&... rest) {
    return tuple_select(c0, v0, tuple_select(c1, v1, std::forward<Rest>(rest)...));
}
// values[id]; the last value where id is out of range (negative included).
Expr mux(const Expr& id, const std::initializer_list<Expr>& values);
Expr mux(const Expr& id, const std::vector<Expr>& values);
Expr mux(const Expr& id, const Tuple& values);

// Math on floats; integer arguments are converted to float32 first, as in Halide. The
// transcendental functions are the C library's, correctly rounded where it is.
Expr sqrt(Expr x);
Expr exp(Expr x);
Expr log(Expr x);
// x^y in x's type. As in Halide, an integer constant y is exact repeated multiplication (by
// squaring) in x's own type, integers included, and a negative one is 1 / x^-y; otherwise x is
// converted to float and y to x's type.
Expr pow(Expr x, Expr y);
// a * b + c rounded once, as C's fma: the operation of a fused multiply-add instruction. The
// arguments are converted to one float type as an arithmetic operator's are.
Expr fma(Expr a, Expr b, Expr c);
Expr sin(Expr x);
Expr cos(Expr x);
Expr tan(Expr x);
Expr asin(Expr x);
Expr acos(Expr x);
Expr atan(Expr x);
Expr atan2(Expr y, Expr x);
Expr sinh(Expr x);
Expr cosh(Expr x);
Expr tanh(Expr x);
Expr asinh(Expr x);
Expr acosh(Expr x);
Expr atanh(Expr x);
// sqrt(x * x + y * y), in the wider float type of the two.
Expr hypot(const Expr& x, const Expr& y);
Expr erf(const Expr& x);
Expr floor(Expr x);
Expr ceil(Expr x);
Expr round(Expr x);  // to nearest, ties to even
Expr trunc(Expr x);
// x - trunc(x): the fractional part, with the sign of x.
Expr fract(const Expr& x);
Expr is_nan(Expr x);
Expr is_inf(Expr x);
Expr is_finite(Expr x);
// Halide's fast approximations, computed here exactly: fast_inverse(x) is 1 / x, fast_pow is pow,
// and so on.
Expr fast_inverse(Expr x);
Expr fast_inverse_sqrt(Expr x);
Expr fast_log(const Expr& x);
Expr fast_exp(const Expr& x);
Expr fast_pow(Expr x, Expr y);
Expr fast_sin(const Expr& x);
Expr fast_cos(const Expr& x);

// zero_val * (1 - w) + one_val * w, with Halide's semantics: zero_val and one_val have one type,
// which is the result's; the weight is a float in [0, 1] or an unsigned integer whose full range
// stands for [0, 1]. For integer values the result is exactly rounded (a float weight is first
// scaled to the values' width and truncated).
Expr lerp(Expr zero_val, Expr one_val, Expr weight);

// Bits: the number of set bits, of leading zeros and of trailing zeros (the width for zero), in
// the argument's type.
Expr popcount(Expr x);
Expr count_leading_zeros(Expr x);
Expr count_trailing_zeros(Expr x);
// Integer division and modulo rounding toward zero, as in C (but zero when dividing by zero).
Expr div_round_to_zero(Expr x, Expr y);
Expr mod_round_to_zero(Expr x, Expr y);
// The conversion to t clamped to t's range (NaN unspecified).
Expr saturating_cast(Type t, Expr e);
template <typename T>
Expr saturating_cast(Expr e) {
    return saturating_cast(type_of<T>(), std::move(e));
}

// Hints for optimization, as in Halide: each returns its value. likely(e) in an operand of a min
// or max, or as the condition of a select, says which way it usually goes: loop partitioning runs
// the iterations where it provably goes that way without the test. likely_if_innermost(e) does so
// only in an innermost loop, or along with another test.
Expr likely(Expr e);
Expr likely_if_innermost(Expr e);
Expr strict_float(Expr e);
Expr unsafe_promise_clamped(const Expr& value, const Expr& min, const Expr& max);
Expr promise_clamped(const Expr& value, const Expr& min, const Expr& max);

// Debugging: print(args...) prints its arguments (Exprs and strings) each time the value is
// computed and returns the first; print_when(cond, value, args...) prints only where cond holds.
Expr print_expr(const std::vector<Expr>& args);
Expr print_when_expr(Expr condition, const std::vector<Expr>& args);
template <typename... Args>
Expr print(Expr first, Args&&... rest) {
    return print_expr({std::move(first), Expr(std::forward<Args>(rest))...});
}
inline Expr print(const std::vector<Expr>& values) { return print_expr(values); }
template <typename... Args>
Expr print_when(Expr condition, Expr first, Args&&... rest) {
    return print_when_expr(std::move(condition), {std::move(first), Expr(std::forward<Args>(rest))...});
}
inline Expr print_when(Expr condition, const std::vector<Expr>& values) {
    return print_when_expr(std::move(condition), values);
}

// Constants of a type.
Expr make_const(Type t, int64_t value);
Expr make_const(Type t, double value);

}  // namespace tessera
