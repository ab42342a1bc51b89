// The graph layer's passes, in the order compile() runs them.

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "graph/pass_timer.h"
#include "graph/passes/bind_input_shapes.h"
#include "graph/passes/eliminate_common_subexpressions.h"
#include "graph/passes/eliminate_dead_nodes.h"
#include "graph/passes/fold_batch_norm.h"
#include "graph/passes/infer_shapes.h"
#include "graph/passes/simplify_inference.h"
#include "util/error_stream.h"

namespace tessera::graph {
namespace {

// Values the caller asked to keep become outputs, so that no pass removes or fuses them away.
Graph mark_kept_values(const Graph& g, const std::vector<std::string>& keep) {
    Graph out = g;
    for (const std::string& name : keep) {
        const int id = out.find_value(name);
        TESSERA_USER_CHECK(id >= 0) << "no value of the model is named " << name << "; it cannot be kept.";
        if (std::find(out.outputs.begin(), out.outputs.end(), id) == out.outputs.end())
            out.outputs.push_back(id);
    }
    return out;
}

}  // namespace

bool graph_timing_requested(bool option) {
    const char* v = std::getenv("TESSERA_TIME_GRAPH");
    return option || (v && std::strcmp(v, "0") != 0 && *v);
}

Graph optimize(const Graph& input, const Target& target, const CompileOptions& options) {
    const bool print = graph_timing_requested(options.time_passes);
    auto pass = [&](const char* name, auto&& f) { return timed(print, std::string("pass ") + name, f); };
    Graph g = mark_kept_values(input, options.keep);
    g = pass("bind input values", [&] { return bind_input_values(g, options.input_values); });
    g = pass("bind input shapes", [&] { return bind_input_shapes(g, options.input_shapes); });
    g = pass("infer shapes and fold constants", [&] { return infer_shapes(g, target); });
    g = pass("eliminate dead nodes", [&] { return eliminate_dead_nodes(g); });
    g = pass("fold batch norm into conv", [&] { return fold_batch_norm(g); });
    g = pass("simplify inference", [&] { return simplify_inference(g); });
    g = pass("infer shapes of the new nodes", [&] { return infer_shapes(g, target); });
    g = pass("eliminate common subexpressions", [&] { return eliminate_common_subexpressions(g); });
    g = pass("eliminate dead nodes", [&] { return eliminate_dead_nodes(g); });
    return g;
}

}  // namespace tessera::graph
