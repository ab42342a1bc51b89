// Normalizations, on floating-point tensors: BatchNormalization (inference), InstanceNormalization,
// LayerNormalization and MeanVarianceNormalization.

#include "graph/ops/broadcast.h"
#include "graph/ops/reduce_axes.h"

namespace tessera::graph {
namespace {

const TensorFunc& float_input(const OpContext& ctx, int i) {
    const TensorFunc& t = ctx.input(i);
    if (!t.type.is_float())
        TESSERA_GRAPH_ERROR(ctx) << "takes floating-point tensors, not " << type_name(t.type) << " (input "
                                 << i << ").";
    if (t.type != ctx.input(0).type)
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "input " << i << " is " << type_name(t.type) << " and input 0 " << type_name(ctx.input(0).type)
            << "; only one type for all is supported.";
    return t;
}

Expr constant_like(const TensorFunc& t, double v) { return cast(t.type, Expr(v)); }

// The mean and the variance of x over axes, for each index of the other axes.
struct Moments {
    TensorFunc mean;  // of x's shape less the axes
    AxisReduction sum, squares;
};

// The variance is the mean of the squared differences from the mean: unlike the mean of the
// squares less the squared mean, it keeps its precision where the mean is large against the spread.
Moments moments(const OpContext& ctx, const TensorFunc& x, const std::vector<int>& axes) {
    Moments m;
    m.sum = reduce_over_axes(ctx.func_name("sum"), x.type, x.shape, axes, Reducer::Sum,
                             [&](const std::vector<Expr>& i) { return x(i); });
    const Expr count = constant_like(x, double(m.sum.count()));
    m.mean = define_tensor(ctx.func_name("mean"), x.type, m.sum.result.shape,
                           [&](const std::vector<Expr>& i) { return m.sum.result(i) / count; });
    m.squares = reduce_over_axes(ctx.func_name("squares"), x.type, x.shape, axes, Reducer::Sum,
                                 [&](const std::vector<Expr>& i) {
                                     Expr d = x(i) - read_without_axes(m.mean, axes, i);
                                     return d * d;
                                 });
    return m;
}

// 1 / sqrt(variance + epsilon), for each index of x's shape less the axes.
TensorFunc inverse_deviation(const OpContext& ctx, const TensorFunc& x, const Moments& m, float epsilon) {
    const Expr count = constant_like(x, double(m.squares.count()));
    return define_tensor(
        ctx.func_name("inverse_deviation"), x.type, m.squares.result.shape, [&](const std::vector<Expr>& i) {
            return constant_like(x, 1) / sqrt(m.squares.result(i) / count + constant_like(x, epsilon));
        });
}

// A per-channel parameter of BatchNormalization or InstanceNormalization: of shape [C], or of x's
// shape less its first axis (BatchNormalization with spatial=0); read at an index of x.
Expr channel_parameter(const OpContext& ctx, int i, const TensorFunc& x, const std::vector<Expr>& index) {
    const TensorFunc& p = float_input(ctx, i);
    const std::vector<int64_t> per_element(x.shape.begin() + 1, x.shape.end());
    if (p.shape == std::vector<int64_t>{x.shape[1]}) return p({index[1]});
    if (p.shape == per_element) return p(std::vector<Expr>(index.begin() + 1, index.end()));
    TESSERA_GRAPH_ERROR(ctx) << "input " << i << " has shape " << shape_text(p.shape)
                             << "; for an input of shape " << shape_text(x.shape) << " it must be ["
                             << x.shape[1] << "].";
    return Expr();
}

const TensorFunc& channels_input(const OpContext& ctx) {
    const TensorFunc& x = float_input(ctx, 0);
    if (x.rank() < 2)
        TESSERA_GRAPH_ERROR(ctx) << "the input must have a batch and a channel axis; its shape is "
                                 << shape_text(x.shape) << ".";
    return x;
}

// (x - mean) / sqrt(var + epsilon) * scale + bias, with the statistics given per channel.
OpResult batch_normalization(const OpContext& ctx) {
    if (ctx.attributes().get_int("training_mode", 0) != 0 || ctx.node.outputs.size() > 1) {
        TESSERA_GRAPH_UNSUPPORTED(ctx) << "training mode (the running mean and variance outputs) is not "
                                          "supported; inference is, with one output.";
    }
    const TensorFunc& x = channels_input(ctx);
    const float epsilon = ctx.attributes().get_float("epsilon", 1e-5f);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
        Expr scale = channel_parameter(ctx, 1, x, i), bias = channel_parameter(ctx, 2, x, i);
        Expr mean = channel_parameter(ctx, 3, x, i), var = channel_parameter(ctx, 4, x, i);
        return (x(i) - mean) / sqrt(var + constant_like(x, epsilon)) * scale + bias;
    });
    return {{out}, {}};
}

// Normalizes each of x's [N, C] slices over the other axes, then scales and shifts it per channel.
OpResult instance_normalization(const OpContext& ctx) {
    const TensorFunc& x = channels_input(ctx);
    for (int i = 1; i <= 2; i++)
        if (ctx.input(i).shape != std::vector<int64_t>{x.shape[1]})
            TESSERA_GRAPH_ERROR(ctx) << "input " << i << " has shape " << shape_text(ctx.input(i).shape)
                                     << "; it must be [" << x.shape[1] << "], one value per channel.";
    const std::vector<int> axes = trailing_axes(2, x.rank());
    const Moments m = moments(ctx, x, axes);
    const TensorFunc inverse = inverse_deviation(ctx, x, m, ctx.attributes().get_float("epsilon", 1e-5f));
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
        Expr normalized = (x(i) - read_without_axes(m.mean, axes, i)) * read_without_axes(inverse, axes, i);
        return normalized * channel_parameter(ctx, 1, x, i) + channel_parameter(ctx, 2, x, i);
    });
    auto schedule = [=](const Func& group_output, const std::vector<int64_t>& shape, const Target& target) {
        schedule_rows(group_output, shape, 2, {m.sum, m.squares}, {m.mean, inverse}, target);
    };
    return {{out}, schedule};
}

// Normalizes x over the axes from axis on, then scales (and shifts) it elementwise; the mean and the
// inverse standard deviation are optional outputs, with the normalized axes kept of size 1.
OpResult layer_normalization(const OpContext& ctx) {
    const TensorFunc& x = float_input(ctx, 0);
    const int first = normalize_axis(ctx, ctx.attributes().get_int("axis", -1), x.rank());
    const std::vector<int> axes = trailing_axes(first, x.rank());
    const std::vector<int64_t> normalized_shape(x.shape.begin() + first, x.shape.end());
    std::vector<int> parameters{1};
    if (ctx.has_input(2)) parameters.push_back(2);
    for (int p : parameters) {
        float_input(ctx, p);
        if (broadcast_shapes(ctx, {normalized_shape, ctx.input(p).shape}) != normalized_shape)
            TESSERA_GRAPH_ERROR(ctx) << "input " << p << " has shape " << shape_text(ctx.input(p).shape)
                                     << "; it must broadcast to the normalized shape "
                                     << shape_text(normalized_shape) << ".";
    }
    const Moments m = moments(ctx, x, axes);
    const TensorFunc inverse = inverse_deviation(ctx, x, m, ctx.attributes().get_float("epsilon", 1e-5f));
    auto parameter = [&](int p, const std::vector<Expr>& i) {
        return broadcast_read(ctx.input(p), std::vector<Expr>(i.begin() + first, i.end()), normalized_shape);
    };
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
        Expr y = (x(i) - read_without_axes(m.mean, axes, i)) * read_without_axes(inverse, axes, i) *
                 parameter(1, i);
        return ctx.has_input(2) ? y + parameter(2, i) : y;
    });
    std::vector<int64_t> statistics_shape(x.shape.begin(), x.shape.begin() + first);
    statistics_shape.resize(x.rank(), 1);
    auto statistic = [&](const std::string& name, const TensorFunc& t) {
        return define_tensor(ctx.func_name(name), x.type, statistics_shape,
                             [&](const std::vector<Expr>& i) { return read_without_axes(t, axes, i); });
    };
    auto schedule = [=](const Func& group_output, const std::vector<int64_t>& shape, const Target& target) {
        schedule_rows(group_output, shape, first, {m.sum, m.squares}, {m.mean, inverse}, target);
    };
    return {{out, statistic("mean_out", m.mean), statistic("inverse_deviation_out", inverse)}, schedule};
}

// (x - mean) / (standard deviation + 1e-9) over the axes (by default 0, 2 and 3).
OpResult mean_variance_normalization(const OpContext& ctx) {
    const TensorFunc& x = float_input(ctx, 0);
    const std::vector<int> axes = normalize_axes(ctx, ctx.attributes().get_ints("axes", {0, 2, 3}), x.rank());
    const Moments m = moments(ctx, x, axes);
    const Expr count = constant_like(x, double(m.squares.count()));
    const TensorFunc deviation = define_tensor(
        ctx.func_name("deviation"), x.type, m.squares.result.shape, [&](const std::vector<Expr>& i) {
            return sqrt(m.squares.result(i) / count) + constant_like(x, 1e-9);
        });
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
        return (x(i) - read_without_axes(m.mean, axes, i)) / read_without_axes(deviation, axes, i);
    });
    const int first = axes.empty() ? x.rank() : axes.front();
    auto schedule = [=](const Func& group_output, const std::vector<int64_t>& shape, const Target& target) {
        schedule_rows(group_output, shape, first, {m.sum, m.squares}, {m.mean, deviation}, target);
    };
    return {{out}, schedule};
}

}  // namespace

void register_normalization_operators() {
    register_operator({"BatchNormalization", OpKind::Elementwise, 5, 5, batch_normalization});
    register_operator({"InstanceNormalization", OpKind::Opaque, 3, 3, instance_normalization});
    register_operator({"LayerNormalization", OpKind::Opaque, 2, 3, layer_normalization});
    register_operator({"MeanVarianceNormalization", OpKind::Opaque, 1, 1, mean_variance_normalization});
}

}  // namespace tessera::graph
