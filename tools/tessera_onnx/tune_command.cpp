#include <cstdio>
#include <stdexcept>

#include "commands.h"
#include "compile_time_inputs.h"
#include "tessera/onnx.h"

namespace tessera_onnx {

// tune MODEL.onnx --records FILE: each distinct fused group tuned in turn, a line per group.
int tune_command(const Options& o) {
    using namespace tessera::graph;
    if (o.positional.size() != 1) throw std::invalid_argument("tune takes one model file");
    if (o.records.empty()) throw std::invalid_argument("tune needs --records FILE, where the records go");
    // The same graph as run makes for the same inputs, so that its groups' signatures match.
    CompileOptions options;
    options.input_shapes = o.shapes;
    options.keep = o.keep;
    for (const auto& [name, file] : o.inputs) {
        const Tensor t = read_tensor_proto(file);
        if (!options.input_shapes.count(name)) options.input_shapes[name] = t.shape();
        if (is_compile_time_input(t)) options.input_values[name] = t;
    }
    tessera::TuneOptions tuning;
    tuning.trials = o.trials;
    tuning.time_budget_seconds = o.time_budget;
    tuning.records_file = o.records;
    tuning.curve_file = o.curve;
    const auto reports = tune_model(load_onnx(o.positional[0]), tessera::get_host_target(), options, tuning);
    int failed = 0;
    for (const GroupTuning& r : reports) {
        std::printf("%-16s %-14s trials %4d  best %9.3f ms  %7.1f s  %s\n", r.signature.c_str(),
                    r.status.c_str(), r.trials, r.best_ms, r.seconds, r.nodes.c_str());
        failed += r.status.rfind("failed", 0) == 0;
    }
    std::printf("%zu distinct groups, %d failed; records in %s\n", reports.size(), failed, o.records.c_str());
    return 0;
}

}  // namespace tessera_onnx
