#include "graph/passes/simplify_inference.h"

#include "graph/graph_editing.h"
#include "graph/passes/batch_norm_scale.h"

namespace tessera::graph {
namespace {

bool is_pass_through(const Graph& g, const Node& n) {
    if (n.op != "Identity" && n.op != "Dropout") return false;
    if (n.inputs.empty() || n.inputs[0] < 0 || is_graph_output(g, n.outputs[0])) return false;
    for (size_t i = 1; i < n.outputs.size(); i++)
        if (use_count(g, n.outputs[i]) > 0) return false;
    return true;
}

// x * s + t with s and t of shape [C, 1, ...]: the nodes replacing a BatchNormalization.
void scale_and_shift(Graph& g, const Node& bn, std::vector<Node>& nodes) {
    const Shape x_shape = g.values[bn.inputs[0]].shape;  // copied: adding values moves g.values
    const int64_t channels = x_shape[1].size;
    const int trailing = int(x_shape.size()) - 2;
    std::vector<Node> parameters;
    const BatchNormScale s = batch_norm_scale(g, bn, parameters);
    const int scaled_mean = add_node(g, parameters, bn.name + "_scaled_mean", "Mul", {s.mean, s.scale});
    const int shift = add_node(g, parameters, bn.name + "_shift", "Sub", {s.bias, scaled_mean});
    const int scale_c = per_channel(g, s.scale, channels, trailing, bn.name + "_channel_scale", parameters);
    const int shift_c = per_channel(g, shift, channels, trailing, bn.name + "_channel_shift", parameters);
    nodes.insert(nodes.begin(), parameters.begin(), parameters.end());
    const int scaled = add_node(g, nodes, bn.name + "_scaled", "Mul", {bn.inputs[0], scale_c});
    Node add;
    add.name = bn.name;
    add.op = "Add";
    add.inputs = {scaled, shift_c};
    add.outputs = {bn.outputs[0]};
    nodes.push_back(add);
}

}  // namespace

Graph simplify_inference(const Graph& input) {
    Graph g = input;
    std::vector<Node> nodes;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const Node n = g.nodes[i];
        if (is_pass_through(g, n)) {
            replace_uses(g, n.outputs[0], n.inputs[0]);
            continue;
        }
        if (is_foldable_batch_norm(g, n)) {
            scale_and_shift(g, n, nodes);
            continue;
        }
        nodes.push_back(n);
    }
    g.nodes = std::move(nodes);
    return g;
}

}  // namespace tessera::graph
