// Elementwise operators with numpy broadcasting: arithmetic, math functions, comparisons, logic,
// Where and Cast.

#include "graph/element_types.h"
#include "graph/ops/broadcast.h"
#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

using Combine = std::function<Expr(const OpContext&, const std::vector<Expr>&)>;

void check_same_types(const OpContext& ctx) {
    for (int i = 1; i < ctx.input_count(); i++) {
        if (ctx.has_input(i) && ctx.input(i).type != ctx.input(0).type) {
            TESSERA_GRAPH_ERROR(ctx) << "input " << i << " is " << type_name(ctx.input(i).type)
                                     << " but input 0 is " << type_name(ctx.input(0).type)
                                     << "; the inputs must have one type.";
        }
    }
}

// An elementwise operator over all its inputs, broadcast together, whose result has result_type
// (or the first input's type when result_type is empty).
OpResult broadcast_elementwise(const OpContext& ctx, const Combine& combine,
                               std::optional<Type> result_type = {}) {
    std::vector<std::vector<int64_t>> shapes;
    for (int i = 0; i < ctx.input_count(); i++) shapes.push_back(ctx.input(i).shape);
    const std::vector<int64_t> shape = broadcast_shapes(ctx, shapes);
    const Type type = result_type ? *result_type : ctx.input(0).type;
    TensorFunc out = define_tensor(ctx.func_name(), type, shape, [&](const std::vector<Expr>& index) {
        std::vector<Expr> args;
        for (int i = 0; i < ctx.input_count(); i++)
            args.push_back(broadcast_read(ctx.input(i), index, shape));
        return combine(ctx, args);
    });
    return {{out}, {}};
}

// Before opset 7, binary operators broadcast only where the attribute broadcast was 1, aligning the
// second input at axis: not numpy's rule, and not supported beyond numpy's case.
void check_legacy_broadcast(const OpContext& ctx) {
    if (ctx.opset < 7 && ctx.attributes().has("axis") && ctx.attributes().get_int("broadcast", 0) != 0)
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "broadcasting along axis " << ctx.attributes().get_int("axis", 0) << " (opset " << ctx.opset
            << ") is not supported; numpy broadcasting is.";
}

void elementwise(const std::string& name, int min_inputs, int max_inputs, Combine combine,
                 bool same_types = true) {
    register_operator(
        {name, OpKind::Elementwise, min_inputs, max_inputs, [combine, same_types](const OpContext& ctx) {
             check_legacy_broadcast(ctx);
             if (same_types) check_same_types(ctx);
             return broadcast_elementwise(ctx, combine);
         }});
}

void comparison(const std::string& name, Combine combine) {
    register_operator({name, OpKind::Elementwise, 2, 2, [combine](const OpContext& ctx) {
                           check_same_types(ctx);
                           return broadcast_elementwise(ctx, combine, Bool());
                       }});
}

void require_float(const OpContext& ctx) {
    if (!ctx.input(0).type.is_float())
        TESSERA_GRAPH_ERROR(ctx) << "takes floating-point tensors, not " << type_name(ctx.input(0).type)
                                 << ".";
}

void float_unary(const std::string& name, Expr (*f)(Expr)) {
    elementwise(name, 1, 1, [f](const OpContext& ctx, const std::vector<Expr>& a) {
        require_float(ctx);
        return f(a[0]);
    });
}

Expr fold(const std::vector<Expr>& a, Expr (*combine)(Expr, Expr)) {
    Expr e = a[0];
    for (size_t i = 1; i < a.size(); i++) e = combine(e, a[i]);
    return e;
}

Expr add(Expr a, Expr b) { return a + b; }
Expr minimum_of(Expr a, Expr b) { return min(a, b); }
Expr maximum_of(Expr a, Expr b) { return max(a, b); }

// Integer division and modulo as ONNX defines them: Div truncates toward zero; Mod takes the sign
// of the divisor (Python's %), or of the dividend with fmod=1 (C's fmod).
Expr divide(const OpContext&, const std::vector<Expr>& a) {
    return a[0].type().is_float() ? a[0] / a[1] : div_round_to_zero(a[0], a[1]);
}

Expr modulo(const OpContext& ctx, const std::vector<Expr>& a) {
    const bool fmod = ctx.attributes().get_int("fmod", 0) != 0;
    const Type t = a[0].type();
    if (t.is_float()) {
        if (!fmod) TESSERA_GRAPH_ERROR(ctx) << "Mod of floating-point tensors needs fmod=1.";
        return a[0] - trunc(a[0] / a[1]) * a[1];
    }
    if (fmod || t.is_uint()) return mod_round_to_zero(a[0], a[1]);
    Expr r = a[0] % a[1];  // Euclidean: 0 <= r < |b|
    return select(a[1] < 0 && r != 0, r + a[1], r);
}

Expr power(const OpContext&, const std::vector<Expr>& a) {
    const Type t = a[0].type();
    if (t.is_float()) return pow(a[0], cast(t, a[1]));
    return cast(t, pow(cast(Float(64), a[0]), cast(Float(64), a[1])));
}

Expr sign(Expr x) {
    Expr zero = cast(x.type(), 0);
    return select(x > zero, cast(x.type(), 1), x < zero, cast(x.type(), -1), zero);
}

OpResult cast_to(const OpContext& ctx, Type to) {
    const Type from = ctx.input(0).type;
    TensorFunc x = ctx.input(0);
    TensorFunc out = define_tensor(ctx.func_name(), to, x.shape, [&](const std::vector<Expr>& index) {
        Expr v = x(index);
        if (to.is_bool()) return from.is_bool() ? v : Expr(v != cast(from, 0));
        return cast(to, v);
    });
    return {{out}, {}};
}

void register_cast() {
    register_operator({"Cast", OpKind::Elementwise, 1, 1, [](const OpContext& ctx) {
                           const int64_t to = ctx.attributes().get_int("to", 0);
                           std::optional<Type> t = type_of_onnx_data_type(to);
                           if (!t)
                               TESSERA_GRAPH_UNSUPPORTED(ctx) << "casting to " << onnx_data_type_name(to)
                                                              << " is not supported (numbers and bool are).";
                           return cast_to(ctx, *t);
                       }});
    register_operator({"CastLike", OpKind::Elementwise, 2, 2,
                       [](const OpContext& ctx) { return cast_to(ctx, ctx.input(1).type); }});
}

void register_where() {
    register_operator(
        {"Where", OpKind::Elementwise, 3, 3, [](const OpContext& ctx) {
             if (!ctx.input(0).type.is_bool())
                 TESSERA_GRAPH_ERROR(ctx)
                     << "the condition must be bool, not " << type_name(ctx.input(0).type) << ".";
             if (ctx.input(1).type != ctx.input(2).type)
                 TESSERA_GRAPH_ERROR(ctx) << "the two branches have different types.";
             return broadcast_elementwise(
                 ctx, [](const OpContext&, const std::vector<Expr>& a) { return select(a[0], a[1], a[2]); },
                 ctx.input(1).type);
         }});
}

}  // namespace

void register_elementwise_operators() {
    const int many = 1 << 20;
    elementwise("Add", 2, 2, [](const OpContext&, const std::vector<Expr>& a) { return a[0] + a[1]; });
    elementwise("Sub", 2, 2, [](const OpContext&, const std::vector<Expr>& a) { return a[0] - a[1]; });
    elementwise("Mul", 2, 2, [](const OpContext&, const std::vector<Expr>& a) { return a[0] * a[1]; });
    elementwise("Div", 2, 2, divide);
    elementwise("Mod", 2, 2, modulo);
    elementwise("Pow", 2, 2, power, false);
    elementwise("Sum", 1, many, [](const OpContext&, const std::vector<Expr>& a) { return fold(a, add); });
    elementwise("Mean", 1, many, [](const OpContext&, const std::vector<Expr>& a) {
        return fold(a, add) / cast(a[0].type(), int(a.size()));
    });
    elementwise("Min", 1, many,
                [](const OpContext&, const std::vector<Expr>& a) { return fold(a, minimum_of); });
    elementwise("Max", 1, many,
                [](const OpContext&, const std::vector<Expr>& a) { return fold(a, maximum_of); });

    comparison("Equal", [](const OpContext&, const std::vector<Expr>& a) { return a[0] == a[1]; });
    comparison("Less", [](const OpContext&, const std::vector<Expr>& a) { return a[0] < a[1]; });
    comparison("LessOrEqual", [](const OpContext&, const std::vector<Expr>& a) { return a[0] <= a[1]; });
    comparison("Greater", [](const OpContext&, const std::vector<Expr>& a) { return a[0] > a[1]; });
    comparison("GreaterOrEqual", [](const OpContext&, const std::vector<Expr>& a) { return a[0] >= a[1]; });
    elementwise("And", 2, 2, [](const OpContext&, const std::vector<Expr>& a) { return a[0] && a[1]; });
    elementwise("Or", 2, 2, [](const OpContext&, const std::vector<Expr>& a) { return a[0] || a[1]; });
    elementwise("Xor", 2, 2, [](const OpContext&, const std::vector<Expr>& a) { return a[0] != a[1]; });
    elementwise("Not", 1, 1, [](const OpContext&, const std::vector<Expr>& a) { return !a[0]; });

    elementwise("Abs", 1, 1,
                [](const OpContext&, const std::vector<Expr>& a) { return cast(a[0].type(), abs(a[0])); });
    elementwise("Neg", 1, 1, [](const OpContext&, const std::vector<Expr>& a) { return -a[0]; });
    elementwise("Sign", 1, 1, [](const OpContext&, const std::vector<Expr>& a) { return sign(a[0]); });
    elementwise("Identity", 1, 1, [](const OpContext&, const std::vector<Expr>& a) { return a[0]; });
    elementwise("Reciprocal", 1, 1, [](const OpContext& ctx, const std::vector<Expr>& a) {
        require_float(ctx);
        return cast(a[0].type(), 1) / a[0];
    });
    float_unary("Sqrt", sqrt);
    float_unary("Exp", exp);
    float_unary("Log", log);
    float_unary("Floor", floor);
    float_unary("Ceil", ceil);
    float_unary("Round", round);
    float_unary("Erf", [](Expr x) { return erf(x); });
    float_unary("Sin", sin);
    float_unary("Cos", cos);
    float_unary("Tan", tan);
    float_unary("Asin", asin);
    float_unary("Acos", acos);
    float_unary("Atan", atan);
    float_unary("Sinh", sinh);
    float_unary("Cosh", cosh);
    float_unary("Asinh", asinh);
    float_unary("Acosh", acosh);
    float_unary("Atanh", atanh);
    register_operator({"IsNaN", OpKind::Elementwise, 1, 1, [](const OpContext& ctx) {
                           require_float(ctx);
                           return broadcast_elementwise(
                               ctx, [](const OpContext&, const std::vector<Expr>& a) { return is_nan(a[0]); },
                               Bool());
                       }});
    register_operator({"IsInf", OpKind::Elementwise, 1, 1, [](const OpContext& ctx) {
                           require_float(ctx);
                           const bool positive = ctx.attributes().get_int("detect_positive", 1) != 0;
                           const bool negative = ctx.attributes().get_int("detect_negative", 1) != 0;
                           return broadcast_elementwise(
                               ctx,
                               [=](const OpContext&, const std::vector<Expr>& a) {
                                   Expr zero = cast(a[0].type(), 0);
                                   return is_inf(a[0]) &&
                                          ((a[0] > zero && positive) || (a[0] < zero && negative));
                               },
                               Bool());
                       }});
    register_cast();
    register_where();
}

}  // namespace tessera::graph
