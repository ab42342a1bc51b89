#include "graph/evaluate_node.h"

#include "graph/define_node.h"

namespace tessera::graph {

std::vector<Tensor> evaluate_node(const Graph& g, const Node& node, const Target& target) {
    std::vector<TensorFunc> inputs;
    for (int id : node.inputs) {
        if (id < 0) {
            inputs.push_back({});
            continue;
        }
        const Value& v = g.values[id];
        if (!v.constant.defined()) {
            // Only operators that read their inputs' shapes, not their data, get here.
            inputs.push_back(param_tensor(v, "unread").tensor);
            continue;
        }
        inputs.push_back(TensorFunc{Func(buffer_view(v.constant)), v.constant.type(), v.constant.shape()});
    }
    OpResult result = define_node(g, node, inputs, target);
    if (!result.known_values.empty()) return result.known_values;
    std::vector<Func> funcs;
    std::vector<Buffer<>> buffers;
    std::vector<Tensor> values;
    for (size_t i = 0; i < node.outputs.size(); i++) {
        const TensorFunc& out = result.outputs[i];
        values.emplace_back(out.type, out.shape);
        funcs.push_back(out.func);
        buffers.push_back(buffer_view(values.back()));
    }
    bool empty = false;
    for (const Tensor& t : values) empty = empty || t.elements() == 0;
    if (!empty) Pipeline(funcs).realize(Realization(buffers), target);
    return values;
}

}  // namespace tessera::graph
