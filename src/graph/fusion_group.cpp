#include "graph/fusion_group.h"

#include <algorithm>

namespace tessera::graph {

void find_group_boundaries(const Graph& g, std::vector<FusionGroup>& groups) {
    std::vector<int> group_of_value(g.values.size(), -1);
    for (size_t gi = 0; gi < groups.size(); gi++)
        for (int n : groups[gi].nodes)
            for (int id : g.nodes[n].outputs) group_of_value[id] = int(gi);
    auto add_unique = [](std::vector<int>& ids, int id) {
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    };
    for (FusionGroup& group : groups) {
        group.inputs.clear();
        group.outputs.clear();
    }
    for (size_t gi = 0; gi < groups.size(); gi++) {
        for (int n : groups[gi].nodes) {
            for (int id : g.nodes[n].inputs) {
                if (id < 0 || group_of_value[id] == int(gi)) continue;
                add_unique(groups[gi].inputs, id);
                if (group_of_value[id] >= 0) add_unique(groups[group_of_value[id]].outputs, id);
            }
        }
    }
    for (int id : g.outputs)
        if (group_of_value[id] >= 0) add_unique(groups[group_of_value[id]].outputs, id);
    // Outputs in the order their nodes make them, so that a group's signature does not depend on
    // which consumer was seen first.
    for (FusionGroup& group : groups) {
        std::vector<int> ordered;
        for (int n : group.nodes)
            for (int id : g.nodes[n].outputs)
                if (std::find(group.outputs.begin(), group.outputs.end(), id) != group.outputs.end())
                    ordered.push_back(id);
        group.outputs = ordered;
    }
}

std::vector<FusionGroup> one_group_per_node(const Graph& g) {
    std::vector<FusionGroup> groups;
    for (size_t i = 0; i < g.nodes.size(); i++) groups.push_back(FusionGroup{{int(i)}, {}, {}});
    find_group_boundaries(g, groups);
    return groups;
}

}  // namespace tessera::graph
