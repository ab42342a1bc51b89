#include "graph/passes/infer_shapes.h"

#include "graph/define_node.h"
#include "graph/evaluate_node.h"

namespace tessera::graph {
namespace {

bool all_inputs_constant(const Graph& g, const Node& node) {
    for (int id : node.inputs)
        if (id >= 0 && !g.values[id].constant.defined()) return false;
    return true;
}

void set_static_shape(Value& v, Type type, const std::vector<int64_t>& shape) {
    v.type = type;
    v.shape.assign(shape.begin(), shape.end());
    v.shape_known = true;
}

void infer_node(Graph& g, const Node& node, const Target& target) {
    const OperatorInfo& op = operator_of(node);
    if (op.shape_only || (all_inputs_constant(g, node) && op.kind != OpKind::Anchor)) {
        std::vector<Tensor> values = evaluate_node(g, node, target);
        for (size_t i = 0; i < node.outputs.size(); i++) {
            Value& v = g.values[node.outputs[i]];
            set_static_shape(v, values[i].type(), values[i].shape());
            v.constant = values[i];
        }
        return;
    }
    std::vector<TensorFunc> inputs;
    for (int id : node.inputs)
        inputs.push_back(id < 0 ? TensorFunc{} : param_tensor(g.values[id], "p").tensor);
    OpResult result = define_node(g, node, inputs, target);
    for (size_t i = 0; i < node.outputs.size(); i++)
        set_static_shape(g.values[node.outputs[i]], result.outputs[i].type, result.outputs[i].shape);
}

}  // namespace

Graph infer_shapes(const Graph& g, const Target& target) {
    Graph out = g;
    for (const Node& node : out.nodes) infer_node(out, node, target);
    return out;
}

}  // namespace tessera::graph
