// How a convolution sums: in partial sums over blocks of input channels, as blocked CPU kernels
// (onnxruntime's MLAS) do, so that large terms cancelling across blocks do not cost the precision
// that one chain over every channel loses; and the same values for any count of channels.

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;
using graph_tests::same_bits;

namespace {

struct ConvCase {
    Tensor x, w;
    std::vector<int64_t> pads;
};

// Conv(x, w) with pads, in float64, at (c, y, x) of the output (stride 1, one image).
double reference(const ConvCase& t, int co, int oy, int ox) {
    const std::vector<int64_t>& xs = t.x.shape();
    const std::vector<int64_t>& ws = t.w.shape();
    const int64_t channels = ws[1], kh = ws[2], kw = ws[3], pad = t.pads.empty() ? 0 : t.pads[0];
    double sum = 0;
    for (int64_t ci = 0; ci < channels; ci++)
        for (int64_t ky = 0; ky < kh; ky++)
            for (int64_t kx = 0; kx < kw; kx++) {
                const int64_t iy = oy + ky - pad, ix = ox + kx - pad;
                if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
                sum += double(t.w.data<float>()[((co * channels + ci) * kh + ky) * kw + kx]) *
                       t.x.data<float>()[(ci * xs[2] + iy) * xs[3] + ix];
            }
    return sum;
}

Tensor run_conv(const ConvCase& t) {
    Builder b;
    int x = b.input("x", Float(32), Shape(t.x.shape().begin(), t.x.shape().end()));
    b.output(b.conv(x, b.constant(t.w, "w"), -1, {.pads = t.pads}), "y");
    return compile(b.build(), get_host_target()).run({{"x", t.x}}).at("y");
}

// The largest absolute difference from the float64 reference over the whole output.
double largest_error(const ConvCase& t) {
    Tensor y = run_conv(t);
    const std::vector<int64_t>& s = y.shape();
    double worst = 0;
    for (int co = 0; co < s[1]; co++)
        for (int oy = 0; oy < s[2]; oy++)
            for (int ox = 0; ox < s[3]; ox++) {
                const float got = y.data<float>()[(co * s[2] + oy) * s[3] + ox];
                worst = std::max(worst, std::abs(got - reference(t, co, oy, ox)));
            }
    return worst;
}

Tensor filled(std::vector<int64_t> shape, float value) {
    Tensor t(Float(32), std::move(shape));
    for (int64_t i = 0; i < t.elements(); i++) t.data<float>()[i] = value;
    return t;
}

}  // namespace

// Every term is 0.3 but two, +-0.3 * 2^20, each the last of its block (of 4, 8 or 16 channels, a
// vector's width): one chain adds the 143 terms between them at the magnitude 3e5, each rounded
// the same way, and ends 1.8 off; partial sums end 0.0125 off.
TEST_CASE("a 3x3 convolution whose large terms cancel across channel blocks stays exact") {
    ConvCase t{filled({1, 32, 5, 7}, 0.3f), filled({2, 32, 3, 3}, 1), {1, 1, 1, 1}};
    for (int co = 0; co < 2; co++) {
        t.w.data<float>()[((co * 32 + 15) * 3 + 2) * 3 + 2] = 1 << 20;
        t.w.data<float>()[((co * 32 + 31) * 3 + 2) * 3 + 2] = -(1 << 20);
    }
    CHECK(largest_error(t) < 0.05);
}

// The same with a 1x1 kernel over 256 channels, summed 128 channels at a time.
TEST_CASE("a pointwise convolution whose large terms cancel across 128 channels stays exact") {
    ConvCase t{filled({1, 256, 3, 19}, 0.3f), filled({3, 256, 1, 1}, 1), {}};
    for (int co = 0; co < 3; co++) {
        t.w.data<float>()[co * 256 + 127] = 1 << 20;
        t.w.data<float>()[co * 256 + 255] = -(1 << 20);
    }
    CHECK(largest_error(t) < 0.05);
}

TEST_CASE("convolutions over channel counts no vector divides match the float64 reference") {
    // A prime count of channels (one chain), 17 channels of a 3x3 kernel, 3 channels of a first layer.
    const std::vector<ConvCase> cases = {
        {random_tensor({1, 131, 4, 9}, 1, -1, 1), random_tensor({5, 131, 1, 1}, 2, -1, 1), {}},
        {random_tensor({1, 17, 6, 11}, 3, -1, 1), random_tensor({4, 17, 3, 3}, 4, -1, 1), {1, 1, 1, 1}},
        {random_tensor({1, 3, 9, 21}, 5, -1, 1), random_tensor({7, 3, 3, 3}, 6, -1, 1), {1, 1, 1, 1}},
    };
    for (size_t i = 0; i < cases.size(); i++) CHECK_MESSAGE(largest_error(cases[i]) < 1e-5, "case " << i);
}
