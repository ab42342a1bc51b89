// ConvTranspose against a float64 scatter reference: the upsampling form (kernel equal to the
// stride, one tap per output pixel, summed per tap in the input's grid) and the general form, over
// 1 to 3 spatial dimensions, with groups and bias, at widths no vector divides.

#include <doctest/doctest.h>

#include <cmath>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;

namespace {

struct ConvTransposeCase {
    std::vector<int64_t> x_shape, kernel, strides, pads, dilations;
    int64_t group = 1, out_per_group = 1;
    bool bias = true;
};

std::vector<int64_t> output_shape(const ConvTransposeCase& c) {
    const size_t spatial = c.kernel.size();
    std::vector<int64_t> out{c.x_shape[0], c.out_per_group * c.group};
    for (size_t d = 0; d < spatial; d++)
        out.push_back((c.x_shape[2 + d] - 1) * c.strides[d] + (c.kernel[d] - 1) * c.dilations[d] + 1 -
                      c.pads[d] - c.pads[spatial + d]);
    return out;
}

// Row-major offset of index in shape.
int64_t offset(const std::vector<int64_t>& shape, const std::vector<int64_t>& index) {
    int64_t o = 0;
    for (size_t d = 0; d < shape.size(); d++) o = o * shape[d] + index[d];
    return o;
}

// Every input pixel scatters its kernel, in float64.
std::vector<double> reference(const ConvTransposeCase& c, const Tensor& x, const Tensor& w, const Tensor& b) {
    const std::vector<int64_t> out_shape = output_shape(c);
    const size_t spatial = c.kernel.size();
    int64_t out_elements = 1;
    for (int64_t s : out_shape) out_elements *= s;
    std::vector<double> out(out_elements, 0.0);
    const int64_t in_per_group = c.x_shape[1] / c.group;
    for (int64_t i = 0; i < x.elements(); i++) {
        // Unravel the input pixel, then every kernel tap of every output channel of its group.
        std::vector<int64_t> xi(c.x_shape.size());
        for (int64_t rest = i, d = int64_t(xi.size()) - 1; d >= 0; d--)
            xi[d] = rest % c.x_shape[d], rest /= c.x_shape[d];
        const int64_t g = xi[1] / in_per_group;
        int64_t taps = 1;
        for (int64_t k : c.kernel) taps *= k;
        for (int64_t m = 0; m < c.out_per_group; m++)
            for (int64_t t = 0; t < taps; t++) {
                std::vector<int64_t> k(spatial), o{xi[0], g * c.out_per_group + m};
                bool inside = true;
                for (int64_t rest = t, d = int64_t(spatial) - 1; d >= 0; d--)
                    k[d] = rest % c.kernel[d], rest /= c.kernel[d];
                for (size_t d = 0; d < spatial; d++) {
                    const int64_t p = xi[2 + d] * c.strides[d] + k[d] * c.dilations[d] - c.pads[d];
                    inside = inside && p >= 0 && p < out_shape[2 + d];
                    o.push_back(p);
                }
                if (!inside) continue;
                std::vector<int64_t> wi{xi[1], m};
                wi.insert(wi.end(), k.begin(), k.end());
                out[offset(out_shape, o)] +=
                    double(x.data<float>()[i]) * w.data<float>()[offset(w.shape(), wi)];
            }
    }
    if (c.bias) {
        const int64_t plane = out_elements / (out_shape[0] * out_shape[1]);
        for (int64_t i = 0; i < out_elements; i++) out[i] += b.data<float>()[i / plane % out_shape[1]];
    }
    return out;
}

double largest_error(const ConvTransposeCase& c, uint32_t seed) {
    std::vector<int64_t> w_shape{c.x_shape[1], c.out_per_group};
    w_shape.insert(w_shape.end(), c.kernel.begin(), c.kernel.end());
    const Tensor x = random_tensor(c.x_shape, seed, -1, 1), w = random_tensor(w_shape, seed + 1, -1, 1);
    const Tensor b = random_tensor({c.out_per_group * c.group}, seed + 2, -1, 1);
    Attributes a;
    a.set("kernel_shape", c.kernel);
    a.set("strides", c.strides);
    a.set("pads", c.pads);
    a.set("dilations", c.dilations);
    a.set("group", c.group);
    Builder builder;
    std::vector<int> inputs{builder.input("x", Float(32), Shape(c.x_shape.begin(), c.x_shape.end())),
                            builder.constant(w, "w")};
    if (c.bias) inputs.push_back(builder.constant(b, "b"));
    builder.output(builder.op("ConvTranspose", inputs, a).at(0), "y");
    const Tensor y = compile(builder.build(), get_host_target()).run({{"x", x}}).at("y");
    REQUIRE(y.shape() == output_shape(c));
    const std::vector<double> expected = reference(c, x, w, b);
    double worst = 0;
    for (int64_t i = 0; i < y.elements(); i++)
        worst = std::max(worst, std::abs(y.data<float>()[i] - expected[i]));
    return worst;
}

}  // namespace

TEST_CASE("ConvTranspose with its kernel equal to its stride upsamples as the scatter does") {
    const std::vector<ConvTransposeCase> cases = {
        // The detector's upsampling, at a width of 13 input columns (no vector divides it).
        {{1, 24, 5, 13}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1, 24},
        // Fewer columns than a vector, to one output channel, no bias.
        {{1, 6, 3, 3}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1, 1, false},
        // Unequal strides, groups, two images.
        {{2, 8, 4, 19}, {3, 2}, {3, 2}, {0, 0, 0, 0}, {1, 1}, 2, 3},
        // One and three spatial dimensions.
        {{1, 5, 21}, {4}, {4}, {0, 0}, {1}, 1, 3},
        {{1, 4, 2, 3, 17}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, 1, 2},
        // One output channel over a row of 78 columns: tiles four vectors wide, the last shifted.
        {{1, 5, 2, 39}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1, 1},
        // Eleven output channels: tiles of eight, the last shifted.
        {{1, 7, 3, 21}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1, 11},
    };
    for (size_t i = 0; i < cases.size(); i++)
        CHECK_MESSAGE(largest_error(cases[i], 10 * i) < 1e-5, "case " << i);
}

TEST_CASE("ConvTranspose with pads, dilations and overlapping taps gathers what the scatter adds") {
    const std::vector<ConvTransposeCase> cases = {
        {{1, 6, 5, 11}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, 4},
        {{1, 4, 4, 9}, {2, 3}, {1, 2}, {0, 1, 1, 0}, {2, 1}, 2, 2},
        {{1, 3, 10}, {3}, {3}, {1, 2}, {1}, 1, 2},
    };
    for (size_t i = 0; i < cases.size(); i++)
        CHECK_MESSAGE(largest_error(cases[i], 7 + 10 * i) < 1e-5, "case " << i);
}
