#pragma once
// Convolution layers in Tessera, f32, batch 1, stride 1, zero padding, in two layouts:
//
//   NCHW    input(x, y, ci), weights(kx, ky, ci, co), output(x, y, co)
//   NCHWc   the channels in blocks of B, the block innermost: input(cb, x, y, ci / B) with
//           cb = ci % B, weights(cob, cib, kx, ky, ci / B, co / B), output(cob, x, y, co / B)
//
// (Halide's order of dimensions, the first the contiguous one; the batch dimension, of extent 1,
// is left out.) Both compute, for every output point, the same chain of fused multiply-adds, the
// input channels in blocks of B (the shape's block), a block innermost:
//
//   acc = 0
//   for cb in 0 .. Cin / B - 1:  for ky in 0 .. K - 1:  for kx in 0 .. K - 1:  for c in 0 .. B - 1:
//       ci = cb * B + c
//       acc = fma(weights[co][ci][ky][kx], input[ci][y + ky - pad][x + kx - pad], acc)
//
// with the input read as zero outside its bounds, so that both give the same bits as a plain C++
// loop in that order, and as each other. It is the order of a blocked kernel: its innermost steps
// read the B channels of one NCHWc input pixel and B consecutive rows of the blocked weights. The padding is
// a boundary condition on the input (constant_exterior), computed into a padded copy as part of the pipeline,
// so that the pipeline takes the same unpadded input as any other convolution.
//
// The definitions and their schedules are apart: a conv_*_pipeline() function defines, a
// schedule_* function schedules what it returns.

#include <tessera/tessera.h>

#include "register_tile.h"

namespace tessera_apps {

struct ConvShape {
    int width = 0, height = 0;  // of the input and of the output
    int in_channels = 0, out_channels = 0;
    int kernel = 1;  // K x K
    int pad = 0;     // zeros on every side; (K - 1) / 2 keeps the size
    // NCHWc's channel block, and the block of input channels in the chain above in both layouts;
    // the channel counts must be multiples of it. 16: two AVX2 vectors, one AVX-512 vector.
    int block = 16;
    double flops() const { return 2.0 * in_channels * out_channels * kernel * kernel * width * height; }
};

struct ConvPipeline {
    ConvShape shape;
    tessera::ImageParam input, weights;
    tessera::Func padded;  // the input, zero outside its bounds; the input itself when pad is 0
    tessera::Func output;
    tessera::Var co_inner, x, y, co;  // co_inner is NCHWc's channel in its block; NCHW has none
    tessera::RDom r;                  // (ci_inner, kx, ky, ci_outer), ci = ci_outer * block + ci_inner
};

ConvPipeline conv_nchw_pipeline(const ConvShape& shape);
// The blocks are dense: the input's and the output's pixels are shape.block floats apart, and the
// weights' dimensions are packed in their order, as the layouts above have them.
ConvPipeline conv_nchwc_pipeline(const ConvShape& shape);

// Estimates of the shape on the pipeline's inputs and output (either layout), for
// Pipeline::auto_schedule and tessera::autotune.
void set_conv_estimates(ConvPipeline& p);

// The hand schedule of NCHW. The output is cut into register tiles of tile_x columns (vectorized)
// by tile_co output channels (unrolled), each accumulated by cache_write in registers over the
// whole reduction and then written once; tiles of a row for every block of channels are done
// before the next row, so that the three input rows a row needs stay in cache, and rows run in
// parallel. Ragged edges: the last tiles shift inwards and overlap their neighbours, so the width
// must be at least tile_x and the output channels at least tile_co. The padded input is computed
// once, at the root, a channel per task. 16 x 6 (twelve AVX2 accumulators) was the fastest of the
// tiles tried on a Zen 3 (16 x 4, 16 x 5, 8 x 8, 8 x 12, 24 x 4) for both ResNet-50 layers.
void schedule_conv_nchw(ConvPipeline& p, int tile_x, int tile_co);
// The tile for a target: two vectors of floats by 6 channels, twelve accumulators: 16 x 6 on AVX2,
// 32 x 6 on AVX-512 (the fastest of 32 x 6, 32 x 4, 16 x 12 and 16 x 8 on a Sapphire Rapids Xeon).
RegisterTile default_nchw_tile(const tessera::Target& target);

// The hand schedule of NCHWc: register tiles of tile.columns columns (unrolled) by tile.rows blocks
// of output channels (unrolled), each block vectorized (B lanes), accumulated in registers as for
// NCHW; the block of input channels, innermost in the chain, is unrolled, so that the kernel reads
// the input and the weights at constant offsets from a few pointers, as a hand-written blocked
// kernel does; rows run in parallel, each doing every channel block; the padded input is computed
// at the root. The width must be at least tile.columns.
void schedule_conv_nchwc(ConvPipeline& p, RegisterTile tile);
// The tile for a target: 4 x 1 where a block of 16 is two vectors (AVX2): eight accumulators, and
// a width that divides 56, 28 and 14, ResNet-50's, so that no tile overlaps another; on a Zen CPU
// it was a little faster than 6 x 1 (twelve accumulators, one tile in ten recomputed at 56) and
// 5 x 1, and 3 x 2, 2 x 3, 7 x 1 and 8 x 1 were half as fast (more registers than AVX2 has).
// 8 x 2 where a block is one vector (AVX-512): sixteen accumulators, two loads of weights and eight
// broadcasts of the input per sixteen FMAs; on a Sapphire Rapids Xeon it was the fastest overall
// of 10 x 1, 14 x 1, 6 x 4, 7 x 4, 4 x 4, 8 x 2, 12 x 2 and 14 x 2 (measured before the input
// channels were unrolled).
RegisterTile default_nchwc_tile(const tessera::Target& target);

}  // namespace tessera_apps
