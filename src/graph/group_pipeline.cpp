#include "graph/group_pipeline.h"

#include <atomic>
#include <exception>
#include <thread>

#include <chrono>
#include <map>
#include <sstream>

#include "graph/attribute_text.h"
#include "graph/define_node.h"
#include "graph/ops/default_schedules.h"
#include "lang/function.h"
#include "lowering/environment.h"

namespace tessera::graph {
namespace {

// Constants up to this many elements take part in a group's signature: operators read such
// values when they are defined (shapes, axes, pads, scales); larger ones (weights) are data.
constexpr int64_t signature_constant_limit = 1024;

bool is_literal_constant(const Value& v) { return v.constant.defined() && v.constant.elements() == 1; }

TensorFunc literal_tensor(const Value& v, const std::string& name) {
    const Expr e = scalar_expr(v.constant);
    return define_tensor(name, v.type, static_shape(v), [&](const std::vector<Expr>&) { return e; });
}

// A Func that computes exactly what f does, defined apart: an output must be a Func of the
// pipeline's own, distinct from its other outputs and from its inputs.
TensorFunc copy_of(const TensorFunc& t, const std::string& name) {
    return define_tensor(name, t.type, t.shape, [&](const std::vector<Expr>& i) { return t(i); });
}

// The region of a tensor of this shape (outermost first), as estimates list it (innermost first);
// empty for a tensor without elements, which has no estimate to give.
Region estimated_region(const std::vector<int64_t>& shape) {
    Region region;
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
        if (*it <= 0) return {};
        region.push_back(Range(0, int(*it)));
    }
    return region;
}

}  // namespace

std::string group_signature(const Graph& g, const FusionGroup& group) {
    std::ostringstream out;
    std::map<int, std::string> slot;
    for (size_t i = 0; i < group.inputs.size(); i++) {
        const Value& v = g.values[group.inputs[i]];
        slot[group.inputs[i]] = "in" + std::to_string(i);
        out << "in" << i << ":";
        out << shape_text(v);
        if (v.constant.defined() && v.constant.elements() <= signature_constant_limit)
            out << "=" << tensor_values_text(v.constant);
        out << ";";
    }
    int next = 0;
    for (int n : group.nodes) {
        const Node& node = g.nodes[n];
        for (int id : node.outputs) {
            slot[id] = "v" + std::to_string(next++);
            out << slot[id] << ":";
            out << shape_text(g.values[id]);
            out << ",";
        }
        out << "=" << node.op << "(";
        for (int id : node.inputs) out << (id < 0 ? "_" : slot.at(id)) << ",";
        out << ")";
        out << attributes_key(node.attributes);
        out << "\n";
    }
    for (int id : group.outputs) out << "out " << slot.at(id) << ";";
    return out.str();
}

GroupSchedule user_schedule_of(const Graph& g, const FusionGroup& group, const CompileOptions& options) {
    for (int n : group.nodes) {
        auto it = options.schedules.find(g.nodes[n].name);
        if (it != options.schedules.end()) return it->second;
    }
    return {};
}

GroupDefinition define_group_funcs(const Graph& g, const FusionGroup& group, const Target& target) {
    GroupDefinition d;
    d.result = std::make_shared<GroupPipeline>();
    std::map<int, TensorFunc> tensors;
    for (size_t i = 0; i < group.inputs.size(); i++) {
        const Value& v = g.values[group.inputs[i]];
        const std::string name = "input" + std::to_string(i);
        if (is_literal_constant(v)) {
            tensors[group.inputs[i]] = literal_tensor(v, name);
            d.result->params.emplace_back();
            continue;
        }
        ParamTensor p = param_tensor(v, name);
        if (const Region r = estimated_region(static_shape(v)); !r.empty()) p.param.set_estimates(r);
        tensors[group.inputs[i]] = p.tensor;
        d.result->params.push_back(p.param);
    }
    for (int n : group.nodes) {
        const Node& node = g.nodes[n];
        std::vector<TensorFunc> inputs;
        for (int id : node.inputs) inputs.push_back(id < 0 ? TensorFunc{} : tensors.at(id));
        OpResult r = define_node(g, node, inputs, target);
        for (size_t i = 0; i < node.outputs.size(); i++) tensors[node.outputs[i]] = r.outputs[i];
        if (n == group.nodes[0]) d.operator_schedule = r.schedule;
    }
    for (int id : group.outputs) {
        TensorFunc t = tensors.at(id);
        bool reused = false;
        for (const Func& f : d.outputs) reused = reused || f.name() == t.func.name();
        for (const auto& [in, tf] : tensors)
            if (std::find(group.inputs.begin(), group.inputs.end(), in) != group.inputs.end())
                reused = reused || tf.func.name() == t.func.name();
        if (reused) t = copy_of(t, "output" + std::to_string(d.outputs.size()));
        if (const Region r = estimated_region(t.shape); !r.empty()) t.func.set_estimates(r);
        d.outputs.push_back(t.func);
        d.shapes.push_back(t.shape);
    }
    return d;
}

void apply_operator_schedule(GroupDefinition& d, const Target& target) {
    if (d.operator_schedule && d.outputs.size() == 1) {
        d.operator_schedule(d.outputs[0], d.shapes[0], target);
        return;
    }
    for (size_t i = 0; i < d.outputs.size(); i++) {
        if (d.outputs.size() > 1) d.outputs[i].compute_root();
        schedule_elementwise(d.outputs[i], d.shapes[i], target);
    }
}

std::shared_ptr<GroupPipeline> define_group(const Graph& g, const FusionGroup& group, const Target& target,
                                            const GroupSchedule& user_schedule,
                                            const std::vector<tune::TuningRecord>* records) {
    const auto start = std::chrono::steady_clock::now();
    GroupDefinition d = define_group_funcs(g, group, target);
    std::vector<Func>& outputs = d.outputs;
    const std::vector<std::vector<int64_t>>& shapes = d.shapes;
    Pipeline unscheduled(outputs);
    if (user_schedule) {
        TESSERA_USER_CHECK(outputs.size() == 1)
            << "a schedule was given for node " << g.nodes[group.nodes[0]].name << ", whose group has "
            << outputs.size() << " outputs; schedules are for groups of one output.";
        GroupScheduleContext context{outputs[0], shapes[0], {}, target};
        for (const auto& f : lowering::pipeline_functions({outputs[0].function()}))
            context.funcs[f->name] = Func(f);
        user_schedule(context);
        d.result->schedule_origin = "user";
    } else if (records &&
               tune::apply_records(unscheduled, *records, target, "CompileOptions::tuning_records")) {
        d.result->schedule_origin = "tuned";
    } else {
        apply_operator_schedule(d, target);
    }
    d.result->pipeline = Pipeline(outputs);
    d.result->compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return d.result;
}

void compile_groups(const std::vector<std::shared_ptr<GroupPipeline>>& pipelines, const Target& target) {
    std::vector<std::exception_ptr> errors(pipelines.size());
    std::atomic<size_t> next{0};
    auto compile_next = [&] {
        for (size_t i = next++; i < pipelines.size(); i = next++) {
            const auto start = std::chrono::steady_clock::now();
            try {
                pipelines[i]->pipeline.compile_jit(target);
            } catch (...) {
                errors[i] = std::current_exception();
            }
            pipelines[i]->compile_ms +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
    };
    const size_t threads =
        std::min<size_t>(pipelines.size(), std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < threads; t++) helpers.emplace_back(compile_next);
    compile_next();
    for (std::thread& h : helpers) h.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

std::shared_ptr<GroupPipeline> compile_group(const Graph& g, const FusionGroup& group, const Target& target,
                                             const GroupSchedule& user_schedule) {
    std::shared_ptr<GroupPipeline> p = define_group(g, group, target, user_schedule);
    compile_groups({p}, target);
    return p;
}

void run_group(GroupPipeline& p, const FusionGroup& group, const std::vector<Tensor>& tensors,
               const Target& target) {
    for (size_t i = 0; i < group.inputs.size(); i++)
        if (p.params[i].defined()) p.params[i].set(buffer_view(tensors[group.inputs[i]]));
    std::vector<Buffer<>> outputs;
    bool empty = false;
    for (int id : group.outputs) {
        outputs.push_back(buffer_view(tensors[id]));
        empty = empty || tensors[id].elements() == 0;
    }
    if (!empty) p.pipeline.realize(Realization(outputs), target);
}

}  // namespace tessera::graph
