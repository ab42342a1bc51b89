// Activation functions: elementwise, on floating-point tensors of any shape.

#include "graph/ops/broadcast.h"
#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

using Activation = std::function<Expr(const OpContext&, Expr x)>;

void activation(const std::string& name, Activation f) {
    register_operator({name, OpKind::Elementwise, 1, 1, [f](const OpContext& ctx) {
                           const TensorFunc& x = ctx.input(0);
                           if (!x.type.is_float())
                               TESSERA_GRAPH_ERROR(ctx)
                                   << "takes floating-point tensors, not " << type_name(x.type) << ".";
                           TensorFunc out =
                               define_tensor(ctx.func_name(), x.type, x.shape,
                                             [&](const std::vector<Expr>& i) { return f(ctx, x(i)); });
                           return OpResult{{out}, {}};
                       }});
}

Expr constant_like(const Expr& x, double v) { return cast(x.type(), Expr(v)); }

float attribute(const OpContext& ctx, const char* name, float fallback) {
    return ctx.attributes().get_float(name, fallback);
}

Expr hard_sigmoid(Expr x, float alpha, float beta) {
    return clamp(constant_like(x, alpha) * x + constant_like(x, beta), constant_like(x, 0),
                 constant_like(x, 1));
}

Expr sigmoid(Expr x) { return constant_like(x, 1) / (constant_like(x, 1) + exp(-x)); }

// Softplus, log(1 + exp(x)), without overflowing exp for large x.
Expr softplus(Expr x) {
    return select(x > constant_like(x, 20), x, log(constant_like(x, 1) + exp(min(x, constant_like(x, 20)))));
}

// Clip's bounds are attributes up to opset 10, optional inputs (scalars) since.
OpResult clip(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    Expr lo, hi;
    if (ctx.has_input(1)) lo = ctx.input(1)({});
    if (ctx.has_input(2)) hi = ctx.input(2)({});
    if (ctx.attributes().has("min")) lo = Expr(double(ctx.attributes().get_float("min", 0)));
    if (ctx.attributes().has("max")) hi = Expr(double(ctx.attributes().get_float("max", 0)));
    for (int i = 1; i <= 2; i++)
        if (ctx.has_input(i) && ctx.input(i).rank() != 0)
            TESSERA_GRAPH_ERROR(ctx) << "input " << i << " (the " << (i == 1 ? "min" : "max")
                                     << ") must be a scalar.";
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
        Expr v = x(i);
        if (lo.defined()) v = max(v, cast(x.type, lo));
        if (hi.defined()) v = min(v, cast(x.type, hi));
        return v;
    });
    return {{out}, {}};
}

// PRelu: x where x >= 0, slope * x elsewhere, with slope broadcast to x's shape.
OpResult prelu(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const TensorFunc& slope = ctx.input(1);
    // Before opset 7 a slope of one value per channel applied along dimension 1.
    if (ctx.opset < 7 && slope.rank() == 1 && x.rank() >= 2 && slope.shape[0] == x.shape[1] &&
        slope.shape[0] != 1) {
        TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
            Expr v = x(i);
            return select(v < constant_like(v, 0), slope({i[1]}) * v, v);
        });
        return {{out}, {}};
    }
    const std::vector<int64_t> shape = broadcast_shapes(ctx, {x.shape, slope.shape});
    if (shape != x.shape) TESSERA_GRAPH_ERROR(ctx) << "the slope must broadcast to the shape of x.";
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
        Expr v = x(i);
        return select(v < constant_like(v, 0), broadcast_read(slope, i, shape) * v, v);
    });
    return {{out}, {}};
}

}  // namespace

void register_activation_operators() {
    activation("Relu", [](const OpContext&, Expr x) { return max(x, constant_like(x, 0)); });
    activation("LeakyRelu", [](const OpContext& ctx, Expr x) {
        return select(x < constant_like(x, 0), constant_like(x, attribute(ctx, "alpha", 0.01f)) * x, x);
    });
    activation("Elu", [](const OpContext& ctx, Expr x) {
        Expr alpha = constant_like(x, attribute(ctx, "alpha", 1.0f));
        return select(x < constant_like(x, 0), alpha * (exp(x) - constant_like(x, 1)), x);
    });
    activation("Celu", [](const OpContext& ctx, Expr x) {
        Expr alpha = constant_like(x, attribute(ctx, "alpha", 1.0f));
        return max(x, constant_like(x, 0)) +
               min(constant_like(x, 0), alpha * (exp(x / alpha) - constant_like(x, 1)));
    });
    activation("Selu", [](const OpContext& ctx, Expr x) {
        Expr alpha = constant_like(x, attribute(ctx, "alpha", 1.67326319217681884765625f));
        Expr gamma = constant_like(x, attribute(ctx, "gamma", 1.05070102214813232421875f));
        return gamma * select(x > constant_like(x, 0), x, alpha * exp(x) - alpha);
    });
    activation("ThresholdedRelu", [](const OpContext& ctx, Expr x) {
        return select(x > constant_like(x, attribute(ctx, "alpha", 1.0f)), x, constant_like(x, 0));
    });
    activation("HardSigmoid", [](const OpContext& ctx, Expr x) {
        return hard_sigmoid(x, attribute(ctx, "alpha", 0.2f), attribute(ctx, "beta", 0.5f));
    });
    activation("HardSwish", [](const OpContext&, Expr x) { return x * hard_sigmoid(x, 1.0f / 6, 0.5f); });
    activation("Sigmoid", [](const OpContext&, Expr x) { return sigmoid(x); });
    activation("Tanh", [](const OpContext&, Expr x) { return tanh(x); });
    activation("Softplus", [](const OpContext&, Expr x) { return softplus(x); });
    activation("Softsign", [](const OpContext&, Expr x) { return x / (constant_like(x, 1) + abs(x)); });
    activation("Shrink", [](const OpContext& ctx, Expr x) {
        Expr lambd = constant_like(x, attribute(ctx, "lambd", 0.5f));
        Expr bias = constant_like(x, attribute(ctx, "bias", 0.0f));
        return select(x<-lambd, x + bias, x> lambd, x - bias, constant_like(x, 0));
    });
    register_operator({"Clip", OpKind::Elementwise, 1, 3, clip});
    register_operator({"PRelu", OpKind::Elementwise, 2, 2, prelu});
}

}  // namespace tessera::graph
