#include <cstdio>
#include <stdexcept>

#include "commands.h"
#include "tessera/onnx.h"

namespace tessera_onnx {

int info_command(const Options& o) {
    using namespace tessera::graph;
    if (o.positional.size() != 1) throw std::invalid_argument("info takes one model file");
    CompileOptions options;
    options.input_shapes = o.shapes;
    options.time_passes = o.verbose;
    options.tuning_records = o.records;
    CompiledModel model = compile(load_onnx(o.positional[0]), tessera::get_host_target(), options);
    std::printf("optimized graph:\n%s\n", model.optimized_graph().to_string().c_str());
    std::printf("fusion groups (%d, %d distinct pipelines):\n%s\n", model.groups(),
                model.compiled_pipelines(), model.groups_text().c_str());
    std::printf("memory plan:\n%s", model.memory_plan_text().c_str());
    const MemoryPlanSummary plan = model.memory_plan();
    std::printf(
        "peak planned %.3f MB against %.3f MB unplanned (%.1f%%); compile time %.2f s\n",
        plan.planned_peak_bytes / 1e6, plan.unplanned_total_bytes / 1e6,
        plan.unplanned_total_bytes ? 100.0 * plan.planned_peak_bytes / plan.unplanned_total_bytes : 100.0,
        model.compile_seconds());
    return 0;
}

}  // namespace tessera_onnx
