#pragma once
// The register-tile schedule that Conv and ConvTranspose share: the output in tiles of columns of
// its innermost spatial dimension (vectorized) by output channels (unrolled), each tile's sums
// computed across the whole reduction in registers and written once, as apps/conv_layer measured.

#include <vector>

#include "tessera/tessera.h"

namespace tessera::graph {

struct ConvTile {
    int columns, channels;
};

// Two vectors by 6 channels on AVX2 (twelve accumulators), by 8 on AVX-512, as apps/conv_layer
// chose; one channel for depthwise layers, whose channels do not share inputs. Narrower where the
// output is.
ConvTile conv_tile(const Target& target, int64_t width, int64_t channels, bool depthwise);

// Splits out (innermost first: spatial, channel, batch) into tiles, vectorized and unrolled, its
// rows in parallel (a 1-D output's channel blocks), and returns the loop over the tiles of a row,
// where the sums go.
Var tile_conv_output(Func out, int spatial, const ConvTile& tile);

// Keeps a tile of f, a reduction over the given RVars, in registers: columns vectorized and
// channels unrolled, innermost in its update too.
void schedule_register_tile(Func f, const std::vector<RVar>& reduction, int spatial, const ConvTile& tile);

}  // namespace tessera::graph
