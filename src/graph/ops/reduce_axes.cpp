// Reductions over axes and the schedules of the operators built on them (reduce_axes.h).

#include "graph/ops/reduce_axes.h"

#include <algorithm>

#include "graph/ops/default_schedules.h"

namespace tessera::graph {
namespace {

// Work below this is not worth sharing among threads.
constexpr int64_t min_parallel_elements = 1 << 15;

int64_t product_of(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

bool contains(const std::vector<int>& axes, int axis) {
    return std::find(axes.begin(), axes.end(), axis) != axes.end();
}

// The loops of a reduction over some axes of a tensor: a Var for each axis kept, an RVar for each
// axis reduced.
struct AxisLoops {
    std::vector<Var> kept;  // outermost first
    std::vector<int64_t> kept_shape;
    RDom domain;              // innermost first; undefined without reduced axes
    std::vector<Expr> index;  // of the tensor, outermost first: the Vars and RVars

    // The reduction's arguments, innermost first.
    std::vector<Var> args() const { return std::vector<Var>(kept.rbegin(), kept.rend()); }
};

AxisLoops axis_loops(const std::string& name, const std::vector<int64_t>& shape,
                     const std::vector<int>& axes) {
    AxisLoops loops;
    Region region;
    for (auto a = axes.rbegin(); a != axes.rend(); ++a) region.emplace_back(0, int(shape[*a]));
    if (!axes.empty()) loops.domain = RDom(region, name + "_r");
    int reduced = 0;
    for (int d = 0; d < int(shape.size()); d++) {
        if (contains(axes, d)) {
            loops.index.push_back(loops.domain[int(axes.size()) - 1 - reduced++]);
            continue;
        }
        loops.kept.emplace_back("d" + std::to_string(d));
        loops.kept_shape.push_back(shape[d]);
        loops.index.push_back(loops.kept.back());
    }
    return loops;
}

Expr identity_of(Reducer reducer, Type type) {
    switch (reducer) {
        case Reducer::Sum: return cast(type, 0);
        case Reducer::Product: return cast(type, 1);
        case Reducer::Max: return type.min();
        case Reducer::Min: return type.max();
    }
    return Expr();
}

Expr combine(Reducer reducer, Expr a, Expr b) {
    switch (reducer) {
        case Reducer::Sum: return a + b;
        case Reducer::Product: return a * b;
        case Reducer::Max: return max(a, b);
        case Reducer::Min: return min(a, b);
    }
    return Expr();
}

// The widest vector, of at most lanes and at least 4 elements, that divides a row of n elements:
// a ragged end, guarded, would still be read whole. 0 when there is none.
int vector_dividing(int64_t n, int lanes) {
    for (int width = lanes; width >= 4; width /= 2)
        if (n % width == 0) return width;
    return 0;
}

// Splits the reduction along the input's rows into a vector of partial results, each reducing every
// width-th element of the rows, which the update then combines (floating-point sums reassociated).
// Returns the Func of the partial results, for placing.
Func vectorize_along_rows(const AxisReduction& r, int width) {
    Stage update = Func(r.reduction).update();
    RVar outer_r("ro"), inner_r("ri");
    Var lane("lane");
    update.split(r.domain[0], outer_r, inner_r, width, TailStrategy::GuardWithIf);
    Func partial = update.rfactor(inner_r, lane);
    // The intermediate's loops over the rows, which its update names after the RDom.
    std::vector<VarOrRVar> order{lane, RVar(r.domain[0].name() + ".ro")};
    for (int i = 1; i < r.domain.dimensions(); i++) order.push_back(r.domain[i]);
    partial.update().reorder(order);
    // Each result's partial results side by side in memory, a vector.
    std::vector<Var> storage{lane};
    for (const Var& v : partial.args())
        if (v.name() != lane.name()) storage.push_back(v);
    partial.reorder_storage(storage);
    partial.vectorize(lane);
    partial.update().vectorize(lane);
    return partial;
}

// Computes a vector of results at a time along the input's innermost axis, which is kept: each
// lane reduces its own column. (Across rows, gathers are slower than a serial sum.)
void vectorize_across_results(const AxisReduction& r, const Var& innermost, int lanes) {
    Func f = r.reduction;
    std::vector<VarOrRVar> order{innermost};
    for (int i = 0; i < r.domain.dimensions(); i++) order.push_back(r.domain[i]);
    f.update().reorder(order);
    f.vectorize(innermost, lanes, TailStrategy::GuardWithIf);
    f.update().vectorize(innermost, lanes, TailStrategy::GuardWithIf);
}

}  // namespace

std::vector<int> normalize_axes(const OpContext& ctx, const std::vector<int64_t>& axes, int rank) {
    std::vector<int> out;
    for (int64_t a : axes) {
        const int axis = normalize_axis(ctx, a, rank);
        if (contains(out, axis)) TESSERA_GRAPH_ERROR(ctx) << "axis " << a << " is given twice.";
        out.push_back(axis);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int> trailing_axes(int first, int rank) {
    std::vector<int> axes;
    for (int a = first; a < rank; a++) axes.push_back(a);
    return axes;
}

Expr read_without_axes(const TensorFunc& t, const std::vector<int>& axes, const std::vector<Expr>& index) {
    std::vector<Expr> kept;
    for (int d = 0; d < int(index.size()); d++)
        if (!contains(axes, d)) kept.push_back(index[d]);
    return t(kept);
}

Expr AxisReduction::at(const std::vector<Expr>& input_index) const {
    return read_without_axes(result, axes, input_index);
}

int64_t AxisReduction::count() const {
    int64_t n = 1;
    for (int a : axes) n *= input_shape[a];
    return n;
}

AxisReduction reduce_over_axes(const std::string& name, Type type, const std::vector<int64_t>& shape,
                               const std::vector<int>& axes, Reducer reducer, const TensorValue& value) {
    const AxisLoops loops = axis_loops(name, shape, axes);
    Func f(name);
    Expr v = value(loops.index);
    if (v.type() != type) v = cast(type, v);
    if (axes.empty()) {
        f(loops.args()) = v;
    } else {
        f(loops.args()) = identity_of(reducer, type);
        f(loops.args()) = combine(reducer, Expr(f(loops.args())), v);
    }
    return AxisReduction{TensorFunc{f, type, loops.kept_shape}, f, loops.domain, axes, shape, true};
}

AxisReduction arg_extreme_over_axes(const std::string& name, const TensorFunc& x,
                                    const std::vector<int>& axes, bool largest, bool last_wins) {
    const AxisLoops loops = axis_loops(name, x.shape, axes);
    Expr position = 0;
    for (size_t k = 0; k < axes.size(); k++)
        position = position * int(x.shape[axes[k]]) + loops.index[axes[k]];
    std::vector<Expr> first = loops.index;
    for (int a : axes) first[a] = 0;
    Func best(name + "_best");
    best(loops.args()) = Tuple(Expr(0), x(first));
    const FuncRef current = best(loops.args());
    const Expr best_position = current[0], best_value = current[1];
    const Expr v = x(loops.index);
    const Expr better = largest ? (last_wins ? v >= best_value : v > best_value)
                                : (last_wins ? v <= best_value : v < best_value);
    best(loops.args()) = Tuple(select(better, position, best_position), select(better, v, best_value));
    TensorFunc result = define_tensor(name, Int(32), loops.kept_shape, [&](const std::vector<Expr>& index) {
        return Expr(best(std::vector<Expr>(index.rbegin(), index.rend()))[0]);
    });
    return AxisReduction{result, best, loops.domain, axes, x.shape, false};
}

void schedule_reduction(const AxisReduction& r, bool parallel, const Target& target) {
    if (!r.domain.defined()) return;
    Func f = r.reduction;
    const std::vector<Var> vars = f.args();  // innermost first
    const int lanes = target.natural_vector_size(f.type());
    const int64_t row_length = r.input_shape.back();
    const int64_t results_along_innermost = vars.empty() ? 1 : r.result.shape.back();
    const bool rows_reduced = r.axes.back() == int(r.input_shape.size()) - 1;
    const int width = vector_dividing(row_length, lanes);
    Func partial;
    bool across_results = false;
    if (rows_reduced && r.associative && width > 0) {
        partial = vectorize_along_rows(r, width);
    } else if (!rows_reduced && results_along_innermost >= lanes) {
        vectorize_across_results(r, vars[0], lanes);
        across_results = true;
    }
    // The loops over the results not in vectors, fused, in parallel.
    const size_t first_outer = across_results ? 1 : 0;
    Var innermost = vars.empty() ? Var() : vars[0];
    if (parallel && vars.size() > first_outer && product_of(r.input_shape) >= min_parallel_elements) {
        Stage update = f.update();
        Var outer = vars[first_outer];
        for (size_t i = first_outer + 1; i < vars.size(); i++) {
            Var fused("fused" + std::to_string(i));
            f.fuse(outer, vars[i], fused);
            update.fuse(outer, vars[i], fused);
            outer = fused;
        }
        f.parallel(outer);
        update.parallel(outer);
        if (!across_results) innermost = outer;
    }
    if (!partial.defined()) return;
    if (vars.empty())
        partial.compute_root();
    else
        partial.compute_at(f, innermost);
}

void schedule_rows(const Func& out, const std::vector<int64_t>& shape, int first_reduced,
                   const std::vector<AxisReduction>& statistics, const std::vector<TensorFunc>& per_row,
                   const Target& target) {
    const int rank = int(shape.size());
    int64_t rows = 1;
    for (int d = 0; d < std::min(first_reduced, rank); d++) rows *= shape[d];
    if (first_reduced <= 0 || first_reduced >= rank || rows == 1) {
        // No rows to share out: each statistic is computed whole, in parallel over what it keeps.
        for (const AxisReduction& s : statistics) {
            if (!s.domain.defined()) continue;
            Func(s.reduction).compute_root();
            schedule_reduction(s, true, target);
        }
        for (const TensorFunc& t : per_row) {
            Func(t.func).compute_root();
            schedule_elementwise(t.func, t.shape, target);
        }
        schedule_elementwise(out, shape, target);
        return;
    }
    Func f = out;
    const std::vector<Var> vars = f.args();  // innermost first
    Var row = vars[rank - first_reduced];
    for (int i = rank - first_reduced + 1; i < rank; i++) {
        Var fused("row" + std::to_string(i));
        f.fuse(row, vars[i], fused);
        row = fused;
    }
    const int lanes = target.natural_vector_size(f.type());
    if (shape.back() >= lanes) f.vectorize(vars[0], lanes, TailStrategy::GuardWithIf);
    if (product_of(shape) >= min_parallel_elements) f.parallel(row);
    for (const AxisReduction& s : statistics) {
        Func(s.reduction).compute_at(f, row);
        schedule_reduction(s, false, target);
    }
    for (const TensorFunc& t : per_row) {
        Func g = t.func;
        g.compute_at(f, row);
        if (t.rank() == rank && shape.back() >= lanes)
            g.vectorize(g.args()[0], lanes, TailStrategy::GuardWithIf);
    }
}

}  // namespace tessera::graph
