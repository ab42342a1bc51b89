// Conv over 1 to 3 spatial dimensions, with groups (depthwise included),
// strides, dilations, pads and auto_pad.
//
// A convolution is three Funcs: `partial_sums`, each a reduction over a block of the group's input
// channels and the kernel (see ConvSummation for why the sum is split), `accumulators`, which adds
// them up, and the operator's output, which adds the bias. Where one partial sum covers every
// channel, `accumulators` is that reduction itself. The schedule computes the sums per register
// tile of the Func the group realizes (the output itself, or the last of an epilogue fused into
// it: bias, batch norm, activation, residual add), so that the tile stays in registers across the
// reduction and is written once, as apps/conv_layer measured.

#include <algorithm>

#include "graph/ops/convolution_geometry.h"
#include "graph/ops/convolution_schedule.h"
#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

// The input, zero outside its spatial bounds (the channels and batch are always in bounds). As the
// language's constant_exterior, whose likely() marks let loop partitioning read the interior rows
// as dense vectors, without a clamp and a gather per vector.
TensorFunc zero_padded(const OpContext& ctx, const TensorFunc& x, const ConvGeometry& geometry) {
    if (!geometry.has_padding()) return x;
    const int spatial = geometry.spatial_rank();
    Region bounds(size_t(x.rank()));  // innermost first: spatial (the last first), then unbounded
    for (int d = 0; d < spatial; d++) bounds[size_t(spatial - 1 - d)] = Range(0, int(x.shape[2 + d]));
    const TensorFunc exterior{BoundaryConditions::constant_exterior(x.func, cast(x.type, 0), bounds), x.type,
                              x.shape};
    return define_tensor(ctx.func_name("padded"), x.type, x.shape,
                         [&](const std::vector<Expr>& i) { return exterior(i); });
}

// The order of a convolution's sum over its group's input channels and its kernel, which sets its
// rounding. Innermost first: a channel in its block (a vector of channels where one divides them,
// else one channel), the kernel's taps (the last spatial dimension first), the blocks. One chain of
// multiply-adds over every channel rounds each term at the magnitude of the running total, far
// above the result's where large terms cancel (a detector head reading upsampled features of
// magnitude 1e3 gives values near 1): there it lost three times the precision of onnxruntime's
// MLAS kernels, which start each kernel call from zero and add its sum to the output. So the sum
// restarts as theirs does, and the partial sums are added in order: one block for a kernel with
// taps (their NCHWc kernel), one channel for such a kernel where a vector holds more channels than
// the layer has (their NCHW kernel, for a first layer), up to 128 terms otherwise (their pointwise
// kernel, 128 channels; their matrix product). Each partial sum is then no longer than theirs, and
// where the blocks are theirs the bits are too; the additions, one a partial sum, cost little.
struct ConvSummation {
    int block = 1;               // channels innermost
    int blocks_per_partial = 1;  // the outermost dimension of a partial sum's reduction
    int partials = 1;            // partial sums an output element adds up
};

// Blocks in a partial sum: the largest divisor of blocks up to most, so that the partial sums are
// whole; where that would make them shorter than half of most, the smallest divisor above it (a
// prime count of channels, say, is summed as one chain, not one channel at a time).
int64_t blocks_per_partial_sum(int64_t blocks, int64_t most) {
    int64_t below = 1;
    for (int64_t d = 1; d <= std::min(blocks, most); d++)
        if (blocks % d == 0) below = d;
    if (below == blocks || 2 * below >= most) return below;
    int64_t above = most + 1;
    while (blocks % above != 0) above++;
    return above;
}

ConvSummation conv_summation(const Target& target, int64_t in_per_group, int64_t taps) {
    const int lanes = target.natural_vector_size(Float(32));
    ConvSummation s;
    s.block = in_per_group % lanes == 0 ? lanes : 1;
    const bool block_each = taps > 1 && (s.block == lanes || in_per_group < lanes);
    const int64_t most = block_each ? 1 : std::max<int64_t>(1, 128 / (s.block * taps));
    int64_t per = blocks_per_partial_sum(in_per_group / s.block, most);
    s.partials = int(in_per_group / s.block / per);
    if (taps == 1) {
        // Without taps between them, the blocks of a partial sum are consecutive channels: one loop.
        s.block *= int(per);
        per = 1;
    }
    s.blocks_per_partial = int(per);
    return s;
}

// The reduction of one partial sum, innermost first: a channel in its block, the kernel's
// dimensions (the last spatial one first), the blocks of the partial sum.
RDom partial_sum_reduction(const OpContext& ctx, const ConvGeometry& g, const ConvSummation& s) {
    Region region{Range(0, s.block)};
    for (int d = g.spatial_rank() - 1; d >= 0; d--) region.emplace_back(0, int(g.kernel[d]));
    region.emplace_back(0, s.blocks_per_partial);
    return RDom(region, ctx.func_name("r"));
}

struct ConvFuncs {
    Func partial_sums;  // undefined with one partial sum per output element
    RDom partials;      // the reduction of accumulators over the partial sums, when defined
    Func accumulators;
    Func padded;  // undefined without padding
    TensorFunc output;
};

std::vector<RVar> rvars(const RDom& r) {
    std::vector<RVar> out;
    for (int i = 0; i < r.dimensions(); i++) out.push_back(r[i]);
    return out;
}

void schedule_convolution(const ConvFuncs& conv, const ConvGeometry& geometry, bool depthwise,
                          const Func& out, const std::vector<int64_t>& shape, const Target& target) {
    const int spatial = geometry.spatial_rank();
    const ConvTile tile = conv_tile(target, shape.back(), shape[1], depthwise);
    Func output = out;
    const Var xo = tile_conv_output(output, spatial, tile);

    Func accumulators = conv.accumulators;
    accumulators.compute_at(output, xo);
    if (conv.partial_sums.defined()) {
        // Each partial sum's tile is computed inside the loop over them, and added to the total.
        schedule_register_tile(accumulators, rvars(conv.partials), spatial, tile);
        Func partial_sums = conv.partial_sums;
        partial_sums.compute_at(accumulators, conv.partials[0]);
        schedule_register_tile(partial_sums, rvars(geometry.reduction), spatial, tile);
    } else {
        schedule_register_tile(accumulators, rvars(geometry.reduction), spatial, tile);
    }
    if (conv.padded.defined()) {
        std::vector<Var> p = conv.padded.args();
        Func padded = conv.padded;
        padded.compute_root().vectorize(p[0], target.natural_vector_size(Float(32)),
                                        TailStrategy::GuardWithIf);
        Var fused("channel_and_batch");
        padded.fuse(p[spatial], p[spatial + 1], fused).parallel(fused);
    }
}

// The partial sums of a convolution, or with one partial sum the whole reduction: the output's
// dimensions and, outermost where there are several, which partial sum.
TensorFunc partial_sums(const OpContext& ctx, const TensorFunc& padded, const TensorFunc& w,
                        const ConvGeometry& g, const ConvSummation& sum) {
    const bool split = sum.partials > 1;
    std::vector<int64_t> shape = g.output_shape;
    if (split) shape.insert(shape.begin(), sum.partials);
    TensorFunc partial = define_tensor(ctx.func_name(split ? "partial_sums" : "accumulators"), padded.type,
                                       shape, [&](const std::vector<Expr>&) { return cast(padded.type, 0); });
    const std::vector<Var> vars = partial.func.args();                         // innermost first
    const std::vector<Expr> index(vars.rbegin(), vars.rend());                 // outermost first
    const std::vector<Expr> at(index.begin() + (split ? 1 : 0), index.end());  // batch, channel, spatial...
    const int spatial = g.spatial_rank();
    const int64_t in_per_group = w.shape[1], out_per_group = w.shape[0] / g.groups;
    const RDom& r = g.reduction;  // a channel in its block, the kernel (innermost first), the blocks
    const Expr first_block = split ? index[0] * sum.blocks_per_partial : Expr(0);
    const Expr channel = (first_block + r[spatial + 1]) * sum.block + r[0];
    // Without groups, no group arithmetic: the simplifier cannot drop it without knowing the output
    // channel's range, and with it every channel of the register tile loads its inputs apart.
    const Expr in_channel =
        g.groups == 1 ? channel : at[1] / int(out_per_group) * int(in_per_group) + channel;
    std::vector<Expr> input_at{at[0], in_channel}, weight_at{at[1], channel};
    for (int d = 0; d < spatial; d++) {
        const RVar k = r[spatial - d];
        input_at.push_back(at[2 + d] * int(g.strides[d]) + k * int(g.dilations[d]) - int(g.pads_begin[d]));
        weight_at.push_back(k);
    }
    partial.func(std::vector<Expr>(vars.begin(), vars.end())) =
        fma(w(weight_at), padded(input_at), partial(index));
    return partial;
}

// The partial sums added up in order, over partials.
TensorFunc sum_of_partial_sums(const OpContext& ctx, const TensorFunc& partial, const RDom& partials,
                               const std::vector<int64_t>& shape) {
    TensorFunc total = define_tensor(ctx.func_name("accumulators"), partial.type, shape,
                                     [&](const std::vector<Expr>&) { return cast(partial.type, 0); });
    const std::vector<Var> vars = total.func.args();
    const std::vector<Expr> index(vars.rbegin(), vars.rend());
    std::vector<Expr> partial_index{partials.x};
    partial_index.insert(partial_index.end(), index.begin(), index.end());
    total.func(std::vector<Expr>(vars.begin(), vars.end())) = total(index) + partial(partial_index);
    return total;
}

OpResult conv(const OpContext& ctx) {
    const TensorFunc& x = ctx.input(0);
    const TensorFunc& w = ctx.input(1);
    check_conv_inputs(ctx, x, w);
    ConvGeometry g = conv_geometry(ctx, x.shape, w.shape, /*transposed=*/false);
    const int64_t in_per_group = w.shape[1], out_per_group = w.shape[0] / g.groups;
    if (in_per_group * g.groups != x.shape[1])
        TESSERA_GRAPH_ERROR(ctx) << "the input has " << x.shape[1] << " channels; the weights expect "
                                 << in_per_group << " per group for " << g.groups << " groups.";
    if (ctx.has_input(2) && (ctx.input(2).rank() != 1 || ctx.input(2).shape[0] != w.shape[0]))
        TESSERA_GRAPH_ERROR(ctx) << "the bias must hold one value per output channel (" << w.shape[0] << ").";
    int64_t taps = 1;
    for (int64_t k : g.kernel) taps *= k;
    const ConvSummation sum = conv_summation(ctx.target, in_per_group, taps);
    g.reduction = partial_sum_reduction(ctx, g, sum);

    ConvFuncs funcs;
    TensorFunc padded = zero_padded(ctx, x, g);
    if (g.has_padding()) funcs.padded = padded.func;
    TensorFunc acc = partial_sums(ctx, padded, w, g, sum);
    if (sum.partials > 1) {
        funcs.partial_sums = acc.func;
        funcs.partials = RDom(0, sum.partials, ctx.func_name("partial"));
        acc = sum_of_partial_sums(ctx, acc, funcs.partials, g.output_shape);
    }
    funcs.accumulators = acc.func;
    // The bias comes after the sum, as blocked kernels add it when they store.
    funcs.output = define_tensor(ctx.func_name(), x.type, g.output_shape, [&](const std::vector<Expr>& i) {
        return ctx.has_input(2) ? acc(i) + ctx.input(2)({i[1]}) : acc(i);
    });
    const bool depthwise = in_per_group == 1 && out_per_group == 1;
    return {{funcs.output},
            [funcs, g, depthwise](const Func& out, const std::vector<int64_t>& s, const Target& t) {
                schedule_convolution(funcs, g, depthwise, out, s, t);
            }};
}

}  // namespace

void check_conv_inputs(const OpContext& ctx, const TensorFunc& x, const TensorFunc& w) {
    if (!x.type.is_float() || x.type != w.type)
        TESSERA_GRAPH_UNSUPPORTED(ctx) << "takes floating-point data and weights of one type; it has "
                                       << type_name(x.type) << " and " << type_name(w.type) << ".";
    if (x.rank() < 3 || x.rank() > 5)
        TESSERA_GRAPH_UNSUPPORTED(ctx)
            << "the input has rank " << x.rank() << "; 1 to 3 spatial dimensions are supported.";
    if (w.rank() != x.rank())
        TESSERA_GRAPH_ERROR(ctx) << "the weights have rank " << w.rank() << ", the input " << x.rank() << ".";
}

void register_convolution_operators() {
    register_conv_transpose_operator();
    register_operator({"Conv", OpKind::Anchor, 2, 3, conv});
}

}  // namespace tessera::graph
