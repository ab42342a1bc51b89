#include "conv_pipelines.h"

#include <algorithm>

namespace tessera_apps {

using namespace tessera;

namespace {

// The input as a Func that reads zero outside its x and y bounds; the channels are unbounded
// (every channel read exists).
Func zero_padded(const ImageParam& input, int x_dim, int pad) {
    if (pad == 0) return Func(input);
    Region bounds(input.dimensions());
    bounds[x_dim] = Range(input.dim(x_dim).min(), input.dim(x_dim).extent());
    bounds[x_dim + 1] = Range(input.dim(x_dim + 1).min(), input.dim(x_dim + 1).extent());
    return BoundaryConditions::constant_exterior(input, 0.0f, bounds);
}

// The reduction of conv_pipelines.h's chain: a block of input channels innermost.
RDom channel_blocks_outermost(const ConvShape& s) {
    return RDom(0, s.block, 0, s.kernel, 0, s.kernel, 0, s.in_channels / s.block, "r");
}

}  // namespace

ConvPipeline conv_nchw_pipeline(const ConvShape& s) {
    ConvPipeline p;
    p.shape = s;
    p.input = ImageParam(Float(32), 3, "input");
    p.weights = ImageParam(Float(32), 4, "weights");
    p.padded = zero_padded(p.input, 0, s.pad);
    p.output = Func("output");
    p.x = Var("x"), p.y = Var("y"), p.co = Var("co");
    p.r = channel_blocks_outermost(s);
    const RVar ci_inner = p.r.x, kx = p.r.y, ky = p.r.z, ci_outer = p.r.w;
    const Expr ci = ci_outer * s.block + ci_inner;
    p.output(p.x, p.y, p.co) = 0.0f;
    p.output(p.x, p.y, p.co) =
        fma(p.weights(kx, ky, ci, p.co), p.padded(p.x + kx - s.pad, p.y + ky - s.pad, ci),
            p.output(p.x, p.y, p.co));
    return p;
}

ConvPipeline conv_nchwc_pipeline(const ConvShape& s) {
    ConvPipeline p;
    p.shape = s;
    p.input = ImageParam(Float(32), 4, "input");
    p.weights = ImageParam(Float(32), 6, "weights");
    // Dense blocks, so that the kernel's addresses are constant offsets.
    p.input.dim(1).set_stride(s.block);
    const int weight_extents[] = {s.block, s.block, s.kernel, s.kernel, s.in_channels / s.block};
    for (int d = 1, stride = s.block; d < 6; d++) {
        p.weights.dim(d).set_stride(stride);
        if (d < 5) stride *= weight_extents[d];
    }
    p.padded = zero_padded(p.input, 1, s.pad);
    p.output = Func("output");
    p.co_inner = Var("co_inner"), p.x = Var("x"), p.y = Var("y"), p.co = Var("co");
    p.r = channel_blocks_outermost(s);
    const RVar ci_inner = p.r.x, kx = p.r.y, ky = p.r.z, ci_outer = p.r.w;
    const Var cob = p.co_inner;
    p.output(cob, p.x, p.y, p.co) = 0.0f;
    p.output(cob, p.x, p.y, p.co) =
        fma(p.weights(cob, ci_inner, kx, ky, ci_outer, p.co),
            p.padded(ci_inner, p.x + kx - s.pad, p.y + ky - s.pad, ci_outer), p.output(cob, p.x, p.y, p.co));
    p.output.output_buffer().dim(1).set_stride(s.block);
    return p;
}

void set_conv_estimates(ConvPipeline& p) {
    const ConvShape& s = p.shape;
    if (p.input.dimensions() == 3) {
        p.input.set_estimates({{0, s.width}, {0, s.height}, {0, s.in_channels}});
        p.weights.set_estimates({{0, s.kernel}, {0, s.kernel}, {0, s.in_channels}, {0, s.out_channels}});
        p.output.set_estimates({{0, s.width}, {0, s.height}, {0, s.out_channels}});
        return;
    }
    p.input.set_estimates({{0, s.block}, {0, s.width}, {0, s.height}, {0, s.in_channels / s.block}});
    p.weights.set_estimates({{0, s.block},
                             {0, s.block},
                             {0, s.kernel},
                             {0, s.kernel},
                             {0, s.in_channels / s.block},
                             {0, s.out_channels / s.block}});
    p.output.set_estimates({{0, s.block}, {0, s.width}, {0, s.height}, {0, s.out_channels / s.block}});
}

void schedule_conv_nchw(ConvPipeline& p, int tile_x, int tile_co) {
    Var xo("xo"), xi("xi"), coo("coo"), coi("coi");
    Func tile = cache_write(p.output, MemoryType::Register);
    p.output.tile(p.x, p.co, xo, coo, xi, coi, tile_x, tile_co, TailStrategy::ShiftInwards)
        .reorder(xi, coi, xo, coo, p.y)
        .vectorize(xi)
        .unroll(coi)
        .parallel(p.y);
    tile.compute_at(p.output, xo).vectorize(p.x, tile_x).unroll(p.co, tile_co);
    tile.update().reorder(p.x, p.co, p.r.x, p.r.y, p.r.z, p.r.w).vectorize(p.x, tile_x).unroll(p.co, tile_co);
    if (p.shape.pad > 0)
        p.padded.compute_root().vectorize(p.padded.args()[0], 8).parallel(p.padded.args()[2]);
}

void schedule_conv_nchwc(ConvPipeline& p, RegisterTile tile) {
    Var xo("xo"), xi("xi"), coo("coo"), coi("coi");
    const Var cob = p.co_inner;
    // Never more blocks than the layer has (a small layer may have a single one).
    const int blocks = std::min(tile.rows, p.shape.out_channels / p.shape.block);
    Func accumulators = cache_write(p.output, MemoryType::Register);
    // The block's extent, a constant, so that the tile's size is one too.
    p.output.bound(cob, 0, p.shape.block)
        .split(p.x, xo, xi, tile.columns, TailStrategy::ShiftInwards)
        .split(p.co, coo, coi, blocks, TailStrategy::ShiftInwards)
        .reorder(cob, xi, coi, xo, coo, p.y)
        .vectorize(cob, p.shape.block)
        .unroll(xi)
        .unroll(coi)
        .parallel(p.y);
    accumulators.compute_at(p.output, xo)
        .vectorize(cob, p.shape.block)
        .unroll(p.x, tile.columns)
        .unroll(p.co, blocks);
    // The block of input channels unrolled: its steps read the same pixels and weights at
    // constant offsets.
    accumulators.update()
        .reorder(cob, p.x, p.co, p.r.x, p.r.y, p.r.z, p.r.w)
        .vectorize(cob, p.shape.block)
        .unroll(p.x, tile.columns)
        .unroll(p.co, blocks)
        .unroll(p.r.x);
    if (p.shape.pad > 0)
        p.padded.compute_root().vectorize(p.padded.args()[0], p.shape.block).parallel(p.padded.args()[3]);
}

RegisterTile default_nchw_tile(const Target& target) { return {2 * target.natural_vector_size<float>(), 6}; }

RegisterTile default_nchwc_tile(const Target& target) {
    return target.natural_vector_size<float>() >= 16 ? RegisterTile{8, 2} : RegisterTile{4, 1};
}

}  // namespace tessera_apps
