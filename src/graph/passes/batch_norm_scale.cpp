#include "graph/passes/batch_norm_scale.h"

#include "graph/graph_editing.h"

namespace tessera::graph {

bool is_foldable_batch_norm(const Graph& g, const Node& node) {
    if (node.op != "BatchNormalization" || node.inputs.size() != 5) return false;
    if (node.attributes.get_int("training_mode", 0) != 0) return false;
    for (size_t i = 1; i < 5; i++)
        if (node.inputs[i] < 0 || !g.values[node.inputs[i]].constant.defined()) return false;
    for (size_t i = 1; i < node.outputs.size(); i++)
        if (use_count(g, node.outputs[i]) > 0) return false;
    return g.values[node.inputs[0]].shape_known && g.values[node.inputs[0]].shape.size() >= 2;
}

BatchNormScale batch_norm_scale(Graph& g, const Node& bn, std::vector<Node>& new_nodes) {
    const float epsilon = bn.attributes.get_float("epsilon", 1e-5f);
    const Type type = g.values[bn.inputs[1]].type;
    Tensor eps(type, {});
    if (type == Float(64))
        eps.data<double>()[0] = epsilon;
    else
        eps.data<float>()[0] = epsilon;
    const int eps_value = add_constant(g, eps, bn.name + "_epsilon");
    const int shifted =
        add_node(g, new_nodes, bn.name + "_var_plus_epsilon", "Add", {bn.inputs[4], eps_value});
    const int deviation = add_node(g, new_nodes, bn.name + "_deviation", "Sqrt", {shifted});
    const int scale = add_node(g, new_nodes, bn.name + "_scale", "Div", {bn.inputs[1], deviation});
    return {scale, bn.inputs[3], bn.inputs[2]};
}

int per_channel(Graph& g, int value, int64_t channels, int trailing_ones, const std::string& name,
                std::vector<Node>& new_nodes) {
    std::vector<int64_t> shape{channels};
    for (int i = 0; i < trailing_ones; i++) shape.push_back(1);
    const int shape_value =
        add_constant(g, Tensor::from<int64_t>({int64_t(shape.size())}, shape), name + "_shape");
    return add_node(g, new_nodes, name, "Reshape", {value, shape_value});
}

}  // namespace tessera::graph
