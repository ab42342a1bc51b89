// The floating-point math library: LLVM intrinsics where there is one, the C library's functions
// (atan2f, sinhf, ...) otherwise, and pow of an integer constant as exact repeated multiplication.

#include <cmath>
#include <limits>

#include "ir/ir_util.h"
#include "lang/coercion.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

using namespace ir;
using lang::float_of;

Expr math_call(Intrinsic op, Expr x, const char* fn) {
    x = float_of(std::move(x), fn);
    Type t = x.type();
    return Call::make_intrinsic(t, op, {std::move(x)});
}

// A call of the C library's function `name` (float32) or of `name` without its final 'f' (float64).
Expr libm_call(const char* fn, std::vector<Expr> args) {
    for (Expr& a : args) a = float_of(std::move(a), fn);
    Type t = args[0].type();
    for (size_t i = 1; i < args.size(); i++) {
        lang::match_types(args[0], args[i], fn);
        t = args[0].type();
    }
    for (Expr& a : args) a = cast(t, std::move(a));
    TESSERA_USER_CHECK(t.element_of() == Float(32) || t.element_of() == Float(64))
        << fn << "() of a " << type_name(t) << "; only float32 and float64 are supported.";
    std::string name = fn;
    if (t.bits() == 32) name += "f";
    return Call::make_extern(t, name, std::move(args));
}

// x^p by squaring, in x's type: x^(2k) = (x^k)^2 and x^(2k+1) = (x^k)^2 * x.
Expr integer_power(const Expr& x, int64_t p) {
    if (p == 0) return make_one(x.type());
    if (p == 1) return x;
    if (p < 0) return make_one(x.type()) / integer_power(x, -p);
    Expr half = integer_power(x, p / 2);
    Expr square = half * half;
    return p % 2 ? square * x : square;
}

}  // namespace

Expr sqrt(Expr x) { return math_call(Intrinsic::Sqrt, std::move(x), "sqrt"); }
Expr exp(Expr x) { return math_call(Intrinsic::Exp, std::move(x), "exp"); }
Expr log(Expr x) { return math_call(Intrinsic::Log, std::move(x), "log"); }
Expr sin(Expr x) { return math_call(Intrinsic::Sin, std::move(x), "sin"); }
Expr cos(Expr x) { return math_call(Intrinsic::Cos, std::move(x), "cos"); }
Expr tan(Expr x) { return math_call(Intrinsic::Tan, std::move(x), "tan"); }
Expr tanh(Expr x) { return math_call(Intrinsic::Tanh, std::move(x), "tanh"); }
Expr floor(Expr x) { return math_call(Intrinsic::Floor, std::move(x), "floor"); }
Expr ceil(Expr x) { return math_call(Intrinsic::Ceil, std::move(x), "ceil"); }
Expr round(Expr x) { return math_call(Intrinsic::Round, std::move(x), "round"); }
Expr trunc(Expr x) { return math_call(Intrinsic::Trunc, std::move(x), "trunc"); }

Expr asin(Expr x) { return libm_call("asin", {std::move(x)}); }
Expr acos(Expr x) { return libm_call("acos", {std::move(x)}); }
Expr atan(Expr x) { return libm_call("atan", {std::move(x)}); }
Expr atan2(Expr y, Expr x) { return libm_call("atan2", {std::move(y), std::move(x)}); }
Expr sinh(Expr x) { return libm_call("sinh", {std::move(x)}); }
Expr cosh(Expr x) { return libm_call("cosh", {std::move(x)}); }
Expr asinh(Expr x) { return libm_call("asinh", {std::move(x)}); }
Expr acosh(Expr x) { return libm_call("acosh", {std::move(x)}); }
Expr atanh(Expr x) { return libm_call("atanh", {std::move(x)}); }
Expr erf(const Expr& x) { return libm_call("erf", {x}); }

Expr hypot(const Expr& x, const Expr& y) {
    Expr a = float_of(x, "hypot"), b = float_of(y, "hypot");
    lang::match_types(a, b, "hypot");
    return sqrt(a * a + b * b);
}

Expr pow(Expr x, Expr y) {
    lang::check_defined(x, "pow");
    lang::check_defined(y, "pow");
    if (const IntImm* p = y.as<IntImm>()) return integer_power(x, p->value);
    x = float_of(std::move(x), "pow");
    y = cast(x.type(), std::move(y));
    Type t = x.type();
    return Call::make_intrinsic(t, Intrinsic::Pow, {std::move(x), std::move(y)});
}

Expr fma(Expr a, Expr b, Expr c) {
    a = float_of(std::move(a), "fma");
    b = float_of(std::move(b), "fma");
    c = float_of(std::move(c), "fma");
    lang::match_types(a, b, "fma");
    lang::match_types(a, c, "fma");
    lang::match_types(b, c, "fma");
    Type t = a.type();
    return Call::make_intrinsic(t, Intrinsic::Fma, {std::move(a), std::move(b), std::move(c)});
}

Expr fract(const Expr& x) {
    Expr f = float_of(x, "fract");
    return f - trunc(f);
}

Expr is_nan(Expr x) {
    lang::check_defined(x, "is_nan");
    TESSERA_USER_CHECK(x.type().is_float())
        << "is_nan needs a float argument, not " << type_name(x.type()) << ".";
    const int lanes = x.type().lanes();
    return Call::make_intrinsic(Bool(lanes), Intrinsic::IsNan, {std::move(x)});
}

Expr is_inf(Expr x) {
    lang::check_defined(x, "is_inf");
    TESSERA_USER_CHECK(x.type().is_float())
        << "is_inf needs a float argument, not " << type_name(x.type()) << ".";
    Type t = x.type();
    return abs(std::move(x)) == ir::make_const(t, std::numeric_limits<double>::infinity());
}

Expr is_finite(Expr x) {
    lang::check_defined(x, "is_finite");
    TESSERA_USER_CHECK(x.type().is_float())
        << "is_finite needs a float argument, not " << type_name(x.type()) << ".";
    Type t = x.type();
    // NaN compares false, as it should.
    return abs(std::move(x)) < ir::make_const(t, std::numeric_limits<double>::infinity());
}

Expr fast_inverse(Expr x) {
    x = float_of(std::move(x), "fast_inverse");
    return make_one(x.type()) / x;
}
Expr fast_inverse_sqrt(Expr x) {
    x = float_of(std::move(x), "fast_inverse_sqrt");
    return make_one(x.type()) / sqrt(x);
}
Expr fast_log(const Expr& x) { return log(x); }
Expr fast_exp(const Expr& x) { return exp(x); }
Expr fast_pow(Expr x, Expr y) { return pow(std::move(x), std::move(y)); }
Expr fast_sin(const Expr& x) { return sin(x); }
Expr fast_cos(const Expr& x) { return cos(x); }

}  // namespace tessera
