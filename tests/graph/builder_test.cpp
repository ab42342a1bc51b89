// Graphs built with graph::Builder: printing, compiling and running elementwise models.

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;
using graph_tests::same_bits;

TEST_CASE("a built graph prints its inputs, nodes and outputs") {
    Builder b;
    int x = b.input("x", Float(32), {"N", 3});
    int y = b.relu(b.add(x, b.constant(Tensor::from<float>({3}, {1, 2, 3}), "bias")));
    b.output(y, "y");
    CHECK(b.build().to_string() ==
          "input x: float32[N,3]\n"
          "constant bias: float32[3]\n"
          "t1: float32[?] = Add(x, bias)\n"
          "y: float32[?] = Relu(t1)\n"
          "output y\n");
}

TEST_CASE("an elementwise model with broadcasting computes what plain C++ computes") {
    Builder b;
    int x = b.input("x", Float(32), {"N", 5, 7});
    int bias = b.constant(Tensor::from<float>({5, 1}, {1, -2, 3, -4, 5}));
    int y = b.mul(b.sigmoid(b.add(x, bias)), x);
    b.output(y, "y");
    for (bool fuse : {false, true}) {
        CompileOptions options;
        options.input_shapes = {{"N", {3}}};
        options.fuse = fuse;
        CompiledModel model = compile(b.build(), get_host_target(), options);
        CHECK(model.groups() == (fuse ? 1 : 3));
        Tensor in = random_tensor({3, 5, 7}, 7);
        Tensor out = model.run({{"x", in}}).at("y");
        REQUIRE(out.shape() == std::vector<int64_t>{3, 5, 7});
        const float biases[] = {1, -2, 3, -4, 5};
        for (int n = 0; n < 3; n++)
            for (int c = 0; c < 5; c++)
                for (int w = 0; w < 7; w++) {
                    const int64_t i = (n * 5 + c) * 7 + w;
                    const float v = in.data<float>()[i];
                    const float expected = v / (1 + std::exp(-(v + biases[c])));
                    CHECK_MESSAGE(std::abs(out.data<float>()[i] - expected) < 1e-5f,
                                  "at " << n << "," << c << "," << w);
                }
    }
}

TEST_CASE("a model's input of the wrong shape is a RuntimeError naming the input") {
    Builder b;
    int x = b.input("x", Float(32), {4});
    b.output(b.relu(x), "y");
    CompiledModel model = compile(b.build(), get_host_target());
    CHECK_THROWS_WITH_AS(model.run({{"x", Tensor(Float(32), {5})}}),
                         doctest::Contains("input x is float32[5]; the model was compiled for float32[4]"),
                         RuntimeError);
    CHECK_THROWS_WITH_AS(model.run({}), doctest::Contains("input x is not given"), RuntimeError);
    CHECK_THROWS_WITH_AS(model.run({{"x", Tensor()}}), doctest::Contains("input x is an empty Tensor"),
                         RuntimeError);
}

TEST_CASE(
    "an input shape given at compile time beyond what a buffer holds is a CompileError naming the input") {
    Builder b;
    int x = b.input("x", Float(32), {"N", 3});
    b.output(b.relu(x), "y");
    CHECK_THROWS_WITH_AS(compile(b.build(), get_host_target(), {{"N", {int64_t(1) << 40}}}),
                         doctest::Contains("input x is given the dimension 1099511627776"), CompileError);
    CHECK_THROWS_WITH_AS(compile(b.build(), get_host_target(), {{"x", {int64_t(1) << 30, 3}}}),
                         doctest::Contains("has 2^31 elements or more"), CompileError);
    CHECK_THROWS_WITH_AS(compile(b.build(), get_host_target(), {{"N", {-2}}}),
                         doctest::Contains("sizes are 0 to 2^31 - 1"), CompileError);
}

TEST_CASE("an unknown operator is a CompileError naming the node and listing what is supported") {
    Builder b;
    int x = b.input("x", Float(32), {4});
    b.output(b.op1("Frobnicate", {x}), "y");
    CHECK_THROWS_WITH_AS(compile(b.build(), get_host_target()),
                         doctest::Contains("the operator Frobnicate is not supported. Supported operators:"),
                         CompileError);
}
