#pragma once
// Schedules the graph layer gives a group's output when its operators ask for nothing else.

#include <vector>

#include "tessera/tessera.h"

namespace tessera::graph {

// Vectorizes the innermost dimension (when it holds at least a vector) and runs the outer
// dimensions, fused, in parallel tasks when there is enough work to share.
void schedule_elementwise(Func f, const std::vector<int64_t>& shape, const Target& target);

}  // namespace tessera::graph
