#include "conv_reference.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace tessera_apps {
namespace {

// The input with `pad` zeros on every side of every channel.
std::vector<float> zero_padded(const ConvShape& s, const std::vector<float>& input) {
    const int pw = s.width + 2 * s.pad, ph = s.height + 2 * s.pad;
    std::vector<float> padded(size_t(s.in_channels) * ph * pw, 0.0f);
    for (int c = 0; c < s.in_channels; c++)
        for (int y = 0; y < s.height; y++)
            std::copy_n(&input[(size_t(c) * s.height + y) * s.width], s.width,
                        &padded[(size_t(c) * ph + y + s.pad) * pw + s.pad]);
    return padded;
}

[[gnu::always_inline]] inline void conv_loops(const ConvShape& s, const float* padded, const float* weights,
                                              float* output) {
    const int w = s.width, h = s.height, k = s.kernel, pw = s.width + 2 * s.pad, ph = s.height + 2 * s.pad;
    for (int co = 0; co < s.out_channels; co++)
        for (int ci_outer = 0; ci_outer < s.in_channels / s.block; ci_outer++)
            for (int ky = 0; ky < k; ky++)
                for (int kx = 0; kx < k; kx++)
                    for (int ci = ci_outer * s.block; ci < (ci_outer + 1) * s.block; ci++) {
                        const float wv = weights[((size_t(co) * s.in_channels + ci) * k + ky) * k + kx];
                        for (int y = 0; y < h; y++) {
                            const float* in = padded + (size_t(ci) * ph + y + ky) * pw + kx;
                            float* out = output + (size_t(co) * h + y) * w;
                            for (int x = 0; x < w; x++) out[x] = std::fma(wv, in[x], out[x]);
                        }
                    }
}

__attribute__((target("avx2,fma"))) void conv_loops_fma(const ConvShape& s, const float* padded,
                                                        const float* weights, float* output) {
    conv_loops(s, padded, weights, output);
}

}  // namespace

std::vector<float> random_tensor(int64_t size, unsigned seed) {
    std::vector<float> t(size);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : t) v = dist(rng);
    return t;
}

void naive_conv(const ConvShape& s, const std::vector<float>& input, const std::vector<float>& weights,
                std::vector<float>& output) {
    static const bool has_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const std::vector<float> padded = zero_padded(s, input);
    output.assign(size_t(s.out_channels) * s.height * s.width, 0.0f);
    if (has_fma) {
        conv_loops_fma(s, padded.data(), weights.data(), output.data());
    } else {
        conv_loops(s, padded.data(), weights.data(), output.data());
    }
}

std::vector<float> nchw_to_nchwc(const std::vector<float>& t, int channels, int width, int height,
                                 int block) {
    std::vector<float> blocked(t.size());
    for (int c = 0; c < channels; c++)
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++)
                blocked[((size_t(c / block) * height + y) * width + x) * block + c % block] =
                    t[(size_t(c) * height + y) * width + x];
    return blocked;
}

std::vector<float> nchwc_to_nchw(const std::vector<float>& t, int channels, int width, int height,
                                 int block) {
    std::vector<float> plain(t.size());
    for (int c = 0; c < channels; c++)
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++)
                plain[(size_t(c) * height + y) * width + x] =
                    t[((size_t(c / block) * height + y) * width + x) * block + c % block];
    return plain;
}

std::vector<float> oihw_to_blocked(const std::vector<float>& w, const ConvShape& s, int block) {
    const int k = s.kernel, ci_blocks = s.in_channels / block;
    std::vector<float> blocked(w.size());
    for (int co = 0; co < s.out_channels; co++)
        for (int ci = 0; ci < s.in_channels; ci++)
            for (int ky = 0; ky < k; ky++)
                for (int kx = 0; kx < k; kx++) {
                    const size_t outer = ((size_t(co / block) * ci_blocks + ci / block) * k + ky) * k + kx;
                    blocked[(outer * block + ci % block) * block + co % block] =
                        w[((size_t(co) * s.in_channels + ci) * k + ky) * k + kx];
                }
    return blocked;
}

}  // namespace tessera_apps
