// Reductions over axes: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, ArgMax and ArgMin.

#include <algorithm>

#include "graph/ops/default_schedules.h"
#include "graph/ops/reduce_axes.h"

namespace tessera::graph {
namespace {

bool contains(const std::vector<int>& axes, int axis) {
    return std::find(axes.begin(), axes.end(), axis) != axes.end();
}

// What a Reduce* operator computes: each element mapped, the results reduced, the reduction finished
// (given how many elements it reduced).
struct ReduceSpec {
    Reducer reducer;
    Expr (*element)(Expr);
    Expr (*finish)(Expr total, Expr count);
    bool float_only = false;
};

Expr same(Expr x) { return x; }
Expr square(Expr x) { return x * x; }
Expr absolute(Expr x) { return cast(x.type(), abs(x)); }
Expr total(Expr t, Expr) { return t; }
// Integer means truncate, as C++ (and onnxruntime) divide.
Expr mean(Expr t, Expr n) {
    return t.type().is_float() ? t / cast(t.type(), n) : div_round_to_zero(t, cast(t.type(), n));
}
Expr square_root(Expr t, Expr) { return sqrt(t); }
Expr logarithm(Expr t, Expr) { return log(t); }

// The axes a Reduce* node names: its axes input (ReduceSum's from opset 13, the others' from 18)
// or its axes attribute (before); none when it names none.
std::vector<int64_t> named_axes(const OpContext& ctx) {
    if (!ctx.has_input(1)) return ctx.attributes().get_ints("axes", {});
    const TensorFunc& axes = ctx.input(1);
    if (axes.rank() != 1) TESSERA_GRAPH_ERROR(ctx) << "the axes (input 1) must be a list, of rank 1.";
    if (axes.elements() == 0) return {};
    if (!ctx.constant_data[1]) {
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "the axes (input 1) depend on the model's inputs; they must be known "
               "when the model is compiled (a constant, or computed from "
               "constants and shapes).";
    }
    return ctx.constant_data[1]->to_int64s();
}

// The axes a Reduce* node reduces: those named, or with none named, every axis (none with
// noop_with_empty_axes).
std::vector<int> reduced_axes(const OpContext& ctx, int rank) {
    const std::vector<int64_t> named = named_axes(ctx);
    if (!named.empty()) return normalize_axes(ctx, named, rank);
    if (ctx.attributes().get_int("noop_with_empty_axes", 0) != 0) return {};
    return trailing_axes(0, rank);
}

// A reduction operator's output: value, given an index of the input's shape, for every element;
// with keepdims the reduced axes stay, of size 1. Scheduled with its reductions computed first.
OpResult reduction_output(const OpContext& ctx, const std::vector<AxisReduction>& made, Type type,
                          const TensorValue& value) {
    const AxisReduction& r = made.front();
    const bool keepdims = ctx.attributes().get_int("keepdims", 1) != 0;
    std::vector<int64_t> shape;
    for (int d = 0; d < int(r.input_shape.size()); d++) {
        if (!contains(r.axes, d))
            shape.push_back(r.input_shape[d]);
        else if (keepdims)
            shape.push_back(1);
    }
    TensorFunc out = define_tensor(ctx.func_name(), type, shape, [&](const std::vector<Expr>& index) {
        if (keepdims) return value(index);
        std::vector<Expr> input_index;
        for (int d = 0, k = 0; d < int(r.input_shape.size()); d++)
            input_index.push_back(contains(r.axes, d) ? Expr(0) : index[k++]);
        return value(input_index);
    });
    auto schedule = [made](const Func& group_output, const std::vector<int64_t>& shape,
                           const Target& target) {
        for (const AxisReduction& m : made) {
            if (!m.domain.defined()) continue;
            Func(m.reduction).compute_root();
            schedule_reduction(m, true, target);
        }
        schedule_elementwise(group_output, shape, target);
    };
    return {{out}, schedule};
}

const TensorFunc& numeric_input(const OpContext& ctx, bool float_only) {
    const TensorFunc& x = ctx.input(0);
    if (x.type.is_bool())
        TESSERA_GRAPH_UNSUPPORTED(ctx) << "reducing bool tensors is not supported (numbers are).";
    if (float_only && !x.type.is_float()) {
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "reducing " << type_name(x.type) << " tensors is not supported (float and double are).";
    }
    return x;
}

OpResult reduce(const OpContext& ctx, const ReduceSpec& spec) {
    const TensorFunc& x = numeric_input(ctx, spec.float_only);
    const std::vector<int> axes = reduced_axes(ctx, x.rank());
    AxisReduction r = reduce_over_axes(ctx.func_name("reduce"), x.type, x.shape, axes, spec.reducer,
                                       [&](const std::vector<Expr>& i) { return spec.element(x(i)); });
    const Expr count = cast(x.type, Expr(double(r.count())));
    return reduction_output(ctx, {r}, x.type,
                            [&](const std::vector<Expr>& i) { return spec.finish(r.at(i), count); });
}

// log(sum(exp(x))), as m + log(sum(exp(x - m))) with m the largest x, so that exp cannot overflow.
OpResult reduce_log_sum_exp(const OpContext& ctx) {
    const TensorFunc& x = numeric_input(ctx, true);
    const std::vector<int> axes = reduced_axes(ctx, x.rank());
    AxisReduction largest = reduce_over_axes(ctx.func_name("max"), x.type, x.shape, axes, Reducer::Max,
                                             [&](const std::vector<Expr>& i) { return x(i); });
    // With every x infinite (or none), the shift is 0 and the sum says what the result is.
    auto shift = [&](const std::vector<Expr>& i) {
        Expr m = largest.at(i);
        return select(is_finite(m), m, cast(x.type, 0));
    };
    AxisReduction sum = reduce_over_axes(ctx.func_name("sum"), x.type, x.shape, axes, Reducer::Sum,
                                         [&](const std::vector<Expr>& i) { return exp(x(i) - shift(i)); });
    return reduction_output(ctx, {largest, sum}, x.type,
                            [&](const std::vector<Expr>& i) { return log(sum.at(i)) + shift(i); });
}

OpResult arg_extreme(const OpContext& ctx, bool largest) {
    const TensorFunc& x = numeric_input(ctx, false);
    const int axis = normalize_axis(ctx, ctx.attributes().get_int("axis", 0), x.rank());
    if (x.shape[axis] == 0)
        TESSERA_GRAPH_ERROR(ctx) << "axis " << axis << " has size 0: there is no element to choose.";
    const bool last = ctx.attributes().get_int("select_last_index", 0) != 0;
    AxisReduction r = arg_extreme_over_axes(ctx.func_name("arg"), x, {axis}, largest, last);
    return reduction_output(ctx, {r}, Int(64),
                            [&](const std::vector<Expr>& i) { return cast(Int(64), r.at(i)); });
}

void reduction(const std::string& name, ReduceSpec spec) {
    register_operator(
        {name, OpKind::Opaque, 1, 2, [spec](const OpContext& ctx) { return reduce(ctx, spec); }});
}

}  // namespace

void register_reduction_operators() {
    reduction("ReduceSum", {Reducer::Sum, same, total});
    reduction("ReduceMean", {Reducer::Sum, same, mean});
    reduction("ReduceMax", {Reducer::Max, same, total});
    reduction("ReduceMin", {Reducer::Min, same, total});
    reduction("ReduceProd", {Reducer::Product, same, total});
    reduction("ReduceL1", {Reducer::Sum, absolute, total});
    reduction("ReduceL2", {Reducer::Sum, square, square_root, true});
    reduction("ReduceLogSum", {Reducer::Sum, same, logarithm, true});
    reduction("ReduceSumSquare", {Reducer::Sum, square, total});
    register_operator({"ReduceLogSumExp", OpKind::Opaque, 1, 2, reduce_log_sum_exp});
    register_operator(
        {"ArgMax", OpKind::Opaque, 1, 1, [](const OpContext& ctx) { return arg_extreme(ctx, true); }});
    register_operator(
        {"ArgMin", OpKind::Opaque, 1, 1, [](const OpContext& ctx) { return arg_extreme(ctx, false); }});
}

}  // namespace tessera::graph
