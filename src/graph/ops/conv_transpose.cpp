// ConvTranspose over 1 to 3 spatial dimensions, with groups, strides, dilations, pads and
// output padding: every input pixel scatters its kernel into the output. Defined as a gather, each
// output pixel summing, in a chain of fused multiply-adds over the input channels (as a matrix
// product computes it), the input pixels whose kernel reaches it.
//
// Where the kernel equals the stride, without padding or dilation (the upsampling of decoders),
// exactly one tap reaches each output pixel, and which one depends only on the pixel's position
// modulo the stride: each output pixel then sums over the input channels alone, in register tiles
// as a convolution does.

#include <algorithm>

#include "graph/ops/convolution_geometry.h"
#include "graph/ops/convolution_schedule.h"
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

TensorFunc with_bias(const OpContext& ctx, const TensorFunc& sums, const std::vector<int64_t>& shape) {
    return define_tensor(ctx.func_name(), sums.type, shape, [&](const std::vector<Expr>& i) {
        return ctx.has_input(2) ? sums(i) + ctx.input(2)({i[1]}) : sums(i);
    });
}

// The weight of the tap that reaches output column x: the tap is x modulo the stride, so a vector
// of columns selects among the stride's weights, each a scalar (indexing the weights by x % stride
// would gather every lane).
Expr tap_weight(const TensorFunc& w, std::vector<Expr> weight_at, const Expr& x, int stride) {
    weight_at.push_back(stride - 1);
    Expr weight = w(weight_at);
    for (int k = stride - 2; k >= 0; k--) {
        weight_at.back() = k;
        weight = select(x % stride == k, w(weight_at), weight);
    }
    return weight;
}

// One tap per output pixel: each output pixel sums, over the input channels of its group, the
// input pixel at its coordinates divided by the strides, weighted by the tap its coordinates
// modulo the strides pick. The output is computed in register tiles as a convolution's is: a
// vector of columns (its input read once per stride columns and spread, see
// codegen_llvm_upsampled.cpp) by a few output channels, the input channels innermost.
OpResult one_tap_conv_transpose(const OpContext& ctx, const ConvGeometry& g, const ConvTransposeShape& c) {
    const TensorFunc& x = ctx.input(0);
    const TensorFunc& w = ctx.input(1);
    const int spatial = g.spatial_rank(), last = spatial - 1;
    TensorFunc acc = define_tensor(ctx.func_name("accumulators"), x.type, g.output_shape,
                                   [&](const std::vector<Expr>&) { return cast(x.type, 0); });
    const RDom r(0, int(c.in_per_group), ctx.func_name("r"));
    const std::vector<Var> vars = acc.func.args();
    const std::vector<Expr> index(vars.rbegin(), vars.rend());  // n, c, spatial...
    const Expr in_channel = input_channel(g, c, index[1], r);
    std::vector<Expr> input_at{index[0], in_channel}, weight_at{in_channel, weight_channel(g, c, index[1])};
    for (int d = 0; d < spatial; d++) input_at.push_back(index[2 + d] / int(g.strides[d]));
    for (int d = 0; d < last; d++) weight_at.push_back(index[2 + d] % int(g.strides[d]));
    const Expr weight = tap_weight(w, weight_at, index[2 + last], int(g.strides[last]));
    acc.func(std::vector<Expr>(vars.begin(), vars.end())) = fma(weight, x(input_at), acc(index));
    const TensorFunc out = with_bias(ctx, acc, g.output_shape);
    const Func accumulators = acc.func;
    return {
        {out},
        [accumulators, r, spatial](const Func& output, const std::vector<int64_t>& shape, const Target& t) {
            ConvTile tile = conv_tile(t, shape.back(), shape[1], /*depthwise=*/false);
            // With one or two output channels, wider tiles keep enough sums in flight.
            const int lanes = t.natural_vector_size(Float(32));
            if (tile.channels <= 2 && shape.back() >= 4 * lanes) tile.columns = 4 * lanes;
            const Var xo = tile_conv_output(output, spatial, tile);
            Func sums = accumulators;
            sums.compute_at(output, xo);
            schedule_register_tile(sums, {r.x}, spatial, tile);
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
    const TensorFunc out = with_bias(ctx, acc, g.output_shape);
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
