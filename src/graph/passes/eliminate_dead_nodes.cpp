#include "graph/passes/eliminate_dead_nodes.h"

#include <map>

namespace tessera::graph {
namespace {

bool outputs_all_constant(const Graph& g, const Node& n) {
    for (int id : n.outputs)
        if (!g.values[id].constant.defined()) return false;
    return true;
}

// Keeps only the values used by nodes, inputs and outputs, renumbered in their order.
Graph compact_values(const Graph& g) {
    std::vector<bool> used(g.values.size(), false);
    for (int id : g.inputs) used[id] = true;
    for (int id : g.outputs) used[id] = true;
    for (const Node& n : g.nodes) {
        for (int id : n.inputs)
            if (id >= 0) used[id] = true;
        for (int id : n.outputs) used[id] = true;
    }
    Graph out;
    out.opset = g.opset;
    std::vector<int> renumbered(g.values.size(), -1);
    for (size_t i = 0; i < g.values.size(); i++)
        if (used[i]) renumbered[i] = out.add_value(g.values[i]);
    auto map_ids = [&](std::vector<int> ids) {
        for (int& id : ids)
            if (id >= 0) id = renumbered[id];
        return ids;
    };
    out.inputs = map_ids(g.inputs);
    out.outputs = map_ids(g.outputs);
    for (Node n : g.nodes) {
        n.inputs = map_ids(n.inputs);
        n.outputs = map_ids(n.outputs);
        out.nodes.push_back(std::move(n));
    }
    return out;
}

}  // namespace

Graph eliminate_dead_nodes(const Graph& g) {
    std::vector<bool> needed(g.values.size(), false);
    for (int id : g.outputs) needed[id] = true;
    std::vector<bool> keep(g.nodes.size(), false);
    for (size_t i = g.nodes.size(); i-- > 0;) {
        const Node& n = g.nodes[i];
        bool live = false;
        for (int id : n.outputs) live = live || needed[id];
        if (!live || outputs_all_constant(g, n)) continue;
        keep[i] = true;
        for (int id : n.inputs)
            if (id >= 0) needed[id] = true;
    }
    Graph out = g;
    out.nodes.clear();
    for (size_t i = 0; i < g.nodes.size(); i++)
        if (keep[i]) out.nodes.push_back(g.nodes[i]);
    return compact_values(out);
}

}  // namespace tessera::graph
