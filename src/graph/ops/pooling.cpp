// Pooling over the spatial axes of a tensor of shape (N, C, spatial...): GlobalAveragePool,
// GlobalMaxPool and GlobalLpPool reduce every spatial axis; AveragePool, MaxPool and LpPool reduce
// a window that slides over them. Reads outside the input (padding) never happen: coordinates
// are clamped into the input and the value masked with the reduction's identity (-infinity, or
// the type's lowest value, for MaxPool; 0 for the others).

#include <functional>

#include "graph/ops/operator.h"
#include "tessera/boundary_conditions.h"

namespace tessera::graph {
namespace {

enum class Pool { Average, Max, Lp };

struct PoolKind {
    Pool pool;
    int64_t p = 2;  // LpPool's exponent
};

// Below this many input elements, a pool is not worth the wake-up of threads.
constexpr int64_t min_parallel_elements = 1 << 15;

Expr identity_of(const PoolKind& kind, Type t) { return kind.pool == Pool::Max ? t.min() : cast(t, 0); }

// What an input element adds to the reduction.
Expr term_of(const PoolKind& kind, Expr v) {
    if (kind.pool != Pool::Lp) return v;
    if (kind.p == 1) return abs(v);
    if (kind.p == 2) return v * v;
    return pow(abs(v), cast(v.type(), double(kind.p)));
}

Expr combine(const PoolKind& kind, Expr acc, Expr term) {
    return kind.pool == Pool::Max ? max(acc, term) : acc + term;
}

// The pool's value from its reduction over count elements.
Expr finish(const PoolKind& kind, Expr acc, Expr count) {
    switch (kind.pool) {
        case Pool::Average: return acc / cast(acc.type(), count);
        case Pool::Max: return acc;
        case Pool::Lp:
            if (kind.p == 1) return acc;
            if (kind.p == 2) return sqrt(acc);
            return pow(acc, cast(acc.type(), 1.0 / double(kind.p)));
    }
    return acc;
}

void check_pool_input(const OpContext& ctx, const PoolKind& kind) {
    const TensorFunc& x = ctx.input(0);
    if (x.rank() < 3)
        TESSERA_GRAPH_ERROR(ctx) << "the input has rank " << x.rank()
                                 << "; pooling takes (N, C, spatial...) with at least one spatial axis.";
    if (kind.pool != Pool::Max && !x.type.is_float())
        TESSERA_GRAPH_ERROR(ctx) << "takes floating-point tensors, not " << type_name(x.type) << ".";
    if (x.type.is_bool()) TESSERA_GRAPH_ERROR(ctx) << "takes numbers, not bool.";
    if (kind.pool == Pool::Lp && kind.p < 1)
        TESSERA_GRAPH_ERROR(ctx) << "p is " << kind.p << "; it must be at least 1.";
}

PoolKind lp_kind(const OpContext& ctx) { return {Pool::Lp, ctx.attributes().get_int("p", 2)}; }

// A Func of the given shape defined by init and one update over the RDom that value reads:
// acc(index) = combine(acc(index), value(index)) at every point of the RDom.
TensorFunc accumulate(const std::string& name, Type type, const std::vector<int64_t>& shape,
                      const PoolKind& kind, const std::function<Expr(const std::vector<Expr>&)>& value) {
    std::vector<Var> vars;  // outermost first
    for (size_t i = 0; i < shape.size(); i++) vars.emplace_back("d" + std::to_string(i));
    const std::vector<Var> args(vars.rbegin(), vars.rend());
    Func acc(name);
    acc(args) = identity_of(kind, type);
    acc(args) = combine(kind, acc(args), value(std::vector<Expr>(vars.begin(), vars.end())));
    return TensorFunc{acc, type, shape};
}

// Fuses the loops over every axis of f but the innermost into one (the output's rows), run in
// parallel when work elements (of the input) are worth it; returns it.
Var fuse_rows(Func f, const std::vector<Var>& vars_innermost_first, int64_t work) {
    Var rows = vars_innermost_first[1];
    for (size_t i = 2; i < vars_innermost_first.size(); i++) {
        Var fused(rows.name() + "_" + vars_innermost_first[i].name());
        f.fuse(rows, vars_innermost_first[i], fused);
        rows = fused;
    }
    if (work >= min_parallel_elements) f.parallel(rows);
    return rows;
}

// ---- Global pools ----

// Each channel (n, c) where the output needs it, channels in parallel; rows (when there is more
// than one spatial axis) in vectors along w.
void schedule_global_pool(const Func& output, const Func& rows, const RDom& outer_axes, const Func& total,
                          int spatial, const Target& target, int64_t work) {
    Func f = output, r = rows, t = total;
    std::vector<Var> vars = f.args();  // the unit spatial axes, then c, n
    Var channel("channel");
    f.fuse(vars[spatial], vars[spatial + 1], channel);
    if (work >= min_parallel_elements) f.parallel(channel);
    t.compute_at(f, channel);
    if (!r.defined()) return;
    r.compute_at(f, channel);
    const int lanes = target.natural_vector_size(r.type());
    Var w = r.args()[0];
    r.vectorize(w, lanes, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order = {w};
    for (int d = 0; d < outer_axes.dimensions(); d++) order.push_back(outer_axes[d]);
    r.update().reorder(order).vectorize(w, lanes, TailStrategy::GuardWithIf);
}

// Global pools reduce in two steps, so that both read the input densely and the first runs in
// vectors along the innermost axis: rows(n, c, w) reduces the outer spatial axes, total(n, c)
// then reduces w. Each channel is computed where the output needs it, channels in parallel.
OpResult global_pool(const OpContext& ctx, const PoolKind& kind) {
    check_pool_input(ctx, kind);
    const TensorFunc& x = ctx.input(0);
    const int spatial = x.rank() - 2;
    const int64_t width = x.shape.back();
    int64_t plane = 1;
    for (int i = 2; i < x.rank(); i++) plane *= x.shape[i];

    TensorFunc rows = x;
    RDom outer_axes;
    if (spatial > 1) {
        Region region;  // innermost first: the spatial axes but the last, from the inside out
        for (int i = x.rank() - 2; i >= 2; i--) region.emplace_back(0, int(x.shape[i]));
        outer_axes = RDom(region, ctx.func_name("outer_axes"));
        rows = accumulate(ctx.func_name("rows"), x.type, {x.shape[0], x.shape[1], width}, kind,
                          [&](const std::vector<Expr>& i) {
                              std::vector<Expr> at = {i[0], i[1]};
                              for (int d = outer_axes.dimensions() - 1; d >= 0; d--)
                                  at.push_back(outer_axes[d]);
                              at.push_back(i[2]);
                              return term_of(kind, x(at));
                          });
    }
    RDom across(0, int(width), ctx.func_name("across"));
    TensorFunc total = accumulate(ctx.func_name("total"), x.type, {x.shape[0], x.shape[1]}, kind,
                                  [&](const std::vector<Expr>& i) {
                                      Expr v = rows({i[0], i[1], across});
                                      return spatial > 1 ? v : term_of(kind, v);
                                  });
    std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
    shape.resize(x.rank(), 1);
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& i) {
        return finish(kind, total({i[0], i[1]}), Expr(int(plane)));
    });

    Func rows_func = spatial > 1 ? rows.func : Func();
    Func total_func = total.func;
    const int64_t work = x.elements();
    auto schedule = [=](const Func& output, const std::vector<int64_t>&, const Target& target) {
        schedule_global_pool(output, rows_func, outer_axes, total_func, spatial, target, work);
    };
    return {{out}, schedule};
}

// ---- Sliding-window pools ----

// A pool's window along each spatial axis (outermost first), with ONNX's attributes resolved.
struct Window {
    std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end, input, output;
    int axes() const { return int(kernel.size()); }
    // The extent of the input one window spans along axis a.
    int64_t span(int a) const { return (kernel[a] - 1) * dilations[a] + 1; }
    // Where the window of output coordinate 0 (first), and of the last one, start and end.
    int64_t first_start(int a) const { return -pads_begin[a]; }
    int64_t last_end(int a) const { return (output[a] - 1) * strides[a] - pads_begin[a] + span(a); }
    // Whether some window reaches outside the input along axis a.
    bool reads_outside(int a) const { return first_start(a) < 0 || last_end(a) > input[a]; }
};

// Whether the one window is the whole input, unpadded: a global pool, reduced as one.
bool covers_whole_input(const Window& w) {
    for (int a = 0; a < w.axes(); a++)
        if (w.output[a] != 1 || w.kernel[a] != w.input[a] || w.pads_begin[a] != 0 || w.pads_end[a] != 0)
            return false;
    return true;
}

std::vector<int64_t> per_axis(const OpContext& ctx, const char* name, int axes, int64_t fallback) {
    std::vector<int64_t> v = ctx.attributes().get_ints(name, std::vector<int64_t>(axes, fallback));
    if (int(v.size()) != axes)
        TESSERA_GRAPH_ERROR(ctx) << name << " has " << v.size() << " values; the input has " << axes
                                 << " spatial axes.";
    for (int64_t e : v)
        if (e < 1) TESSERA_GRAPH_ERROR(ctx) << name << " holds " << e << "; each must be at least 1.";
    return v;
}

// The output size along axis a from explicit pads; ceil_mode rounds up, but no window may start
// past the input and its leading padding, as PyTorch and ONNX's reference implementation say.
int64_t explicit_output_size(const OpContext& ctx, const Window& w, int a, bool ceil_mode) {
    const int64_t room = w.input[a] + w.pads_begin[a] + w.pads_end[a] - w.span(a);
    if (room < 0)
        TESSERA_GRAPH_ERROR(ctx) << "the window spans " << w.span(a) << " elements along spatial axis " << a
                                 << ", more than the input's " << w.input[a] << " and its padding.";
    int64_t size = (ceil_mode ? (room + w.strides[a] - 1) / w.strides[a] : room / w.strides[a]) + 1;
    if (ceil_mode && (size - 1) * w.strides[a] >= w.input[a] + w.pads_begin[a]) size--;
    return size;
}

Window window_of(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const int axes = x.rank() - 2;
    const Attributes& at = ctx.attributes();
    if (!at.has("kernel_shape")) TESSERA_GRAPH_ERROR(ctx) << "kernel_shape is required.";
    Window w;
    w.kernel = per_axis(ctx, "kernel_shape", axes, 1);
    w.strides = per_axis(ctx, "strides", axes, 1);
    w.dilations = per_axis(ctx, "dilations", axes, 1);
    w.input.assign(x.shape.begin() + 2, x.shape.end());
    const std::string auto_pad = at.get_string("auto_pad", "NOTSET");
    const bool ceil_mode = at.get_int("ceil_mode", 0) != 0;
    if (auto_pad == "NOTSET" || auto_pad == "VALID") {
        std::vector<int64_t> pads(2 * axes, 0);
        if (auto_pad == "NOTSET") pads = at.get_ints("pads", pads);
        if (int(pads.size()) != 2 * axes)
            TESSERA_GRAPH_ERROR(ctx) << "pads has " << pads.size() << " values; the input has " << axes
                                     << " spatial axes, so it needs " << 2 * axes << ".";
        for (int64_t p : pads)
            if (p < 0) TESSERA_GRAPH_ERROR(ctx) << "pads holds " << p << "; pads must not be negative.";
        w.pads_begin.assign(pads.begin(), pads.begin() + axes);
        w.pads_end.assign(pads.begin() + axes, pads.end());
        for (int a = 0; a < axes; a++) w.output.push_back(explicit_output_size(ctx, w, a, ceil_mode));
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        // The output covers the input at the stride; the padding that takes is split evenly, the
        // odd element at the end (SAME_UPPER) or the beginning (SAME_LOWER).
        for (int a = 0; a < axes; a++) {
            const int64_t size = (w.input[a] + w.strides[a] - 1) / w.strides[a];
            const int64_t total = std::max<int64_t>(0, (size - 1) * w.strides[a] + w.span(a) - w.input[a]);
            const int64_t begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.output.push_back(size);
            w.pads_begin.push_back(begin);
            w.pads_end.push_back(total - begin);
        }
    } else {
        TESSERA_GRAPH_ERROR(ctx) << "auto_pad is " << auto_pad
                                 << "; it must be NOTSET, VALID, SAME_UPPER or SAME_LOWER.";
    }
    return w;
}

// How many of the window elements of output coordinate o along axis a lie in [lo, hi).
Expr elements_inside(const Window& w, int a, Expr o, int64_t lo, int64_t hi) {
    const int k = int(w.kernel[a]), d = int(w.dilations[a]);
    Expr start = o * int(w.strides[a]) - int(w.pads_begin[a]);
    Expr first = max(0, (int(lo) - start + (d - 1)) / d);  // floor division
    Expr last = min(k - 1, (int(hi) - 1 - start) / d);
    return max(0, last - first + 1);
}

// AveragePool's divisor at an output index: the window's elements in the input, or, with
// count_include_pad, those in the input and its padding.
Expr average_divisor(const Window& w, const std::vector<Expr>& index, bool count_include_pad) {
    Expr count = 1;
    for (int a = 0; a < w.axes(); a++) {
        const int64_t lo = count_include_pad ? -w.pads_begin[a] : 0;
        const int64_t hi = w.input[a] + (count_include_pad ? w.pads_end[a] : 0);
        const bool whole = w.first_start(a) >= lo && w.last_end(a) <= hi;
        count = count * (whole ? Expr(int(w.kernel[a])) : elements_inside(w, a, index[2 + a], lo, hi));
    }
    return count;
}

// The input read at the window element r of an output index.
std::vector<Expr> window_element(const Window& w, const std::vector<Expr>& index, const RDom& r) {
    std::vector<Expr> at = index;
    for (int a = 0; a < w.axes(); a++)
        at[2 + a] = index[2 + a] * int(w.strides[a]) - int(w.pads_begin[a]) +
                    r[w.axes() - 1 - a] * int(w.dilations[a]);
    return at;
}

// x where windows read inside it; where they reach outside, x extended by value beyond its spatial
// bounds (clamped reads, masked).
TensorFunc padded(const TensorFunc& x, const Window& w, Expr value) {
    bool outside = false;
    for (int a = 0; a < w.axes(); a++) outside = outside || w.reads_outside(a);
    if (!outside) return x;
    Region bounds;  // innermost first; an axis whose windows all lie inside the input is left unbounded
    for (int a = w.axes() - 1; a >= 0; a--)
        bounds.push_back(w.reads_outside(a) ? Range(0, int(w.input[a])) : Range());
    return TensorFunc{BoundaryConditions::constant_exterior(x.func, value, bounds), x.type, x.shape};
}

RDom window_domain(const OpContext& ctx, const Window& w) {
    Region region;  // innermost first
    for (int a = w.axes() - 1; a >= 0; a--) region.emplace_back(0, int(w.kernel[a]));
    return RDom(region, ctx.func_name("window"));
}

std::vector<int64_t> output_shape(const TensorFunc& x, const Window& w) {
    std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
    shape.insert(shape.end(), w.output.begin(), w.output.end());
    return shape;
}

// Windows of up to this many elements are unrolled.
constexpr int64_t max_unrolled_window = 32;

// Small windows: scalar loops along the innermost output axis with the window unrolled, which
// LLVM's loop vectorizer turns into vectors that read strided windows with dense loads and
// shuffles (Tessera's vectors would gather); where windows reach outside the input, its padded
// rows are first computed in Tessera's vectors for each output row, so that the windows read no
// clamps or masks. Large windows: Tessera's vectors along the innermost axis, each vector of
// outputs reducing its windows in registers. Output rows in parallel.
void schedule_window_pool(const Func& output, const Func& acc, const Func& padded_input, const RDom& r,
                          int64_t window, const std::vector<int64_t>& shape, const Target& target,
                          int64_t work) {
    Func f = output, a = acc;
    std::vector<Var> vars = f.args();
    const Var rows = fuse_rows(f, vars, work);
    const int lanes = target.natural_vector_size(f.type());
    if (window <= max_unrolled_window) {
        a.compute_at(f, vars[0]);
        for (int d = 0; d < r.dimensions(); d++) a.update().unroll(r[d]);
        if (!padded_input.defined()) return;
        Func p = padded_input;
        p.compute_at(f, rows).vectorize(p.args()[0], lanes, TailStrategy::GuardWithIf);
        return;
    }
    if (shape.back() < lanes) {
        a.compute_at(f, vars[0]);
        return;
    }
    Var outer(vars[0].name() + "o"), inner(vars[0].name() + "i");
    f.split(vars[0], outer, inner, lanes, TailStrategy::ShiftInwards).vectorize(inner);
    a.compute_at(f, outer);
    Var aw = a.args()[0];
    a.bound_extent(aw, lanes).vectorize(aw, lanes);
    std::vector<VarOrRVar> order = {aw};
    for (int d = 0; d < r.dimensions(); d++) order.push_back(r[d]);
    a.update().reorder(order).vectorize(aw, lanes);
}

// MaxPool with its Indices output: the first maximum of each window and where it is in the input,
// as an index into the input flattened (row-major, or with storage_order 1 column-major over the
// spatial axes). Scheduled as the graph layer schedules a group of several outputs.
OpResult max_pool_with_indices(const OpContext& ctx, const TensorFunc& x, const Window& w) {
    const int64_t storage_order = ctx.attributes().get_int("storage_order", 0);
    if (storage_order != 0 && storage_order != 1)
        TESSERA_GRAPH_ERROR(ctx) << "storage_order is " << storage_order << "; it must be 0 or 1.";
    const Expr lowest = x.type.min();
    const TensorFunc source = padded(x, w, lowest);
    const RDom r = window_domain(ctx, w);
    const std::vector<int64_t> shape = output_shape(x, w);
    std::vector<Var> vars;  // outermost first
    for (size_t i = 0; i < shape.size(); i++) vars.emplace_back("d" + std::to_string(i));
    const std::vector<Var> args(vars.rbegin(), vars.rend());
    const std::vector<Expr> index(vars.begin(), vars.end());
    // best(index): the window element (innermost first) of the first maximum, then the maximum.
    Func best(ctx.func_name("first_maximum"));
    std::vector<Expr> initial(w.axes(), Expr(0));
    initial.push_back(lowest);
    best(args) = Tuple(initial);
    const Expr v = source(window_element(w, index, r));
    const Expr better = v > best(args)[w.axes()];
    std::vector<Expr> updated;
    for (int d = 0; d < w.axes(); d++) updated.push_back(select(better, Expr(r[d]), Expr(best(args)[d])));
    updated.push_back(select(better, v, Expr(best(args)[w.axes()])));
    best(args) = Tuple(updated);

    TensorFunc values = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& i) {
        return Expr(best(std::vector<Expr>(i.rbegin(), i.rend()))[w.axes()]);
    });
    TensorFunc indices =
        define_tensor(ctx.func_name("indices"), Int(64), shape, [&](const std::vector<Expr>& i) {
            const FuncRef at = best(std::vector<Expr>(i.rbegin(), i.rend()));
            Expr flat = cast(Int(64), i[0]) * Expr(x.shape[1]) + cast(Int(64), i[1]);
            Expr spatial = cast(Int(64), 0);
            for (int k = 0; k < w.axes(); k++) {
                // Row-major: the outermost spatial axis first; column-major: the innermost.
                const int a = storage_order == 0 ? k : w.axes() - 1 - k;
                Expr coordinate = i[2 + a] * int(w.strides[a]) - int(w.pads_begin[a]) +
                                  Expr(at[w.axes() - 1 - a]) * int(w.dilations[a]);
                coordinate = clamp(coordinate, 0, int(w.input[a]) - 1);
                spatial = spatial * Expr(w.input[a]) + cast(Int(64), coordinate);
            }
            int64_t plane = 1;
            for (int64_t e : w.input) plane *= e;
            return flat * Expr(plane) + spatial;
        });
    return {{values, indices}, {}};
}

OpResult window_pool(const OpContext& ctx, const PoolKind& kind) {
    check_pool_input(ctx, kind);
    const TensorFunc& x = ctx.input(0);
    const Window w = window_of(ctx);
    if (ctx.node.outputs.size() > 1) {
        if (kind.pool != Pool::Max)
            TESSERA_GRAPH_ERROR(ctx) << "has one output, not " << ctx.node.outputs.size() << ".";
        return max_pool_with_indices(ctx, x, w);
    }
    if (covers_whole_input(w)) return global_pool(ctx, kind);
    const TensorFunc source = padded(x, w, identity_of(kind, x.type));
    const RDom r = window_domain(ctx, w);
    const std::vector<int64_t> shape = output_shape(x, w);
    TensorFunc acc = accumulate(
        ctx.func_name("reduction"), x.type, shape, kind,
        [&](const std::vector<Expr>& i) { return term_of(kind, source(window_element(w, i, r))); });
    const bool count_include_pad = ctx.attributes().get_int("count_include_pad", 0) != 0;
    TensorFunc out = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& i) {
        return finish(kind, acc(i),
                      kind.pool == Pool::Average ? average_divisor(w, i, count_include_pad) : Expr(1));
    });
    Func acc_func = acc.func;
    int64_t window_elements = 1;
    for (int64_t k : w.kernel) window_elements *= k;
    const int64_t work = out.elements() * window_elements;
    Func padded_input = source.func.name() == x.func.name() ? Func() : source.func;
    auto schedule = [=](const Func& output, const std::vector<int64_t>& s, const Target& target) {
        schedule_window_pool(output, acc_func, padded_input, r, window_elements, s, target, work);
    };
    return {{out}, schedule};
}

}  // namespace

void register_pooling_operators() {
    register_operator({"GlobalAveragePool", OpKind::Opaque, 1, 1,
                       [](const OpContext& ctx) { return global_pool(ctx, {Pool::Average}); }});
    register_operator({"GlobalMaxPool", OpKind::Opaque, 1, 1,
                       [](const OpContext& ctx) { return global_pool(ctx, {Pool::Max}); }});
    register_operator({"GlobalLpPool", OpKind::Opaque, 1, 1,
                       [](const OpContext& ctx) { return global_pool(ctx, lp_kind(ctx)); }});
    register_operator({"AveragePool", OpKind::Opaque, 1, 1,
                       [](const OpContext& ctx) { return window_pool(ctx, {Pool::Average}); }});
    register_operator({"MaxPool", OpKind::Opaque, 1, 1,
                       [](const OpContext& ctx) { return window_pool(ctx, {Pool::Max}); }});
    register_operator({"LpPool", OpKind::Opaque, 1, 1,
                       [](const OpContext& ctx) { return window_pool(ctx, lp_kind(ctx)); }});
}

}  // namespace tessera::graph
