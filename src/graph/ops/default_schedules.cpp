#include "graph/ops/default_schedules.h"

#include <algorithm>

namespace tessera::graph {

void schedule_elementwise(Func f, const std::vector<int64_t>& shape, const Target& target) {
    if (shape.empty()) return;
    std::vector<Var> vars = f.args();  // innermost first
    const int lanes = target.natural_vector_size(f.type());
    int64_t elements = 1;
    for (int64_t d : shape) elements *= d;
    if (shape.back() >= lanes) f.vectorize(vars[0], lanes, TailStrategy::GuardWithIf);
    if (vars.size() < 2) return;
    // Work per task below this is not worth a thread's wake-up.
    const int64_t min_parallel_elements = 1 << 15;
    if (elements < min_parallel_elements) return;
    Var outer = vars[1];
    for (size_t i = 2; i < vars.size(); i++) {
        Var fused("fused" + std::to_string(i));
        f.fuse(outer, vars[i], fused);
        outer = fused;
    }
    // Rows in tasks of at least half that: a task per row of 40 elements cost more in handing out
    // than it ran, and a second thread made such groups slower. GuardWithIf, not a shifted tail,
    // since a group may write in place over its input and must not compute an element twice.
    const int64_t rows_per_task = std::max<int64_t>(1, (min_parallel_elements / 2) / shape.back());
    f.parallel(outer, int(rows_per_task), TailStrategy::GuardWithIf);
}

}  // namespace tessera::graph
