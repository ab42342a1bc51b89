#include "graph/passes/eliminate_common_subexpressions.h"

#include <map>

#include "graph/attribute_text.h"
#include "graph/graph_editing.h"

namespace tessera::graph {
namespace {

// Larger constants are weights, which are seldom equal and costly to compare.
constexpr int64_t mergeable_constant_limit = 4096;

void merge_equal_constants(Graph& g) {
    std::map<std::string, int> first;
    for (size_t id = 0; id < g.values.size(); id++) {
        const Tensor& t = g.values[id].constant;
        if (!t.defined() || t.elements() > mergeable_constant_limit) continue;
        const std::string key = describe(t) + ":" + tensor_values_text(t);
        auto [it, inserted] = first.emplace(key, int(id));
        if (!inserted) replace_uses(g, int(id), it->second);
    }
}

std::string node_key(const Node& n) {
    std::string key = n.op + "(";
    for (int id : n.inputs) key += std::to_string(id) + ",";
    return key + ")" + attributes_key(n.attributes);
}

}  // namespace

Graph eliminate_common_subexpressions(const Graph& input) {
    Graph g = input;
    merge_equal_constants(g);
    std::map<std::string, size_t> first;
    std::vector<Node> nodes;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const Node n = g.nodes[i];
        bool output_is_graph_output = false;
        for (int id : n.outputs) output_is_graph_output = output_is_graph_output || is_graph_output(g, id);
        auto [it, inserted] = first.emplace(node_key(n), i);
        if (inserted || output_is_graph_output) {
            nodes.push_back(n);
            continue;
        }
        const Node& earlier = g.nodes[it->second];
        for (size_t o = 0; o < n.outputs.size(); o++) replace_uses(g, n.outputs[o], earlier.outputs[o]);
    }
    g.nodes = std::move(nodes);
    return g;
}

}  // namespace tessera::graph
