// The installed graph layer, used as a user's project would: a small model built, compiled and run.

#include <tessera/graph.h>

#include <cstdio>

int main() {
    using namespace tessera;
    graph::Builder b;
    int x = b.input("x", Float(32), {"N", 4});
    b.output(b.relu(b.add(x, b.constant(graph::Tensor::from<float>({4}, {1, -1, 2, -2})))), "y");
    graph::CompiledModel model = graph::compile(b.build(), get_host_target(), {{"N", {2}}});
    graph::Tensor in = graph::Tensor::from<float>({2, 4}, {0, 0, 0, 0, -1, 2, -3, 4});
    graph::Tensor out = model.run({{"x", in}}).at("y");
    const float expected[] = {1, 0, 2, 0, 0, 1, 0, 2};
    for (int i = 0; i < 8; i++) {
        if (out.data<float>()[i] != expected[i]) {
            std::printf("graph consumer: y[%d] is %g, expected %g\n", i, out.data<float>()[i], expected[i]);
            return 1;
        }
    }
    std::printf("graph consumer: the installed graph layer ran a model\n");
    return 0;
}
