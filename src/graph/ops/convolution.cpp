// Conv and ConvTranspose over 1 to 3 spatial dimensions, with groups (depthwise included),
// strides, dilations, pads and auto_pad.
//
// A convolution is two Funcs: `accumulators`, a reduction over the group's input channels and the
// kernel, and the operator's output, which adds the bias to it. The schedule computes the
// accumulators per register tile of the Func the group realizes (the output itself, or the last of
// an epilogue fused into it: bias, batch norm, activation, residual add), so that the tile stays
// in registers across the whole reduction and is written once, as apps/conv_layer measured.

#include "graph/ops/convolution_geometry.h"
#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

// The input, zero outside its spatial bounds (the channels and batch are always in bounds).
TensorFunc zero_padded(const OpContext& ctx, const TensorFunc& x, const ConvGeometry& geometry) {
    if (!geometry.has_padding()) return x;
    return define_tensor(ctx.func_name("padded"), x.type, x.shape, [&](const std::vector<Expr>& i) {
        Expr inside = Expr(true);
        std::vector<Expr> clamped = i;
        for (int d = 0; d < geometry.spatial_rank(); d++) {
            const Expr& c = i[2 + d];
            inside = inside && c >= 0 && c < int(x.shape[2 + d]);
            clamped[2 + d] = clamp(c, 0, int(x.shape[2 + d]) - 1);
        }
        return select(inside, x(clamped), cast(x.type, 0));
    });
}

// The block of input channels innermost in the reduction: a vector of floats, as the blocked (NCHWc)
// kernels of CPU libraries such as onnxruntime's order their sums, so that the rounding is close
// to theirs; one channel (the plain order: channel, then kernel) where the block does not divide
// the channels.
int channel_block(const Target& target, int64_t in_per_group) {
    const int lanes = target.natural_vector_size(Float(32));
    return in_per_group % lanes == 0 ? lanes : 1;
}

// The reduction of one output element, innermost first: a channel in its block, the kernel's
// dimensions (the last spatial one first), the block.
RDom blocked_reduction(const OpContext& ctx, const ConvGeometry& g, int64_t in_per_group, int block) {
    Region region{Range(0, block)};
    for (int d = g.spatial_rank() - 1; d >= 0; d--) region.emplace_back(0, int(g.kernel[d]));
    region.emplace_back(0, int(in_per_group / block));
    return RDom(region, ctx.func_name("r"));
}

struct ConvFuncs {
    Func accumulators;
    Func padded;  // undefined without padding
    TensorFunc output;
};

// The register tile of a convolution's output: columns of the innermost spatial dimension
// (vectorized) by output channels (unrolled). Two vectors by 6 channels on AVX2 (twelve
// accumulators), by 8 on AVX-512, as apps/conv_layer chose; one channel for depthwise layers,
// whose channels do not share inputs.
struct ConvTile {
    int columns, channels;
};

ConvTile conv_tile(const Target& target, int64_t width, int64_t channels, bool depthwise) {
    const int lanes = target.natural_vector_size(Float(32));
    ConvTile tile{2 * lanes, depthwise ? 1 : (lanes >= 16 ? 8 : 6)};
    if (width < tile.columns) tile.columns = width >= lanes ? lanes : int(width);
    if (channels < tile.channels) tile.channels = int(channels);
    return tile;
}

void schedule_convolution(const ConvFuncs& conv, const ConvGeometry& geometry, bool depthwise,
                          const Func& out, const std::vector<int64_t>& shape, const Target& target) {
    const int spatial = geometry.spatial_rank();
    std::vector<Var> v = out.args();  // innermost first: spatial (x first), channel, batch
    std::vector<Var> a = conv.accumulators.args();
    const Var x = v[0], c = v[spatial];
    const ConvTile tile = conv_tile(target, shape.back(), shape[1], depthwise);
    Var xo("xo"), xi("xi"), co("co"), ci("ci");
    Func output = out;
    output.split(x, xo, xi, tile.columns, TailStrategy::ShiftInwards)
        .split(c, co, ci, tile.channels, TailStrategy::ShiftInwards);
    std::vector<VarOrRVar> order{xi, ci, xo, co};
    for (int d = 1; d < spatial; d++) order.push_back(v[d]);
    order.push_back(v[spatial + 1]);
    output.reorder(order).vectorize(xi).unroll(ci);
    // Rows run in parallel; a 1-D convolution parallelizes over channel blocks.
    output.parallel(spatial >= 2 ? v[spatial - 1] : co);

    Func accumulators = conv.accumulators;
    accumulators.compute_at(output, xo).vectorize(a[0], tile.columns).unroll(a[spatial], tile.channels);
    std::vector<VarOrRVar> update_order{a[0], a[spatial]};
    const RDom& r = geometry.reduction;
    for (int i = 0; i < r.dimensions(); i++) update_order.push_back(r[i]);
    accumulators.update()
        .reorder(update_order)
        .vectorize(a[0], tile.columns)
        .unroll(a[spatial], tile.channels);
    if (conv.padded.defined()) {
        std::vector<Var> p = conv.padded.args();
        Func padded = conv.padded;
        padded.compute_root().vectorize(p[0], target.natural_vector_size(Float(32)),
                                        TailStrategy::GuardWithIf);
        Var fused("channel_and_batch");
        padded.fuse(p[spatial], p[spatial + 1], fused).parallel(fused);
    }
}

void check_conv_inputs(const OpContext& ctx, const TensorFunc& x, const TensorFunc& w,
                       int64_t weight_out_axis) {
    if (!x.type.is_float() || x.type != w.type)
        TESSERA_GRAPH_UNSUPPORTED(ctx) << "takes floating-point data and weights of one type; it has "
                                       << type_name(x.type) << " and " << type_name(w.type) << ".";
    if (x.rank() < 3 || x.rank() > 5)
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "the input has rank " << x.rank() << "; 1 to 3 spatial dimensions are supported.";
    if (w.rank() != x.rank())
        TESSERA_GRAPH_ERROR(ctx) << "the weights have rank " << w.rank() << ", the input " << x.rank() << ".";
    (void)weight_out_axis;
}

OpResult conv(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const TensorFunc& w = ctx.input(1);
    check_conv_inputs(ctx, x, w, 0);
    ConvGeometry g = conv_geometry(ctx, x.shape, w.shape, /*transposed=*/false);
    const int64_t in_per_group = w.shape[1], out_per_group = w.shape[0] / g.groups;
    const int block = channel_block(ctx.target, in_per_group);
    g.reduction = blocked_reduction(ctx, g, in_per_group, block);
    if (in_per_group * g.groups != x.shape[1])
        TESSERA_GRAPH_ERROR(ctx) << "the input has " << x.shape[1] << " channels; the weights expect "
                                 << in_per_group << " per group for " << g.groups << " groups.";
    if (ctx.has_input(2) && (ctx.input(2).rank() != 1 || ctx.input(2).shape[0] != w.shape[0]))
        TESSERA_GRAPH_ERROR(ctx) << "the bias must hold one value per output channel (" << w.shape[0] << ").";
    ConvFuncs funcs;
    TensorFunc padded = zero_padded(ctx, x, g);
    if (g.has_padding()) funcs.padded = padded.func;

    std::vector<int64_t> shape = g.output_shape;
    const int spatial = g.spatial_rank();
    TensorFunc acc = define_tensor(ctx.func_name("accumulators"), x.type, shape,
                                   [&](const std::vector<Expr>&) { return cast(x.type, 0); });
    std::vector<Var> vars = acc.func.args();  // innermost first
    std::vector<Expr> index;                  // outermost first
    for (auto it = vars.rbegin(); it != vars.rend(); ++it) index.push_back(*it);
    const RDom& r = g.reduction;  // a channel in its block, the kernel (innermost first), the block
    const Expr channel = r[spatial + 1] * block + r[0];
    const Expr in_channel = index[1] / int(out_per_group) * int(in_per_group) + channel;
    std::vector<Expr> input_at{index[0], in_channel}, weight_at{index[1], channel};
    for (int d = 0; d < spatial; d++) {
        const RVar k = r[spatial - d];
        input_at.push_back(index[2 + d] * int(g.strides[d]) + k * int(g.dilations[d]) - int(g.pads_begin[d]));
        weight_at.push_back(k);
    }
    acc.func(std::vector<Expr>(vars.begin(), vars.end())) = fma(w(weight_at), padded(input_at), acc(index));
    funcs.accumulators = acc.func;
    // The bias comes after the sum, as blocked kernels add it when they store.
    funcs.output = define_tensor(ctx.func_name(), x.type, shape, [&](const std::vector<Expr>& i) {
        return ctx.has_input(2) ? acc(i) + ctx.input(2)({i[1]}) : acc(i);
    });
    const bool depthwise = in_per_group == 1 && out_per_group == 1;
    return {{funcs.output},
            [funcs, g, depthwise](const Func& out, const std::vector<int64_t>& s, const Target& t) {
                schedule_convolution(funcs, g, depthwise, out, s, t);
            }};
}

// ConvTranspose: every input pixel scatters its kernel into the output; defined as a gather, each
// output pixel summing the input pixels whose kernel reaches it. Where the kernel equals the stride
// without padding or dilation (the upsampling of decoders), exactly one kernel tap reaches each
// output pixel, and the sum runs over input channels alone.
OpResult conv_transpose(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const TensorFunc& w = ctx.input(1);
    check_conv_inputs(ctx, x, w, 1);
    const ConvGeometry g = conv_geometry(ctx, x.shape, w.shape, /*transposed=*/true);
    const int64_t in_per_group = x.shape[1] / g.groups, out_per_group = w.shape[1];
    if (w.shape[0] != x.shape[1])
        TESSERA_GRAPH_ERROR(ctx) << "the input has " << x.shape[1] << " channels; the weights expect "
                                 << w.shape[0] << ".";
    if (ctx.has_input(2) && (ctx.input(2).rank() != 1 || ctx.input(2).shape[0] != out_per_group * g.groups))
        TESSERA_GRAPH_ERROR(ctx) << "the bias must hold one value per output channel.";
    const int spatial = g.spatial_rank();
    bool one_tap = true;
    for (int d = 0; d < spatial; d++)
        one_tap = one_tap && g.kernel[d] == g.strides[d] && g.dilations[d] == 1 && g.pads_begin[d] == 0 &&
                  g.output_shape[2 + d] == x.shape[2 + d] * g.strides[d];
    RDom r = one_tap ? RDom(0, int(in_per_group), ctx.func_name("r")) : g.reduction;
    TensorFunc acc = define_tensor(ctx.func_name("accumulators"), x.type, g.output_shape,
                                   [&](const std::vector<Expr>& i) { return cast(x.type, 0); });
    std::vector<Var> vars = acc.func.args();
    std::vector<Expr> index;
    for (auto it = vars.rbegin(); it != vars.rend(); ++it) index.push_back(*it);
    const Expr group = index[1] / int(out_per_group);
    const Expr in_channel = group * int(in_per_group) + (one_tap ? Expr(r[0]) : Expr(r[spatial]));
    std::vector<Expr> input_at{index[0], in_channel}, weight_at{in_channel, index[1] % int(out_per_group)};
    Expr valid = Expr(true);
    for (int d = 0; d < spatial; d++) {
        const Expr o = index[2 + d] + int(g.pads_begin[d]);
        if (one_tap) {
            input_at.push_back(o / int(g.strides[d]));
            weight_at.push_back(o % int(g.strides[d]));
            continue;
        }
        const Expr k = r[spatial - 1 - d];
        const Expr offset = o - k * int(g.dilations[d]);  // = input coordinate * stride
        const Expr in = offset / int(g.strides[d]);
        valid = valid && offset % int(g.strides[d]) == 0 && in >= 0 && in < int(x.shape[2 + d]);
        input_at.push_back(clamp(in, 0, int(x.shape[2 + d]) - 1));
        weight_at.push_back(k);
    }
    // A chain of fused multiply-adds over the input channels, as a matrix product computes it.
    const Expr weight = one_tap ? w(weight_at) : select(valid, w(weight_at), cast(x.type, 0));
    acc.func(std::vector<Expr>(vars.begin(), vars.end())) = fma(weight, x(input_at), acc(index));
    TensorFunc out = define_tensor(ctx.func_name(), x.type, g.output_shape, [&](const std::vector<Expr>& i) {
        return ctx.has_input(2) ? acc(i) + ctx.input(2)({i[1]}) : acc(i);
    });
    Func accumulators = acc.func;
    return {{out}, [accumulators](const Func& output, const std::vector<int64_t>& shape, const Target& t) {
                std::vector<Var> v = output.args();
                Func o = output;
                const int lanes = t.natural_vector_size(Float(32));
                if (shape.back() >= lanes) o.vectorize(v[0], lanes, TailStrategy::GuardWithIf);
                o.parallel(v[v.size() - 2]);
                Func a = accumulators;
                a.compute_at(o, v[v.size() - 2]);
            }};
}

}  // namespace

void register_convolution_operators() {
    register_operator({"Conv", OpKind::Anchor, 2, 3, conv});
    register_operator({"ConvTranspose", OpKind::Anchor, 2, 3, conv_transpose});
}

}  // namespace tessera::graph
