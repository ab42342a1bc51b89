#include "graph/passes/plan_memory.h"

#include <algorithm>

#include "graph/define_node.h"

namespace tessera::graph {
namespace {

constexpr int64_t alignment = 64;

int64_t aligned(int64_t bytes) {
    return (std::max<int64_t>(bytes, 1) + alignment - 1) / alignment * alignment;
}

int64_t value_bytes(const Value& v) {
    int64_t n = v.type.bytes();
    for (int64_t d : static_shape(v)) n *= d;
    return n;
}

bool is_elementwise_group(const Graph& g, const FusionGroup& group) {
    for (int n : group.nodes)
        if (operator_of(g.nodes[n]).kind != OpKind::Elementwise) return false;
    return group.outputs.size() == 1;
}

struct Lifetimes {
    std::vector<int> first, last;  // by value id; -1 where the value is not computed by a group
};

Lifetimes lifetimes(const Graph& g, const std::vector<FusionGroup>& groups) {
    Lifetimes t{std::vector<int>(g.values.size(), -1), std::vector<int>(g.values.size(), -1)};
    for (size_t gi = 0; gi < groups.size(); gi++) {
        for (int id : groups[gi].outputs) t.first[id] = t.last[id] = int(gi);
        for (int id : groups[gi].inputs)
            if (t.first[id] >= 0) t.last[id] = int(gi);
    }
    for (int id : g.outputs)
        if (t.first[id] >= 0) t.last[id] = int(groups.size());
    return t;
}

// The input of an elementwise group whose buffer its output can take over, or -1.
int in_place_input(const Graph& g, const FusionGroup& group, int gi, const Lifetimes& t,
                   const std::vector<int>& taken) {
    if (!is_elementwise_group(g, group)) return -1;
    const Value& out = g.values[group.outputs[0]];
    for (int id : group.inputs) {
        const Value& in = g.values[id];
        if (t.first[id] < 0 || t.last[id] != gi || taken[id] >= 0) continue;
        if (in.type.bytes() == out.type.bytes() && static_shape(in) == static_shape(out)) return id;
    }
    return -1;
}

bool overlaps(const MemoryPlan::Buffer& a, const MemoryPlan::Buffer& b) {
    const bool in_time = a.first_group <= b.last_group && b.first_group <= a.last_group;
    const bool in_space = a.offset < b.offset + aligned(b.bytes) && b.offset < a.offset + aligned(a.bytes);
    return in_time && in_space;
}

}  // namespace

MemoryPlan plan_memory(const Graph& g, const std::vector<FusionGroup>& groups, bool reuse) {
    const Lifetimes t = lifetimes(g, groups);
    MemoryPlan plan;
    // A chain of in-place groups is one buffer whose lifetime spans the chain.
    std::vector<int> taken(g.values.size(), -1);  // the value that took this value's buffer over
    std::vector<int> root(g.values.size(), -1);   // the value whose buffer this value uses
    std::vector<MemoryPlan::Buffer> owners;
    for (size_t gi = 0; gi < groups.size(); gi++) {
        const int partner = reuse ? in_place_input(g, groups[gi], int(gi), t, taken) : -1;
        for (int id : groups[gi].outputs) {
            const int64_t bytes = value_bytes(g.values[id]);
            plan.unplanned_bytes += aligned(bytes);
            if (partner >= 0) {
                taken[partner] = id;
                root[id] = root[partner];
                for (MemoryPlan::Buffer& b : owners)
                    if (b.value == root[id]) b.last_group = std::max(b.last_group, t.last[id]);
                plan.buffers.push_back({id, 0, bytes, t.first[id], t.last[id], partner});
                continue;
            }
            root[id] = id;
            owners.push_back({id, 0, bytes, t.first[id], t.last[id], -1});
            plan.buffers.push_back(owners.back());
        }
    }
    // Largest first, each at the lowest offset where it meets no live buffer placed before it.
    std::vector<size_t> order(owners.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return owners[a].bytes > owners[b].bytes; });
    std::vector<MemoryPlan::Buffer> placed;
    int64_t end = 0;
    for (size_t i : order) {
        MemoryPlan::Buffer b = owners[i];
        if (!reuse) {
            b.offset = end;
        } else {
            b.offset = 0;
            for (bool moved = true; moved;) {
                moved = false;
                for (const MemoryPlan::Buffer& p : placed) {
                    if (overlaps(b, p)) {
                        b.offset = p.offset + aligned(p.bytes);
                        moved = true;
                    }
                }
            }
        }
        end = std::max(end, b.offset + aligned(b.bytes));
        placed.push_back(b);
    }
    plan.arena_bytes = end;
    for (MemoryPlan::Buffer& b : plan.buffers)
        for (const MemoryPlan::Buffer& p : placed)
            if (p.value == root[b.value]) b.offset = p.offset;
    return plan;
}

}  // namespace tessera::graph
