#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "graph/attribute_text.h"
#include "graph/define_node.h"
#include "graph/group_pipeline.h"
#include "graph/pass_timer.h"
#include "graph/passes/fuse_operators.h"
#include "graph/passes/plan_memory.h"
#include "util/error_stream.h"

namespace tessera::graph {

struct CompiledGroup {
    FusionGroup group;
    std::shared_ptr<GroupPipeline> pipeline;  // shared by the groups of one signature
};

class CompiledModelContents {
public:
    Graph graph;
    Target target;
    std::vector<CompiledGroup> groups;
    std::map<std::string, Tensor> fixed_inputs;  // CompileOptions::input_values
    std::vector<Tensor> tensors;  // by value id: constants, and a buffer for every computed value
    MemoryPlan memory_plan;
    Tensor arena;
    int compiled_pipelines = 0;
    bool profile = false;
    std::vector<double> group_ms;  // with profile: each group's run time, summed over the runs
    int profiled_runs = 0;
    double compile_seconds = 0;
    std::mutex running;  // a pipeline's ImageParams are bound for the duration of a run
};

namespace {

// An input fixed at compile time may be given again, with the same value.
void check_fixed_input(const std::string& name, const Tensor& fixed, const Tensor& given) {
    const bool same = given.defined() && given.type() == fixed.type() && given.shape() == fixed.shape() &&
                      std::memcmp(given.data(), fixed.data(), fixed.bytes()) == 0;
    if (!same)
        TESSERA_RUNTIME_ERROR << "input " << name
                              << " was fixed to another value when the model was compiled; "
                              << "compile the model again with this value.";
}

void check_input(const Value& v, const Tensor& t) {
    const std::vector<int64_t> shape = static_shape(v);
    if (!t.defined()) TESSERA_RUNTIME_ERROR << "input " << v.name << " is an empty Tensor.";
    if (t.type() != v.type || t.shape() != shape) {
        TESSERA_RUNTIME_ERROR << "input " << v.name << " is " << describe(t)
                              << "; the model was compiled for " << describe(Tensor(v.type, shape)) << ".";
    }
}

std::shared_ptr<CompiledModelContents> build(const Graph& g, const Target& target,
                                             const CompileOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    const bool print = graph_timing_requested(options.time_passes);
    auto m = std::make_shared<CompiledModelContents>();
    m->graph = optimize(g, target, options);
    m->target = target;
    m->fixed_inputs = options.input_values;
    m->profile = options.profile;
    const std::vector<FusionGroup> groups = timed(print, "pass fuse operators", [&] {
        return options.fuse ? fuse_operators(m->graph) : one_group_per_node(m->graph);
    });
    // Each signature's pipeline is defined here, in order (a user's schedule runs on this thread),
    // and compiled with the others at once.
    const std::vector<tune::TuningRecord> records = options.tuning_records.empty()
                                                        ? std::vector<tune::TuningRecord>{}
                                                        : tune::read_records(options.tuning_records);
    std::map<std::string, std::shared_ptr<GroupPipeline>> by_signature;
    std::vector<std::shared_ptr<GroupPipeline>> defined;
    std::vector<std::string> names;
    for (const FusionGroup& group : groups) {
        const GroupSchedule user_schedule = user_schedule_of(m->graph, group, options);
        // A group the user schedules shares its code with no other.
        const std::string signature =
            group_signature(m->graph, group) +
            (user_schedule ? "user schedule " + std::to_string(&group - &groups[0]) : "");
        std::shared_ptr<GroupPipeline>& p = by_signature[signature];
        if (!p) {
            p = define_group(m->graph, group, target, user_schedule, records.empty() ? nullptr : &records);
            defined.push_back(p);
            names.push_back("compile group");
            for (int n : group.nodes) names.back() += " " + m->graph.nodes[n].op;
        }
        m->groups.push_back({group, p});
    }
    timed(print, "compile groups", [&] {
        compile_groups(defined, target);
        return 0;
    });
    m->compiled_pipelines = int(defined.size());
    for (size_t i = 0; print && i < defined.size(); i++)
        std::fprintf(stderr, "tessera graph: %-40s %9.2f ms\n", ("  " + names[i]).c_str(),
                     defined[i]->compile_ms);
    m->group_ms.assign(groups.size(), 0.0);
    m->memory_plan =
        timed(print, "pass plan memory", [&] { return plan_memory(m->graph, groups, options.plan_memory); });
    m->arena = Tensor(UInt(8), {m->memory_plan.arena_bytes});
    m->tensors.resize(m->graph.values.size());
    for (size_t id = 0; id < m->graph.values.size(); id++)
        if (m->graph.values[id].constant.defined()) m->tensors[id] = m->graph.values[id].constant;
    for (const MemoryPlan::Buffer& b : m->memory_plan.buffers) {
        const Value& v = m->graph.values[b.value];
        m->tensors[b.value] = Tensor::view(m->arena, size_t(b.offset), v.type, static_shape(v));
    }
    m->compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return m;
}

}  // namespace

CompiledModel compile(const Graph& g, const Target& target, const CompileOptions& options) {
    return CompiledModel(build(g, target, options));
}

CompiledModel compile(const Graph& g, const Target& target,
                      const std::map<std::string, std::vector<int64_t>>& input_shapes) {
    CompileOptions options;
    options.input_shapes = input_shapes;
    return compile(g, target, options);
}

std::map<std::string, Tensor> CompiledModel::run(const std::map<std::string, Tensor>& inputs) const {
    TESSERA_USER_CHECK(contents_) << "run() of a CompiledModel that holds no model; compile one first.";
    CompiledModelContents& m = *contents_;
    std::lock_guard<std::mutex> lock(m.running);
    for (int id : m.graph.inputs) {
        const Value& v = m.graph.values[id];
        auto it = inputs.find(v.name);
        if (it == inputs.end()) TESSERA_RUNTIME_ERROR << "the model's input " << v.name << " is not given.";
        check_input(v, it->second);
        m.tensors[id] = it->second;
    }
    for (const auto& [name, t] : inputs) {
        auto fixed = m.fixed_inputs.find(name);
        if (fixed != m.fixed_inputs.end()) {
            check_fixed_input(name, fixed->second, t);
            continue;
        }
        const int id = m.graph.find_value(name);
        if (id < 0 || std::find(m.graph.inputs.begin(), m.graph.inputs.end(), id) == m.graph.inputs.end())
            TESSERA_RUNTIME_ERROR << "the model has no input named " << name << ".";
    }
    for (size_t i = 0; i < m.groups.size(); i++) {
        const auto start = std::chrono::steady_clock::now();
        run_group(*m.groups[i].pipeline, m.groups[i].group, m.tensors, m.target);
        if (m.profile)
            m.group_ms[i] +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    if (m.profile) m.profiled_runs++;
    std::map<std::string, Tensor> outputs;
    for (int id : m.graph.outputs) outputs[m.graph.values[id].name] = m.tensors[id].clone();
    for (int id : m.graph.inputs) m.tensors[id] = Tensor();
    return outputs;
}

const Graph& CompiledModel::optimized_graph() const { return contents_->graph; }

std::string CompiledModel::groups_text() const {
    std::ostringstream out;
    const Graph& g = contents_->graph;
    for (size_t i = 0; i < contents_->groups.size(); i++) {
        const FusionGroup& group = contents_->groups[i].group;
        out << "group " << i << ":";
        for (int n : group.nodes) out << " " << g.nodes[n].op;
        out << " ->";
        for (int id : group.outputs) out << " " << g.values[id].name;
        const std::string& origin = contents_->groups[i].pipeline->schedule_origin;
        if (origin != "operator") out << " (" << origin << " schedule)";
        out << "\n";
    }
    return out.str();
}

MemoryPlanSummary CompiledModel::memory_plan() const {
    const MemoryPlan& p = contents_->memory_plan;
    return {p.arena_bytes, p.unplanned_bytes, int(p.buffers.size())};
}

std::string CompiledModel::memory_plan_text() const {
    std::ostringstream out;
    const MemoryPlan& p = contents_->memory_plan;
    for (const MemoryPlan::Buffer& b : p.buffers) {
        out << contents_->graph.values[b.value].name << ": bytes " << b.offset << ".." << b.offset + b.bytes
            << ", groups " << b.first_group << ".." << b.last_group;
        if (b.shares_with >= 0) out << ", in place of " << contents_->graph.values[b.shares_with].name;
        out << "\n";
    }
    out << "planned peak " << p.arena_bytes << " bytes; unplanned total " << p.unplanned_bytes << " bytes ("
        << p.buffers.size() << " buffers)\n";
    return out.str();
}

std::string CompiledModel::profile_text() const {
    const CompiledModelContents& m = *contents_;
    std::vector<size_t> order(m.groups.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m.group_ms[a] > m.group_ms[b]; });
    double total = 0;
    for (double ms : m.group_ms) total += ms;
    std::ostringstream out;
    out.precision(3);
    const int runs = std::max(m.profiled_runs, 1);
    out << "groups by run time, " << m.profiled_runs << " runs, " << total / runs
        << " ms per run in groups:\n";
    for (size_t i : order) {
        out << std::fixed << "  " << m.group_ms[i] / runs << " ms  "
            << (total > 0 ? 100 * m.group_ms[i] / total : 0) << "%  group " << i << ":";
        for (int n : m.groups[i].group.nodes) out << " " << m.graph.nodes[n].op;
        for (int id : m.groups[i].group.outputs)
            out << " -> " << m.graph.values[id].name << " " << shape_text(m.graph.values[id]);
        out << "\n";
    }
    return out.str();
}

double CompiledModel::compile_seconds() const { return contents_->compile_seconds; }
int CompiledModel::groups() const { return int(contents_->groups.size()); }
int CompiledModel::compiled_pipelines() const { return contents_->compiled_pipelines; }

}  // namespace tessera::graph
