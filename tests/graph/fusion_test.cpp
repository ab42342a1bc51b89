// Operator fusion and the graph passes around it: a convolution's epilogue fuses into one
// pipeline with no intermediate buffer, and every fused group gives the bits of its unfused ops.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;
using graph_tests::same_bits;

namespace {

// x -> Conv(3x3, pad 1, bias) -> BatchNormalization -> HardSwish, on 1 x 5 x 9 x 11 into 7 channels.
struct ConvBnModel {
    Tensor weights = random_tensor({7, 5, 3, 3}, 1, -1, 1), bias = random_tensor({7}, 2, -1, 1);
    Tensor scale = random_tensor({7}, 3, 0.5f, 2), shift = random_tensor({7}, 4, -1, 1);
    Tensor mean = random_tensor({7}, 5, -1, 1), var = random_tensor({7}, 6, 0.1f, 3);
    Graph graph;
    ConvBnModel() {
        Builder b;
        int x = b.input("x", Float(32), {1, 5, 9, 11});
        int conv = b.conv(x, b.constant(weights, "w"), b.constant(bias, "b"), {.pads = {1, 1, 1, 1}});
        int bn = b.batch_norm(conv, b.constant(scale, "scale"), b.constant(shift, "shift"),
                              b.constant(mean, "mean"), b.constant(var, "var"));
        b.output(b.hard_swish(bn), "y");
        graph = b.build();
    }
    // Plain C++: the convolution, then the batch norm and HardSwish as ONNX defines them.
    float reference(const Tensor& x, int co, int y, int xo) const {
        double acc = bias.data<float>()[co];
        for (int ci = 0; ci < 5; ci++)
            for (int ky = 0; ky < 3; ky++)
                for (int kx = 0; kx < 3; kx++) {
                    const int iy = y + ky - 1, ix = xo + kx - 1;
                    if (iy < 0 || iy >= 9 || ix < 0 || ix >= 11) continue;
                    acc += double(weights.data<float>()[((co * 5 + ci) * 3 + ky) * 3 + kx]) *
                           x.data<float>()[(ci * 9 + iy) * 11 + ix];
                }
        const double v = (acc - mean.data<float>()[co]) / std::sqrt(var.data<float>()[co] + 1e-5) *
                             scale.data<float>()[co] +
                         shift.data<float>()[co];
        return float(v * std::max(0.0, std::min(1.0, v / 6 + 0.5)));
    }
};

}  // namespace

TEST_CASE("conv + bias + batch norm + activation compile to one pipeline writing one buffer") {
    ConvBnModel m;
    CompiledModel model = compile(m.graph, get_host_target());
    CHECK(model.groups() == 1);
    CHECK(model.memory_plan().buffers == 1);  // the output's, nothing between the ops
    const std::string graph = model.optimized_graph().to_string();
    CHECK(graph.find("= BatchNormalization(") == std::string::npos);
    CHECK(graph.find("Conv(x, ") != std::string::npos);
    Tensor x = random_tensor({1, 5, 9, 11}, 9, -1, 1);
    Tensor y = model.run({{"x", x}}).at("y");
    for (int co = 0; co < 7; co++)
        for (int r = 0; r < 9; r++)
            for (int c = 0; c < 11; c++) {
                const float got = y.data<float>()[(co * 9 + r) * 11 + c];
                CHECK_MESSAGE(std::abs(got - m.reference(x, co, r, c)) < 1e-4f,
                              "at " << co << "," << r << "," << c);
            }
}

TEST_CASE("fused groups give the bits of their unfused operators") {
    ConvBnModel m;
    CompileOptions unfused;
    unfused.fuse = false;
    CompiledModel fused_model = compile(m.graph, get_host_target());
    CompiledModel unfused_model = compile(m.graph, get_host_target(), unfused);
    CHECK(unfused_model.groups() > fused_model.groups());
    Tensor x = random_tensor({1, 5, 9, 11}, 10, -1, 1);
    CHECK(same_bits(fused_model.run({{"x", x}}).at("y"), unfused_model.run({{"x", x}}).at("y")));
}

TEST_CASE(
    "an elementwise chain read by two consumers fuses, with the shared value computed once per element") {
    // x -> a = x * 3 + 1 -> b = a * sigmoid(a) (swish); a is read twice inside the group.
    Builder b;
    int x = b.input("x", Float(32), {3, 17});
    int a = b.add(b.mul(x, b.constant(Tensor::scalar(3.0f))), b.constant(Tensor::scalar(1.0f)));
    b.output(b.mul(a, b.sigmoid(a)), "y");
    CompiledModel fused = compile(b.build(), get_host_target());
    CompileOptions options;
    options.fuse = false;
    CompiledModel unfused = compile(b.build(), get_host_target(), options);
    CHECK(fused.groups() == 1);
    Tensor in = random_tensor({3, 17}, 11, -4, 4);
    Tensor y = fused.run({{"x", in}}).at("y");
    CHECK(same_bits(y, unfused.run({{"x", in}}).at("y")));
    for (int i = 0; i < 51; i++) {
        const float v = in.data<float>()[i] * 3 + 1;
        CHECK(std::abs(y.data<float>()[i] - v / (1 + std::exp(-v))) < 1e-5f);
    }
}

TEST_CASE("common subexpressions are computed once and dead nodes are removed") {
    Builder b;
    int x = b.input("x", Float(32), {4});
    int s1 = b.sigmoid(x), s2 = b.sigmoid(x);
    b.relu(x);  // read by nothing
    b.output(b.add(s1, s2), "y");
    const Graph g = optimize(b.build(), get_host_target());
    CHECK(g.to_string() ==
          "input x: float32[4]\n"
          "t1: float32[4] = Sigmoid(x)\n"
          "y: float32[4] = Add(t1, t1)\n"
          "output y\n");
}
