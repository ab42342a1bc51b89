// A user's schedule for one fused group replaces its operators' schedule and keeps its values.

#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;
using graph_tests::same_bits;

namespace {

Graph conv_relu() {
    Builder b;
    int x = b.input("x", Float(32), {1, 8, 13, 21});
    int conv = b.op(
        "Conv",
        {x, b.constant(random_tensor({6, 8, 3, 3}, 1, -1, 1), "w"),
         b.constant(random_tensor({6}, 2, -1, 1), "b")},
        [] {
            Attributes a;
            a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
            return a;
        }(),
        1, "conv")[0];
    b.output(b.op("Relu", {conv}, {}, 1, "act")[0], "y");
    return b.build();
}

}  // namespace

TEST_CASE("a user's schedule for a node replaces its group's schedule and gives the same bits") {
    bool called = false;
    CompileOptions options;
    options.schedules["act"] = [&](GroupScheduleContext& s) {
        called = true;
        REQUIRE(s.funcs.count("conv_accumulators"));
        CHECK(s.shape == std::vector<int64_t>{1, 6, 13, 21});
        std::vector<Var> v = s.output.args();  // x, y, c, n
        Var xo("xo"), xi("xi");
        s.output.split(v[0], xo, xi, 8, TailStrategy::GuardWithIf).vectorize(xi).parallel(v[2]);
        s.funcs.at("conv_accumulators").compute_at(s.output, xo);
    };
    CompiledModel scheduled = compile(conv_relu(), get_host_target(), options);
    CHECK(called);
    CompiledModel plain = compile(conv_relu(), get_host_target());
    Tensor x = random_tensor({1, 8, 13, 21}, 3, -1, 1);
    Tensor a = scheduled.run({{"x", x}}).at("y"), b = plain.run({{"x", x}}).at("y");
    CHECK(same_bits(a, b));
}

TEST_CASE("a user's schedule that names a Var the output lacks is a CompileError") {
    CompileOptions options;
    options.schedules["conv"] = [](GroupScheduleContext& s) { s.output.vectorize(Var("nowhere"), 8); };
    CHECK_THROWS_AS(compile(conv_relu(), get_host_target(), options), CompileError);
}
