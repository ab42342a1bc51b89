// The front end's operators: type coercion, then an IR node.

#include "tessera/operators.h"

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "lang/coercion.h"
#include "tessera/func.h"
#include "util/error_stream.h"

namespace tessera {
namespace lang {

using namespace ir;

void check_defined(const Expr& e, const char* op) {
    TESSERA_USER_CHECK(e.defined())
        << "operator " << op << " applied to an undefined Expr. Give every Expr a value before using it.";
}

Expr broadcast_to(Expr e, int lanes) {
    return e.type().lanes() == lanes ? e : Broadcast::make(std::move(e), lanes);
}

void match_types(Expr& a, Expr& b, const char* op) {
    check_defined(a, op);
    check_defined(b, op);
    Type ta = a.type(), tb = b.type();
    TESSERA_USER_CHECK(!ta.is_handle() && !tb.is_handle())
        << "operator " << op << " cannot be applied to a handle or a string (" << a << ", " << b << ").";
    if (ta == tb) return;
    if (ta.lanes() != tb.lanes()) {
        TESSERA_USER_CHECK(ta.is_scalar() || tb.is_scalar())
            << "operator " << op << " on vectors of " << ta.lanes() << " and " << tb.lanes() << " lanes.";
        const int lanes = std::max(ta.lanes(), tb.lanes());
        a = broadcast_to(a, lanes);
        b = broadcast_to(b, lanes);
        ta = a.type();
        tb = b.type();
        if (ta == tb) return;
    }
    Type target;
    if (ta.is_float() && !tb.is_float())
        target = ta;
    else if (tb.is_float() && !ta.is_float())
        target = tb;
    else if (ta.code() == tb.code())
        target = ta.bits() >= tb.bits() ? ta : tb;
    else
        target = Int(std::max(ta.bits(), tb.bits()), ta.lanes());
    if (ta != target) a = cast(target, a);
    if (tb != target) b = cast(target, b);
}

Expr float_of(Expr x, const char* fn) {
    check_defined(x, fn);
    return x.type().is_float() ? x : cast(Float(32, x.type().lanes()), x);
}

}  // namespace lang

namespace {

using namespace ir;
using lang::broadcast_to;
using lang::check_defined;
using lang::float_of;
using lang::match_types;

// A C++ integer constant beside an Expr takes the Expr's type.
Expr int_constant_like(const Expr& other, int value, const char* op) {
    check_defined(other, op);
    Type t = other.type();
    if (t.is_float()) return ir::make_const(t, int64_t(value));
    TESSERA_USER_CHECK(t.element_of().can_represent(int64_t(value)))
        << "the integer constant " << value << " in operator " << op << " cannot be represented as "
        << type_name(t) << " (the type of " << other << "). Cast the Expr to a wider type first.";
    return ir::make_const(t, int64_t(value));
}

Expr float_constant_like(const Expr& other, double value, const char* op) {
    check_defined(other, op);
    Type t = other.type().is_float() ? other.type() : Float(32, other.type().lanes());
    return ir::make_const(t, value);
}

template <typename Node>
Expr arithmetic(Expr a, Expr b, const char* op) {
    // As in Halide, arithmetic on bools stays in bool (one bit, wrapping): b + 1 is !b.
    match_types(a, b, op);
    return Node::make(std::move(a), std::move(b));
}

template <typename Node>
Expr comparison(Expr a, Expr b, const char* op) {
    match_types(a, b, op);
    return Node::make(std::move(a), std::move(b));
}

Expr to_bool(Expr e, const char* op) {
    check_defined(e, op);
    if (e.type().is_bool()) return e;
    return NE::make(e, make_zero(e.type()));
}

void match_bitwise(Expr& a, Expr& b, const char* op) {
    check_defined(a, op);
    check_defined(b, op);
    TESSERA_USER_CHECK(!a.type().is_float() && !b.type().is_float())
        << "operator " << op << " needs integer or bool operands, not " << type_name(a.type()) << " and "
        << type_name(b.type()) << ". Use reinterpret<>() to get at the bits of a float.";
    match_types(a, b, op);
}

}  // namespace

Expr make_const(Type t, int64_t value) { return ir::make_const(t, value); }
Expr make_const(Type t, double value) { return ir::make_const(t, value); }

Expr cast(Type t, Expr e) {
    check_defined(e, "cast");
    if (e.type().lanes() != t.lanes()) {
        if (t.is_scalar())
            t = t.with_lanes(e.type().lanes());
        else if (e.type().is_scalar())
            e = Broadcast::make(e, t.lanes());
    }
    if (e.type() == t) return e;
    if (t.is_bool() && e.type().is_int_or_uint()) {
        // As in Halide, an integer becomes a bool by truncation to its lowest bit.
        Type et = e.type();
        return NE::make(Call::make_intrinsic(et, Intrinsic::BitAnd, {std::move(e), make_one(et)}),
                        make_zero(et));
    }
    return Cast::make(t, std::move(e));
}

Expr reinterpret(Type t, Expr e) {
    check_defined(e, "reinterpret");
    TESSERA_USER_CHECK(t.bits() * t.lanes() == e.type().bits() * e.type().lanes())
        << "reinterpret from " << type_name(e.type()) << " to " << type_name(t)
        << " changes the number of bits.";
    return Reinterpret::make(t, std::move(e));
}

#define TESSERA_DEFINE_BINARY_OPERATOR(op, impl)                                       \
    Expr operator op(Expr a, Expr b) { return impl(std::move(a), std::move(b), #op); } \
    Expr operator op(Expr a, int b) {                                                  \
        Expr c = int_constant_like(a, b, #op);                                         \
        return impl(std::move(a), std::move(c), #op);                                  \
    }                                                                                  \
    Expr operator op(int a, Expr b) {                                                  \
        Expr c = int_constant_like(b, a, #op);                                         \
        return impl(std::move(c), std::move(b), #op);                                  \
    }                                                                                  \
    Expr operator op(Expr a, float b) {                                                \
        Expr c = float_constant_like(a, b, #op);                                       \
        return impl(std::move(a), std::move(c), #op);                                  \
    }                                                                                  \
    Expr operator op(float a, Expr b) {                                                \
        Expr c = float_constant_like(b, a, #op);                                       \
        return impl(std::move(c), std::move(b), #op);                                  \
    }                                                                                  \
    Expr operator op(Expr a, double b) {                                               \
        Expr c = float_constant_like(a, b, #op);                                       \
        return impl(std::move(a), std::move(c), #op);                                  \
    }                                                                                  \
    Expr operator op(double a, Expr b) {                                               \
        Expr c = float_constant_like(b, a, #op);                                       \
        return impl(std::move(c), std::move(b), #op);                                  \
    }

TESSERA_DEFINE_BINARY_OPERATOR(+, arithmetic<Add>)
TESSERA_DEFINE_BINARY_OPERATOR(-, arithmetic<Sub>)
TESSERA_DEFINE_BINARY_OPERATOR(*, arithmetic<Mul>)
TESSERA_DEFINE_BINARY_OPERATOR(/, arithmetic<Div>)
TESSERA_DEFINE_BINARY_OPERATOR(%, arithmetic<Mod>)
TESSERA_DEFINE_BINARY_OPERATOR(==, comparison<EQ>)
TESSERA_DEFINE_BINARY_OPERATOR(!=, comparison<NE>)
TESSERA_DEFINE_BINARY_OPERATOR(<, comparison<LT>)
TESSERA_DEFINE_BINARY_OPERATOR(<=, comparison<LE>)
TESSERA_DEFINE_BINARY_OPERATOR(>, comparison<GT>)
TESSERA_DEFINE_BINARY_OPERATOR(>=, comparison<GE>)
#undef TESSERA_DEFINE_BINARY_OPERATOR

Expr operator-(Expr a) {
    check_defined(a, "-");
    return Sub::make(make_zero(a.type()), a);
}

Expr operator!(Expr a) { return Not::make(to_bool(std::move(a), "!")); }

Expr operator&&(Expr a, Expr b) {
    a = to_bool(std::move(a), "&&");
    b = to_bool(std::move(b), "&&");
    match_types(a, b, "&&");
    return And::make(std::move(a), std::move(b));
}
Expr operator&&(Expr a, bool b) { return b ? to_bool(std::move(a), "&&") : const_false(a.type().lanes()); }
Expr operator&&(bool a, Expr b) { return std::move(b) && a; }

Expr operator||(Expr a, Expr b) {
    a = to_bool(std::move(a), "||");
    b = to_bool(std::move(b), "||");
    match_types(a, b, "||");
    return Or::make(std::move(a), std::move(b));
}
Expr operator||(Expr a, bool b) { return b ? const_true(a.type().lanes()) : to_bool(std::move(a), "||"); }
Expr operator||(bool a, Expr b) { return std::move(b) || a; }

namespace {

Expr bitwise(Intrinsic op, Expr a, Expr b, const char* name) {
    match_bitwise(a, b, name);
    Type t = a.type();
    return Call::make_intrinsic(t, op, {std::move(a), std::move(b)});
}

Expr shift(Intrinsic op, Expr a, Expr b, const char* name) {
    check_defined(a, name);
    check_defined(b, name);
    TESSERA_USER_CHECK(a.type().is_int_or_uint() && b.type().is_int_or_uint())
        << "operator " << name << " needs integer operands, not " << type_name(a.type()) << " and "
        << type_name(b.type()) << ".";
    // The amount is converted to the left operand's type; a signed amount keeps its sign so
    // that a negative shift goes the other way.
    Type t = a.type();
    Type amount_type = b.type().is_int() ? t.with_code(Type::Int) : t;
    b = cast(amount_type, b);
    if (amount_type != t) {
        // Signed amount on an unsigned value: shift the other way for negative amounts.
        Expr neg = LT::make(b, make_zero(amount_type));
        Expr magnitude = cast(t, Select::make(neg, Sub::make(make_zero(amount_type), b), b));
        Intrinsic other = op == Intrinsic::ShiftLeft ? Intrinsic::ShiftRight : Intrinsic::ShiftLeft;
        return Select::make(neg, Call::make_intrinsic(t, other, {a, magnitude}),
                            Call::make_intrinsic(t, op, {a, magnitude}));
    }
    return Call::make_intrinsic(t, op, {std::move(a), std::move(b)});
}

}  // namespace

Expr operator&(Expr a, Expr b) { return bitwise(Intrinsic::BitAnd, std::move(a), std::move(b), "&"); }
Expr operator&(Expr a, int b) {
    Expr c = int_constant_like(a, b, "&");
    return std::move(a) & c;
}
Expr operator&(int a, Expr b) {
    Expr c = int_constant_like(b, a, "&");
    return c & std::move(b);
}
Expr operator|(Expr a, Expr b) { return bitwise(Intrinsic::BitOr, std::move(a), std::move(b), "|"); }
Expr operator|(Expr a, int b) {
    Expr c = int_constant_like(a, b, "|");
    return std::move(a) | c;
}
Expr operator|(int a, Expr b) {
    Expr c = int_constant_like(b, a, "|");
    return c | std::move(b);
}
Expr operator^(Expr a, Expr b) { return bitwise(Intrinsic::BitXor, std::move(a), std::move(b), "^"); }
Expr operator^(Expr a, int b) {
    Expr c = int_constant_like(a, b, "^");
    return std::move(a) ^ c;
}
Expr operator^(int a, Expr b) {
    Expr c = int_constant_like(b, a, "^");
    return c ^ std::move(b);
}
Expr operator~(Expr a) {
    check_defined(a, "~");
    TESSERA_USER_CHECK(!a.type().is_float())
        << "operator ~ needs an integer operand, not " << type_name(a.type()) << ".";
    Type t = a.type();
    return Call::make_intrinsic(t, Intrinsic::BitNot, {std::move(a)});
}
Expr operator<<(Expr a, Expr b) { return shift(Intrinsic::ShiftLeft, std::move(a), std::move(b), "<<"); }
Expr operator<<(Expr a, int b) { return std::move(a) << Expr(b); }
Expr operator>>(Expr a, Expr b) { return shift(Intrinsic::ShiftRight, std::move(a), std::move(b), ">>"); }
Expr operator>>(Expr a, int b) { return std::move(a) >> Expr(b); }

Expr& operator+=(Expr& a, Expr b) {
    Type t = a.type();
    a = cast(t, a + cast(t, std::move(b)));
    return a;
}
Expr& operator-=(Expr& a, Expr b) {
    Type t = a.type();
    a = cast(t, a - cast(t, std::move(b)));
    return a;
}
Expr& operator*=(Expr& a, Expr b) {
    Type t = a.type();
    a = cast(t, a * cast(t, std::move(b)));
    return a;
}
Expr& operator/=(Expr& a, Expr b) {
    Type t = a.type();
    a = cast(t, a / cast(t, std::move(b)));
    return a;
}

Expr min(Expr a, Expr b) { return arithmetic<Min>(std::move(a), std::move(b), "min"); }
Expr max(Expr a, Expr b) { return arithmetic<Max>(std::move(a), std::move(b), "max"); }
Expr min(Expr a, int b) {
    Expr c = int_constant_like(a, b, "min");
    return min(std::move(a), c);
}
Expr min(int a, Expr b) {
    Expr c = int_constant_like(b, a, "min");
    return min(c, std::move(b));
}
Expr max(Expr a, int b) {
    Expr c = int_constant_like(a, b, "max");
    return max(std::move(a), c);
}
Expr max(int a, Expr b) {
    Expr c = int_constant_like(b, a, "max");
    return max(c, std::move(b));
}
Expr min(Expr a, float b) {
    Expr c = float_constant_like(a, b, "min");
    return min(std::move(a), c);
}
Expr min(float a, Expr b) {
    Expr c = float_constant_like(b, a, "min");
    return min(c, std::move(b));
}
Expr max(Expr a, float b) {
    Expr c = float_constant_like(a, b, "max");
    return max(std::move(a), c);
}
Expr max(float a, Expr b) {
    Expr c = float_constant_like(b, a, "max");
    return max(c, std::move(b));
}

Expr min(const FuncRef& a, const FuncRef& b) { return min(Expr(a), Expr(b)); }
Expr max(const FuncRef& a, const FuncRef& b) { return max(Expr(a), Expr(b)); }

Expr clamp(Expr a, Expr lo, Expr hi) {
    check_defined(a, "clamp");
    check_defined(lo, "clamp");
    check_defined(hi, "clamp");
    Type t = a.type();
    return Max::make(Min::make(a, cast(t, std::move(hi))), cast(t, std::move(lo)));
}

Expr abs(Expr a) {
    check_defined(a, "abs");
    Type t = a.type();
    if (t.is_uint()) return a;
    Type result = t.is_int() ? t.with_code(Type::UInt) : t;
    return Call::make_intrinsic(result, Intrinsic::Abs, {std::move(a)});
}

Expr absd(Expr a, Expr b) {
    match_types(a, b, "absd");
    Type t = a.type();
    if (t.is_float()) return abs(a - b);
    Type result = t.with_code(Type::UInt);
    // max - min never overflows in the unsigned type of the same width.
    return cast(result, Max::make(a, b)) - cast(result, Min::make(a, b));
}

Expr select(Expr condition, Expr true_value, Expr false_value) {
    condition = to_bool(std::move(condition), "select");
    check_defined(true_value, "select");
    check_defined(false_value, "select");
    // As in Halide, a signed integer constant takes the type of the other value (wrapping).
    if (true_value.as<IntImm>() && !false_value.as<IntImm>())
        true_value = cast(false_value.type(), true_value);
    if (false_value.as<IntImm>() && !true_value.as<IntImm>())
        false_value = cast(true_value.type(), false_value);
    match_types(true_value, false_value, "select");
    if (condition.type().lanes() != true_value.type().lanes()) {
        const int lanes = std::max(condition.type().lanes(), true_value.type().lanes());
        true_value = broadcast_to(true_value, lanes);
        false_value = broadcast_to(false_value, lanes);
        condition = broadcast_to(condition, lanes);
    }
    return Select::make(std::move(condition), std::move(true_value), std::move(false_value));
}

Tuple tuple_select(const Tuple& condition, const Tuple& true_value, const Tuple& false_value) {
    TESSERA_USER_CHECK(condition.size() == true_value.size() && true_value.size() == false_value.size())
        << "tuple_select of Tuples of " << condition.size() << ", " << true_value.size() << " and "
        << false_value.size() << " elements; they must have the same size.";
    std::vector<Expr> result;
    for (size_t i = 0; i < true_value.size(); i++)
        result.push_back(select(condition[i], true_value[i], false_value[i]));
    return Tuple(result);
}

Tuple tuple_select(const Expr& condition, const Tuple& true_value, const Tuple& false_value) {
    TESSERA_USER_CHECK(true_value.size() == false_value.size())
        << "tuple_select of Tuples of " << true_value.size() << " and " << false_value.size()
        << " elements; they must have the same size.";
    std::vector<Expr> result;
    for (size_t i = 0; i < true_value.size(); i++)
        result.push_back(select(condition, true_value[i], false_value[i]));
    return Tuple(result);
}

Expr mux(const Expr& id, const std::vector<Expr>& values) {
    check_defined(id, "mux");
    TESSERA_USER_CHECK(!values.empty()) << "mux() needs at least one value to choose from.";
    TESSERA_USER_CHECK(id.type().is_int_or_uint())
        << "mux() chooses by an integer index, not by a " << type_name(id.type()) << ".";
    Expr result = values.back();
    for (size_t i = values.size() - 1; i-- > 0;) result = select(id == int(i), values[i], result);
    return result;
}

Expr mux(const Expr& id, const std::initializer_list<Expr>& values) {
    return mux(id, std::vector<Expr>(values));
}
Expr mux(const Expr& id, const Tuple& values) { return mux(id, values.as_vector()); }

Expr likely(Expr e) {
    check_defined(e, "likely");
    Type t = e.type();
    return Call::make_intrinsic(t, Intrinsic::Likely, {std::move(e)});
}
Expr likely_if_innermost(Expr e) {
    check_defined(e, "likely_if_innermost");
    Type t = e.type();
    return Call::make_intrinsic(t, Intrinsic::LikelyIfInnermost, {std::move(e)});
}
Expr strict_float(Expr e) {
    check_defined(e, "strict_float");
    return e;
}
Expr unsafe_promise_clamped(const Expr& value, const Expr&, const Expr&) {
    check_defined(value, "unsafe_promise_clamped");
    return value;
}
Expr promise_clamped(const Expr& value, const Expr&, const Expr&) {
    check_defined(value, "promise_clamped");
    return value;
}

Expr print_expr(const std::vector<Expr>& args) {
    TESSERA_USER_CHECK(!args.empty() && args[0].defined() && !args[0].type().is_handle())
        << "print() needs a value to print first (an Expr, not a string).";
    return Call::make_intrinsic(args[0].type(), Intrinsic::Print, args);
}

Expr print_when_expr(Expr condition, const std::vector<Expr>& args) {
    TESSERA_USER_CHECK(!args.empty() && args[0].defined() && !args[0].type().is_handle())
        << "print_when() needs a value to print after the condition (an Expr, not a string).";
    std::vector<Expr> all{to_bool(std::move(condition), "print_when")};
    all.insert(all.end(), args.begin(), args.end());
    return Call::make_intrinsic(args[0].type(), Intrinsic::PrintWhen, std::move(all));
}

}  // namespace tessera
