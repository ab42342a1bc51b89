#pragma once
#include <map>
#include <vector>

#include "graph/fusion_group.h"

namespace tessera::graph {

struct MemoryPlan {
    struct Buffer {
        int value;       // value id
        int64_t offset;  // bytes into the arena
        int64_t bytes;
        int first_group;  // the group that writes it
        int last_group;   // the last group that reads it (the last group for outputs)
        int shares_with;  // value id whose buffer this one takes over in place, or -1
    };
    std::vector<Buffer> buffers;
    int64_t arena_bytes = 0;
    int64_t unplanned_bytes = 0;  // every buffer apart, end to end
};

// Places every value the groups compute in one arena. Two values share bytes only when no group
// runs while both are live; a group of elementwise operators writes its output over an input of
// the same type and shape that nothing reads afterwards (in place). Without reuse, every buffer
// has bytes of its own.
MemoryPlan plan_memory(const Graph& g, const std::vector<FusionGroup>& groups, bool reuse);

}  // namespace tessera::graph
