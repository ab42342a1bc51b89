// Lesson 14: running a model with the graph layer.
//
// The graph layer assembles DNN operators, each defined in Tessera, into models. A model is a
// graph of ONNX operators over tensors; graph::compile() optimizes it (shapes, constant folding,
// batch norm folded into the convolution, fusion), compiles each fused group into one Tessera
// pipeline, and plans the memory of the intermediate tensors. This lesson:
//
//   1. builds a small model with graph::Builder: a 3x3 convolution with a bias, a batch norm and a
//      HardSwish, then a 1x1 convolution, on a 1 x 8 x 20 x 30 input;
//   2. saves it as an ONNX file, loads it back, and checks both give the same bits;
//   3. replaces the schedule of one operator's group with a schedule of its own, and checks the
//      values do not change.
//
// Tensors are written outermost dimension first, as ONNX writes them: {N, C, H, W}.

#include <tessera/graph.h>
#include <tessera/onnx.h>
#include <tessera/tessera.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace tessera;

namespace {

graph::Tensor random_tensor(std::vector<int64_t> shape, uint32_t seed, float lo = -1, float hi = 1) {
    graph::Tensor t(Float(32), std::move(shape));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (int64_t i = 0; i < t.elements(); i++) t.data<float>()[i] = dist(rng);
    return t;
}

bool same_bits(const graph::Tensor& a, const graph::Tensor& b) {
    return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

// 1. The model, operation by operation. Each method adds a node and returns the value it makes;
// op() adds any ONNX operator by name, with its attributes, and names the node.
graph::Graph build_model() {
    graph::Builder b;
    int x = b.input("x", Float(32), {"N", 8, 20, 30});  // N is bound when the model is compiled
    int w1 = b.constant(random_tensor({16, 8, 3, 3}, 1), "w1"), b1 = b.constant(random_tensor({16}, 2), "b1");
    int conv = b.conv(x, w1, b1, {.pads = {1, 1, 1, 1}});
    int bn =
        b.batch_norm(conv, b.constant(random_tensor({16}, 3, 0.5f, 2), "gamma"),
                     b.constant(random_tensor({16}, 4), "beta"), b.constant(random_tensor({16}, 5), "mean"),
                     b.constant(random_tensor({16}, 6, 0.5f, 2), "variance"));
    int act = b.hard_swish(bn);
    graph::Attributes pointwise;
    pointwise.set("kernel_shape", std::vector<int64_t>{1, 1});
    int y =
        b.op("Conv", {act, b.constant(random_tensor({4, 16, 1, 1}, 7), "w2")}, pointwise, 1, "project")[0];
    b.output(y, "y");
    return b.build();
}

}  // namespace

int main() {
    const graph::Graph model = build_model();
    std::printf("The model as built:\n%s\n", model.to_string().c_str());

    graph::CompileOptions options;
    options.input_shapes["N"] = {1};
    graph::CompiledModel compiled = graph::compile(model, get_host_target(), options);
    // The batch norm is folded into the first convolution's weights, and the HardSwish fused into
    // its group: two groups, one per convolution, and the intermediate tensor between them.
    std::printf("Optimized:\n%s\nFused groups:\n%s\n", compiled.optimized_graph().to_string().c_str(),
                compiled.groups_text().c_str());
    const graph::Tensor x = random_tensor({1, 8, 20, 30}, 8);
    const graph::Tensor y = compiled.run({{"x", x}}).at("y");

    // 2. The same model through an ONNX file, as a model from another framework would arrive.
    const char* dir = std::getenv("TESSERA_OUTPUT_DIR");
    const std::string path = std::string(dir ? dir : ".") + "/lesson_14_model.onnx";
    graph::save_onnx(model, path);
    graph::CompiledModel from_onnx = graph::compile(graph::load_onnx(path), get_host_target(), options);
    if (!same_bits(y, from_onnx.run({{"x", x}}).at("y"))) {
        std::printf("The model loaded from %s computes other values.\n", path.c_str());
        return 1;
    }
    std::printf("%s gives the same bits.\n", path.c_str());

    // 3. A schedule of our own for the group of the node named "project" (the 1x1 convolution).
    // The context gives the Func the group writes (Vars innermost first: x, y, c, n) and every
    // Func its operators defined; the convolution's sums are "project_accumulators". Here: rows
    // in parallel, 16 columns at a time, the sums of a row of columns computed together.
    options.schedules["project"] = [](graph::GroupScheduleContext& s) {
        std::vector<Var> v = s.output.args();
        Var xo("xo"), xi("xi");
        s.output.split(v[0], xo, xi, 16, TailStrategy::GuardWithIf).vectorize(xi).parallel(v[1]);
        Func sums = s.funcs.at("project_accumulators");
        sums.compute_at(s.output, xo).vectorize(sums.args()[0], 16, TailStrategy::GuardWithIf);
    };
    graph::CompiledModel rescheduled = graph::compile(model, get_host_target(), options);
    if (!same_bits(y, rescheduled.run({{"x", x}}).at("y"))) {
        std::printf("The new schedule changed the values.\n");
        return 1;
    }
    std::printf("The rescheduled model gives the same bits.\n");
    return 0;
}
