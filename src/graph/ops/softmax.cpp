// Softmax, LogSoftmax and Hardmax, on floating-point tensors: along one axis from opset 13 on;
// before, over the block of every axis from axis on, the input seen as a matrix.

#include "graph/ops/reduce_axes.h"

namespace tessera::graph {
namespace {

const TensorFunc& float_input(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    if (!x.type.is_float())
        TESSERA_GRAPH_ERROR(ctx) << "takes floating-point tensors, not " << type_name(x.type) << ".";
    return x;
}

// The axes the operator normalizes over, sorted.
std::vector<int> softmax_axes(const OpContext& ctx, int rank) {
    if (ctx.opset >= 13) return {normalize_axis(ctx, ctx.attributes().get_int("axis", -1), rank)};
    // The matrix's columns may be empty (axis = rank): each element is then a row of its own.
    const int64_t axis = ctx.attributes().get_int("axis", 1);
    return trailing_axes(axis == rank ? rank : normalize_axis(ctx, axis, rank), rank);
}

int first_axis(const std::vector<int>& axes, int rank) { return axes.empty() ? rank : axes.front(); }

// exp(x - max) / sum(exp(x - max)), or its logarithm, (x - max) - log(sum(exp(x - max))).
OpResult softmax(const OpContext& ctx, bool logarithm) {
    const TensorFunc& x = float_input(ctx);
    const std::vector<int> axes = softmax_axes(ctx, x.rank());
    AxisReduction largest = reduce_over_axes(ctx.func_name("max"), x.type, x.shape, axes, Reducer::Max,
                                             [&](const std::vector<Expr>& i) { return x(i); });
    TensorFunc exps = define_tensor(ctx.func_name("exp"), x.type, x.shape,
                                    [&](const std::vector<Expr>& i) { return exp(x(i) - largest.at(i)); });
    AxisReduction sum = reduce_over_axes(ctx.func_name("sum"), x.type, x.shape, axes, Reducer::Sum,
                                         [&](const std::vector<Expr>& i) { return exps(i); });
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
        if (logarithm) return x(i) - largest.at(i) - log(sum.at(i));
        return exps(i) / sum.at(i);
    });
    const int first = first_axis(axes, x.rank());
    // LogSoftmax reads the exponentials only in the sum, where they are best inlined.
    std::vector<TensorFunc> per_row;
    if (!logarithm) per_row.push_back(exps);
    auto schedule = [=](const Func& group_output, const std::vector<int64_t>& shape, const Target& target) {
        schedule_rows(group_output, shape, first, {largest, sum}, per_row, target);
    };
    return {{out}, schedule};
}

// 1 where x is largest over the axes (the first such element, row-major), 0 elsewhere.
OpResult hardmax(const OpContext& ctx) {
    const TensorFunc& x = float_input(ctx);
    const std::vector<int> axes = softmax_axes(ctx, x.rank());
    for (int a : axes)
        if (x.shape[a] == 0)
            return {{define_tensor(ctx.func_name(), x.type, x.shape, [](auto&) { return 0; })}, {}};
    if (axes.empty())  // each element is largest in a row of its own
        return {{define_tensor(ctx.func_name(), x.type, x.shape, [](auto&) { return 1; })}, {}};
    AxisReduction best = arg_extreme_over_axes(ctx.func_name("argmax"), x, axes, true, false);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, x.shape, [&](const std::vector<Expr>& i) {
        Expr position = 0;
        for (int a : axes) position = position * int(x.shape[a]) + i[a];
        return select(position == best.at(i), cast(x.type, 1), cast(x.type, 0));
    });
    const int first = first_axis(axes, x.rank());
    auto schedule = [=](const Func& group_output, const std::vector<int64_t>& shape, const Target& target) {
        schedule_rows(group_output, shape, first, {best}, {}, target);
    };
    return {{out}, schedule};
}

}  // namespace

void register_softmax_operators() {
    register_operator(
        {"Softmax", OpKind::Opaque, 1, 1, [](const OpContext& ctx) { return softmax(ctx, false); }});
    register_operator(
        {"LogSoftmax", OpKind::Opaque, 1, 1, [](const OpContext& ctx) { return softmax(ctx, true); }});
    register_operator({"Hardmax", OpKind::Opaque, 1, 1, hardmax});
}

}  // namespace tessera::graph
