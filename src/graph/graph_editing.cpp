#include "graph/graph_editing.h"

#include <algorithm>

namespace tessera::graph {
namespace {

std::string unique_name(const Graph& g, const std::string& stem) {
    std::string name = stem;
    for (int i = 1; g.find_value(name) >= 0; i++) name = stem + "_" + std::to_string(i);
    return name;
}

}  // namespace

int add_constant(Graph& g, const Tensor& value, const std::string& stem) {
    return g.add_value(Value{unique_name(g, stem), value.type(),
                             Shape(value.shape().begin(), value.shape().end()), true, value});
}

int add_node(Graph& g, std::vector<Node>& nodes_out, const std::string& name, const std::string& op,
             const std::vector<int>& inputs, Attributes attributes) {
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = inputs;
    attributes.owner = "node " + name + " (" + op + ")";
    n.attributes = std::move(attributes);
    n.outputs.push_back(g.add_value(Value{unique_name(g, name), Float(32), {}, false, {}}));
    nodes_out.push_back(std::move(n));
    return nodes_out.back().outputs[0];
}

void replace_uses(Graph& g, int from, int to) {
    for (Node& n : g.nodes)
        for (int& id : n.inputs)
            if (id == from) id = to;
}

bool is_graph_output(const Graph& g, int value) {
    return std::find(g.outputs.begin(), g.outputs.end(), value) != g.outputs.end();
}

int use_count(const Graph& g, int value) {
    int uses = is_graph_output(g, value) ? 1 : 0;
    for (const Node& n : g.nodes) uses += int(std::count(n.inputs.begin(), n.inputs.end(), value));
    return uses;
}

}  // namespace tessera::graph
