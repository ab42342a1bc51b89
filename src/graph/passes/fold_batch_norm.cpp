#include "graph/passes/fold_batch_norm.h"

#include "graph/graph_editing.h"
#include "graph/passes/batch_norm_scale.h"

namespace tessera::graph {
namespace {

// The Conv node producing value, when its weights (and bias) are constants; -1 otherwise.
int constant_conv_producing(const Graph& g, int value) {
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const Node& n = g.nodes[i];
        if (n.outputs.empty() || n.outputs[0] != value) continue;
        if (n.op != "Conv" || !g.values[n.inputs[1]].constant.defined()) return -1;
        if (n.inputs.size() > 2 && n.inputs[2] >= 0 && !g.values[n.inputs[2]].constant.defined()) return -1;
        return int(i);
    }
    return -1;
}

}  // namespace

Graph fold_batch_norm(const Graph& input) {
    Graph g = input;
    std::vector<Node> new_nodes;
    std::vector<bool> removed(g.nodes.size(), false);
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const Node bn = g.nodes[i];
        if (!is_foldable_batch_norm(g, bn) || use_count(g, bn.inputs[0]) != 1) continue;
        const int c = constant_conv_producing(g, bn.inputs[0]);
        if (c < 0 || is_graph_output(g, bn.outputs[0])) continue;
        // Copied: adding values below moves g.values.
        const Shape weight_shape = g.values[g.nodes[c].inputs[1]].shape;
        const BatchNormScale s = batch_norm_scale(g, bn, new_nodes);
        const int w_scale = per_channel(g, s.scale, weight_shape[0].size, int(weight_shape.size()) - 1,
                                        bn.name + "_weight_scale", new_nodes);
        const int weights =
            add_node(g, new_nodes, bn.name + "_folded_weights", "Mul", {g.nodes[c].inputs[1], w_scale});
        const bool has_bias = g.nodes[c].inputs.size() > 2 && g.nodes[c].inputs[2] >= 0;
        const int centered = has_bias ? add_node(g, new_nodes, bn.name + "_centered_bias", "Sub",
                                                 {g.nodes[c].inputs[2], s.mean})
                                      : add_node(g, new_nodes, bn.name + "_centered_bias", "Neg", {s.mean});
        const int scaled = add_node(g, new_nodes, bn.name + "_scaled_bias", "Mul", {centered, s.scale});
        const int bias = add_node(g, new_nodes, bn.name + "_folded_bias", "Add", {scaled, s.bias});
        Node& conv = g.nodes[c];
        conv.inputs.resize(3);
        conv.inputs[1] = weights;
        conv.inputs[2] = bias;
        replace_uses(g, bn.outputs[0], conv.outputs[0]);
        removed[i] = true;
    }
    std::vector<Node> nodes = new_nodes;  // over constants only: they may come first
    for (size_t i = 0; i < g.nodes.size(); i++)
        if (!removed[i]) nodes.push_back(g.nodes[i]);
    g.nodes = std::move(nodes);
    return g;
}

}  // namespace tessera::graph
