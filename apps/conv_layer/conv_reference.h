#pragma once
// The plain C++ side of the convolution benchmark: random tensors, the convolution as plain loops
// (the reference every implementation is checked against, and the naive_cpp row), and the copies
// between NCHW and the blocked NCHWc layout.

#include <cstdint>
#include <vector>

#include "conv_pipelines.h"

namespace tessera_apps {

// Uniform in [-1, 1), the same for the same seed.
std::vector<float> random_tensor(int64_t size, unsigned seed);

// output[co][y][x], for input[ci][y][x] and weights[co][ci][ky][kx] (NCHW and OIHW, batch 1),
// each element the chain of std::fma documented in conv_pipelines.h, in that order, the padding
// read as zeros. Loops co, ci / B, ky, kx, ci % B, then y and x over a zero-padded copy of the input, so that
// the innermost loop is dense; compiled for AVX2 and FMA where the CPU has them (GCC then
// vectorizes it), which gives the same bits as without.
void naive_conv(const ConvShape& shape, const std::vector<float>& input, const std::vector<float>& weights,
                std::vector<float>& output);

// NCHW <-> NCHWc for activations of `channels` channels, blocks of `block`.
std::vector<float> nchw_to_nchwc(const std::vector<float>& t, int channels, int width, int height, int block);
std::vector<float> nchwc_to_nchw(const std::vector<float>& t, int channels, int width, int height, int block);
// OIHW weights to the blocked order of conv_nchwc_pipeline: (cob, cib, kx, ky, ci / B, co / B),
// the first the innermost.
std::vector<float> oihw_to_blocked(const std::vector<float>& w, const ConvShape& shape, int block);

}  // namespace tessera_apps
