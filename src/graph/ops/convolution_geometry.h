#pragma once
// The geometry of a convolution from its attributes and shapes: kernel, strides, dilations, pads
// (auto_pad resolved), groups and the output's shape.

#include <vector>

#include "graph/ops/operator.h"

namespace tessera::graph {

struct ConvGeometry {
    std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;  // per spatial dimension
    int64_t groups = 1;
    std::vector<int64_t> output_shape;  // N, C, spatial...
    // The reduction of one output element: the kernel's dimensions, innermost (the last spatial
    // one) first, then the input channels of a group.
    RDom reduction;

    int spatial_rank() const { return int(kernel.size()); }
    bool has_padding() const;
};

// x_shape is the data's shape (N, C, spatial...), w_shape the weights' (Conv: M, C/group,
// kernel...; ConvTranspose: C, M/group, kernel...).
ConvGeometry conv_geometry(const OpContext& ctx, const std::vector<int64_t>& x_shape,
                           const std::vector<int64_t>& w_shape, bool transposed);

// The checks Conv and ConvTranspose make of their data and weights: floating-point of one type,
// 1 to 3 spatial dimensions, weights of the data's rank.
void check_conv_inputs(const OpContext& ctx, const TensorFunc& x, const TensorFunc& w);

// ConvTranspose, registered with Conv.
void register_conv_transpose_operator();

}  // namespace tessera::graph
