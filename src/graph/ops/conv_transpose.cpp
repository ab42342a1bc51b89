// ConvTranspose over 1 to 3 spatial dimensions, with groups, strides, dilations, pads and
// output padding: every input pixel scatters its kernel into the output. Defined as a gather, each
// output pixel summing, in a chain of fused multiply-adds over the input channels (as a matrix
// product computes it), the input pixels whose kernel reaches it.
//
// Where the kernel equals the stride, without padding or dilation (the upsampling of decoders),
// exactly one tap reaches each output pixel, and which one depends only on the pixel's position
// modulo the stride: the sums are then computed per tap, in the input's grid, as dense vectors, and
// the output interleaves them.

#include <algorithm>

#include "graph/ops/convolution_geometry.h"
#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

struct ConvTransposeShape {
    int64_t in_per_group, out_per_group;
};

// Whether one kernel tap reaches each output pixel.
bool one_tap(const ConvGeometry& g, const std::vector<int64_t>& x_shape) {
    for (int d = 0; d < g.spatial_rank(); d++) {
        if (g.kernel[d] != g.strides[d] || g.dilations[d] != 1 || g.pads_begin[d] != 0 ||
            g.output_shape[2 + d] != x_shape[2 + d] * g.strides[d])
            return false;
    }
    return true;
}

// The input channel a sum reads, and the weights' output channel: without groups, no group
// arithmetic (the simplifier cannot drop it without knowing the output channel's range).
Expr input_channel(const ConvGeometry& g, const ConvTransposeShape& c, const Expr& out_channel,
                   const Expr& r) {
    if (g.groups == 1) return r;
    return out_channel / int(c.out_per_group) * int(c.in_per_group) + r;
}

Expr weight_channel(const ConvGeometry& g, const ConvTransposeShape& c, const Expr& out_channel) {
    return g.groups == 1 ? out_channel : out_channel % int(c.out_per_group);
}

TensorFunc with_bias(const OpContext& ctx, const TensorFunc& sums, const std::vector<int64_t>& shape,
                     const std::function<Expr(const std::vector<Expr>&)>& sum_at) {
    return define_tensor(ctx.func_name(), sums.type, shape, [&](const std::vector<Expr>& i) {
        return ctx.has_input(2) ? sum_at(i) + ctx.input(2)({i[1]}) : sum_at(i);
    });
}

// What the schedule of the one-tap form needs of its definition.
struct OneTapSums {
    Func sums;  // taps: n, c, outer spatial..., kx, ix
    RDom r;     // over the input channels of a group
    int stride, spatial;
    int64_t in_width;
};

// A row of the output at a time, its taps' sums in registers: a vector of input columns by every
// tap, the input channels inside.
void schedule_one_tap(const Func& output, const std::vector<int64_t>& shape, const Target& t,
                      const OneTapSums& s) {
    const auto [sums, r, stride, spatial, in_width] = s;
    const int lanes = t.natural_vector_size(Float(32));
    std::vector<Var> v = output.args();  // innermost first: x, y..., channel, batch
    Func o = output;
    if (shape.back() >= lanes) o.vectorize(v[0], lanes, TailStrategy::GuardWithIf);
    // Rows of every channel in tasks of a few thousand outputs: a detector's last upsampling has
    // one channel.
    Var rows = v[v.size() - 2];
    if (spatial == 2) {
        rows = Var("channel_rows");
        o.fuse(v[1], v[2], rows);
    }
    int64_t per_iteration = 1;  // outputs per iteration of rows
    for (size_t d = spatial == 2 ? shape.size() - 1 : 2; d < shape.size(); d++) per_iteration *= shape[d];
    // The last task shifted inwards: a guard would leave the taps computed per row reading past
    // the last channel (a group ending in a convolution never writes in place, so computing a few
    // rows twice is harmless).
    Var tasks("tasks"), row("row");
    const int64_t iterations = shape[1] * (spatial == 2 ? shape[2] : 1);
    const int64_t per_task = std::clamp<int64_t>(8192 / per_iteration, 1, iterations);
    o.split(rows, tasks, row, int(per_task), TailStrategy::ShiftInwards).parallel(tasks);
    Func f = sums;
    std::vector<Var> fv = f.args();  // ix, kx, outer spatial..., channel, batch
    const Var at = spatial > 2 ? v[1] : row;
    f.compute_at(o, at).bound(fv[1], 0, stride);
    Var ixo("ixo"), ixi("ixi");
    Stage update = f.update();
    if (in_width >= lanes) {
        f.vectorize(fv[0], lanes, TailStrategy::GuardWithIf);
        update.split(fv[0], ixo, ixi, lanes, TailStrategy::GuardWithIf)
            .reorder(ixi, fv[1], r.x, ixo)
            .vectorize(ixi);
    } else {
        update.reorder(fv[0], fv[1], r.x);
    }
    update.unroll(fv[1]);
}

// One tap per output pixel. `taps` holds, for each output row (batch, channel, the outer spatial
// coordinates of the output), the sums of each tap of the innermost dimension over the input's
// columns: taps(n, c, y..., kx, ix) is the output at x = ix * stride + kx. Each is a dense chain over
// the input's row; the output reads them interleaved.
OpResult one_tap_conv_transpose(const OpContext& ctx, const ConvGeometry& g, const ConvTransposeShape& c) {
    const TensorFunc& x = ctx.input(0);
    const TensorFunc& w = ctx.input(1);
    const int spatial = g.spatial_rank(), last = spatial - 1;
    const int stride = int(g.strides[last]);
    std::vector<int64_t> taps_shape(g.output_shape.begin(), g.output_shape.end() - 1);
    taps_shape.push_back(stride);
    taps_shape.push_back(x.shape.back());
    TensorFunc taps = define_tensor(ctx.func_name("taps"), x.type, taps_shape,
                                    [&](const std::vector<Expr>&) { return cast(x.type, 0); });
    const RDom r(0, int(c.in_per_group), ctx.func_name("r"));
    const std::vector<Var> vars = taps.func.args();
    const std::vector<Expr> index(vars.rbegin(), vars.rend());  // n, c, outer spatial..., kx, ix
    const Expr in_channel = input_channel(g, c, index[1], r);
    std::vector<Expr> input_at{index[0], in_channel}, weight_at{in_channel, weight_channel(g, c, index[1])};
    for (int d = 0; d < last; d++) {
        input_at.push_back(index[2 + d] / int(g.strides[d]));
        weight_at.push_back(index[2 + d] % int(g.strides[d]));
    }
    input_at.push_back(index[2 + last + 1]);
    weight_at.push_back(index[2 + last]);
    taps.func(std::vector<Expr>(vars.begin(), vars.end())) = fma(w(weight_at), x(input_at), taps(index));

    const TensorFunc out = with_bias(ctx, taps, g.output_shape, [&](const std::vector<Expr>& i) {
        std::vector<Expr> at(i.begin(), i.end() - 1);
        at.push_back(i.back() % stride);
        at.push_back(i.back() / stride);
        return taps(at);
    });
    const Func sums = taps.func;
    const int64_t in_width = x.shape.back();
    return {{out},
            [sums, r, stride, spatial, in_width](const Func& output, const std::vector<int64_t>& shape,
                                                 const Target& t) {
                schedule_one_tap(output, shape, t, {sums, r, stride, spatial, in_width});
            }};
}

// Any geometry: each output pixel sums every tap and input channel, the taps whose input pixel does
// not exist (between strides, or outside the input) weighted by zero.
OpResult gathered_conv_transpose(const OpContext& ctx, const ConvGeometry& g, const ConvTransposeShape& c) {
    const TensorFunc& x = ctx.input(0);
    const TensorFunc& w = ctx.input(1);
    const int spatial = g.spatial_rank();
    const RDom& r = g.reduction;  // the kernel (innermost first), then the input channels
    TensorFunc acc = define_tensor(ctx.func_name("accumulators"), x.type, g.output_shape,
                                   [&](const std::vector<Expr>&) { return cast(x.type, 0); });
    const std::vector<Var> vars = acc.func.args();
    const std::vector<Expr> index(vars.rbegin(), vars.rend());
    const Expr in_channel = input_channel(g, c, index[1], r[spatial]);
    std::vector<Expr> input_at{index[0], in_channel}, weight_at{in_channel, weight_channel(g, c, index[1])};
    Expr valid = Expr(true);
    for (int d = 0; d < spatial; d++) {
        const Expr k = r[spatial - 1 - d];
        const Expr offset = index[2 + d] + int(g.pads_begin[d]) - k * int(g.dilations[d]);  // input * stride
        const Expr in = offset / int(g.strides[d]);
        valid = valid && offset % int(g.strides[d]) == 0 && in >= 0 && in < int(x.shape[2 + d]);
        input_at.push_back(clamp(in, 0, int(x.shape[2 + d]) - 1));
        weight_at.push_back(k);
    }
    const Expr weight = select(valid, w(weight_at), cast(x.type, 0));
    acc.func(std::vector<Expr>(vars.begin(), vars.end())) = fma(weight, x(input_at), acc(index));
    const TensorFunc out =
        with_bias(ctx, acc, g.output_shape, [&](const std::vector<Expr>& i) { return acc(i); });
    const Func accumulators = acc.func;
    // A channel's plane of sums at a time, in parallel over channels; the sums run along a row in
    // vectors, the reduction outside them (by default it would be innermost, and scalar).
    return {{out}, [accumulators, r](const Func& output, const std::vector<int64_t>& shape, const Target& t) {
                std::vector<Var> v = output.args();
                Func o = output;
                const int lanes = t.natural_vector_size(Float(32));
                const bool vectors = shape.back() >= lanes;
                if (vectors) o.vectorize(v[0], lanes, TailStrategy::GuardWithIf);
                o.parallel(v[v.size() - 2]);
                Func a = accumulators;
                std::vector<Var> av = a.args();
                a.compute_at(o, v[v.size() - 2]);
                if (vectors) a.vectorize(av[0], lanes, TailStrategy::GuardWithIf);
                std::vector<VarOrRVar> order;
                for (int i = 0; i < int(av.size()) - 2; i++) order.push_back(av[i]);
                for (int i = 0; i < r.dimensions(); i++) order.push_back(r[i]);
                a.update().reorder(order);
                if (vectors) a.update().vectorize(av[0], lanes, TailStrategy::GuardWithIf);
            }};
}

OpResult conv_transpose(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const TensorFunc& w = ctx.input(1);
    check_conv_inputs(ctx, x, w);
    const ConvGeometry g = conv_geometry(ctx, x.shape, w.shape, /*transposed=*/true);
    const ConvTransposeShape c{x.shape[1] / g.groups, w.shape[1]};
    if (w.shape[0] != x.shape[1])
        TESSERA_GRAPH_ERROR(ctx) << "the input has " << x.shape[1] << " channels; the weights expect "
                                 << w.shape[0] << ".";
    if (ctx.has_input(2) && (ctx.input(2).rank() != 1 || ctx.input(2).shape[0] != c.out_per_group * g.groups))
        TESSERA_GRAPH_ERROR(ctx) << "the bias must hold one value per output channel.";
    return one_tap(g, x.shape) ? one_tap_conv_transpose(ctx, g, c) : gathered_conv_transpose(ctx, g, c);
}

}  // namespace

void register_conv_transpose_operator() {
    register_operator({"ConvTranspose", OpKind::Anchor, 2, 3, conv_transpose});
}

}  // namespace tessera::graph
