#include "graph/passes/fuse_operators.h"

#include "graph/define_node.h"

namespace tessera::graph {
namespace {

struct Grouping {
    std::vector<FusionGroup> groups;
    std::vector<int> group_of_node;
    std::vector<int> producer;  // node index of each value's producer, -1 for inputs and constants
};

bool kinds_fuse(OpKind group, OpKind node) {
    const bool into_injective = group == OpKind::Elementwise || group == OpKind::Injective;
    if (node == OpKind::Elementwise) return into_injective || group == OpKind::Anchor;
    if (node == OpKind::Injective) return into_injective;
    return false;
}

const std::vector<Dim>& output_shape(const Graph& g, const Node& n) { return g.values[n.outputs[0]].shape; }

// Whether node n may join group gi, which produces a value n reads.
bool may_join(const Graph& g, const Grouping& s, int n, int gi) {
    const Node& node = g.nodes[n];
    const FusionGroup& group = s.groups[gi];
    const Node& first = g.nodes[group.nodes[0]];
    const OpKind group_kind = operator_of(first).kind;
    if (!kinds_fuse(group_kind, operator_of(node).kind)) return false;
    if (group_kind == OpKind::Anchor && output_shape(g, node) != output_shape(g, first)) return false;
    for (int id : node.inputs) {
        if (id < 0 || s.producer[id] < 0) continue;
        const int p = s.producer[id];
        if (s.group_of_node[p] != gi && p > group.nodes[0]) return false;
    }
    return true;
}

}  // namespace

std::vector<FusionGroup> fuse_operators(const Graph& g) {
    Grouping s;
    s.group_of_node.assign(g.nodes.size(), -1);
    s.producer.assign(g.values.size(), -1);
    for (size_t n = 0; n < g.nodes.size(); n++)
        for (int id : g.nodes[n].outputs) s.producer[id] = int(n);
    for (size_t n = 0; n < g.nodes.size(); n++) {
        int joined = -1;
        for (int id : g.nodes[n].inputs) {
            if (id < 0 || s.producer[id] < 0) continue;
            const int gi = s.group_of_node[s.producer[id]];
            if (may_join(g, s, int(n), gi)) {
                joined = gi;
                break;
            }
        }
        if (joined < 0) {
            joined = int(s.groups.size());
            s.groups.push_back({});
        }
        s.groups[joined].nodes.push_back(int(n));
        s.group_of_node[n] = joined;
    }
    find_group_boundaries(g, s.groups);
    return s.groups;
}

}  // namespace tessera::graph
