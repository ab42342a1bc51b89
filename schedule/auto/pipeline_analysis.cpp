#include "schedule/auto/pipeline_analysis.h"

#include "tessera/func.h"

#include <algorithm>

#include "ir/equal.h"
#include "ir/ir_util.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "lang/parameter.h"
#include "lowering/environment.h"
#include "lowering/inline_functions.h"
#include "lowering/names.h"
#include "schedule/auto/integer_evaluator.h"
#include "util/error_stream.h"

namespace tessera::autoschedule {
namespace {

using FunctionPtr = std::shared_ptr<lang::FunctionContents>;

// The value each Param and each input buffer's min and extent stand for while scheduling: their
// estimates. Parameters without one keep their names, and the footprints that use them cannot be
// evaluated (reported where that matters).
class CollectEstimates : public ir::Visitor {
public:
    std::map<std::string, Expr> values;

private:
    void add(const lang::ParameterContents& p) {
        if (!p.is_buffer) {
            if (p.scalar_estimate.defined()) values[p.name] = p.scalar_estimate;
            return;
        }
        for (size_t d = 0; d < p.estimates.size(); d++) {
            const Range& r = p.estimates[d];
            if (!r.min.defined()) continue;
            values[lowering::buffer_min(p.name, int(d))] = r.min;
            values[lowering::buffer_extent(p.name, int(d))] = r.extent;
        }
    }
    void visit(const ir::Variable* v) override {
        if (v->param) add(*v->param);
    }
    void visit(const ir::Call* c) override {
        if (std::shared_ptr<lang::ParameterContents> p = c->parameter()) add(*p);
        ir::Visitor::visit(c);
    }
};

// Arithmetic per evaluation of an expression: one per operation, more for the transcendental
// functions, nothing for reads (counted as footprints) and constants.
class CountOperations : public ir::Visitor {
public:
    explicit CountOperations(bool count_indices) : count_indices_(count_indices) {}
    double ops = 0;

private:
    bool count_indices_;
    void visit(const ir::Call* c) override {
        using ir::Intrinsic;
        const bool read = c->call_type == ir::CallType::Func || c->call_type == ir::CallType::Image;
        if (read && !count_indices_) return;
        if (!read) {
            switch (c->intrinsic) {
                case Intrinsic::Exp:
                case Intrinsic::Log:
                case Intrinsic::Pow:
                case Intrinsic::Sin:
                case Intrinsic::Cos:
                case Intrinsic::Tan:
                case Intrinsic::Tanh: ops += 20; break;
                case Intrinsic::Sqrt: ops += 4; break;
                case Intrinsic::Likely:
                case Intrinsic::LikelyIfInnermost: break;
                default: ops += 1;
            }
        }
        ir::Visitor::visit(c);
    }
#define TESSERA_COUNT(T)               \
    void visit(const T* op) override { \
        ops += 1;                      \
        ir::Visitor::visit(op);        \
    }
    TESSERA_COUNT(ir::Add)
    TESSERA_COUNT(ir::Sub)
    TESSERA_COUNT(ir::Mul)
    TESSERA_COUNT(ir::Min)
    TESSERA_COUNT(ir::Max)
    TESSERA_COUNT(ir::EQ)
    TESSERA_COUNT(ir::NE)
    TESSERA_COUNT(ir::LT)
    TESSERA_COUNT(ir::LE)
    TESSERA_COUNT(ir::GT)
    TESSERA_COUNT(ir::GE)
    TESSERA_COUNT(ir::And)
    TESSERA_COUNT(ir::Or)
    TESSERA_COUNT(ir::Not)
    TESSERA_COUNT(ir::Select)
    TESSERA_COUNT(ir::Cast)
#undef TESSERA_COUNT
    void visit(const ir::Div* op) override {
        ops += op->type.is_float() ? 4 : 8;
        ir::Visitor::visit(op);
    }
    void visit(const ir::Mod* op) override {
        ops += 8;
        ir::Visitor::visit(op);
    }
};

class CountDivisions : public ir::Visitor {
public:
    int found = 0;

private:
    void visit(const ir::Div* op) override {
        found++;
        ir::Visitor::visit(op);
    }
    void visit(const ir::Mod* op) override {
        found++;
        ir::Visitor::visit(op);
    }
};

// In the largest end of any dimension.
int divisions_in(const ir::Box& box) {
    int most = 0;
    for (const ir::Interval& i : box) {
        for (const Expr& e : {i.min, i.max}) {
            CountDivisions counter;
            counter.include(e);
            most = std::max(most, counter.found);
        }
    }
    return most;
}

double operations(const std::vector<Expr>& exprs, bool count_indices = true) {
    CountOperations counter(count_indices);
    for (const Expr& e : exprs) counter.include(e);
    return counter.ops;
}

// The distinct calls of each Func or image: a call repeated with the same arguments (sxx(x, y)
// three times in one expression) is one value, computed once after common subexpressions are
// shared.
class CountCalls : public ir::Visitor {
public:
    std::map<std::string, int> calls;
    std::map<std::string, int> element_bytes;

private:
    void visit(const ir::Call* c) override {
        if (c->call_type == ir::CallType::Func || c->call_type == ir::CallType::Image) {
            std::vector<ir::Expr>& seen = seen_[c->name];
            const ir::Expr call = ir::handle_of(c);
            if (std::none_of(seen.begin(), seen.end(),
                             [&](const ir::Expr& e) { return ir::equal(e, call); })) {
                seen.push_back(call);
                calls[c->name]++;
            }
            element_bytes[c->name] = c->type.bytes();
        }
        ir::Visitor::visit(c);
    }
    std::map<std::string, std::vector<ir::Expr>> seen_;
};

Span constant_span(const Expr& min, const Expr& extent) {
    std::optional<int64_t> lo = evaluate_integer(ir::simplify(min), {});
    std::optional<int64_t> n = evaluate_integer(ir::simplify(extent), {});
    if (!lo || !n) return Span{0, -1};
    return Span{*lo, *lo + *n - 1};
}

// The RVars of a definition with their constant ranges. Bounds that depend on a Param or an input's
// size need estimates.
std::map<std::string, Span> rvar_spans(const lang::FunctionContents& f, const lang::Definition& d) {
    std::map<std::string, Span> spans;
    if (!d.rdom) return spans;
    for (const lang::ReductionVariable& r : d.rdom->vars) {
        TESSERA_USER_CHECK(evaluate_integer(ir::simplify(r.min), {}) &&
                           evaluate_integer(ir::simplify(r.extent), {}))
            << "Pipeline::auto_schedule: the RVar " << r.name << " of " << f.name << " ranges over [" << r.min
            << ", " << r.min << " + " << r.extent
            << "), which depends on a Param or an input's size without an estimate. Give them estimates "
               "(Param::set_estimate, ImageParam::set_estimates).";
        spans[r.name] = constant_span(r.min, r.extent);
    }
    return spans;
}

// The symbolic scope of a definition of f: pure Vars over the consumer's region variables, RVars
// over their constant ranges.
std::map<std::string, ir::Interval> definition_scope(const lang::FunctionContents& f,
                                                     const lang::Definition& d) {
    std::map<std::string, ir::Interval> scope;
    for (size_t i = 0; i < f.pure_args.size(); i++) {
        scope[f.pure_args[i]] =
            ir::Interval(ir::int_var(region_min_name(int(i))), ir::int_var(region_max_name(int(i))));
    }
    for (const auto& [name, span] : rvar_spans(f, d)) {
        scope[name] = ir::Interval(Expr(int32_t(span.min)), Expr(int32_t(span.max)));
    }
    return scope;
}

std::vector<Expr> expressions_of(const lang::Definition& d, bool with_args) {
    std::vector<Expr> exprs = d.values;
    if (with_args) exprs.insert(exprs.end(), d.args.begin(), d.args.end());
    if (d.rdom && d.rdom->predicate.defined()) exprs.push_back(d.rdom->predicate);
    return exprs;
}

// Every producer a Func reads, with the box it reads in terms of the Func's region.
std::vector<Footprint> footprints_of(const lang::FunctionContents& f, const lowering::Environment& env) {
    std::map<std::string, Footprint> by_producer;
    auto add = [&](const lang::Definition& d, bool is_update) {
        const std::map<std::string, ir::Interval> scope = definition_scope(f, d);
        CountCalls counter;
        for (const Expr& e : expressions_of(d, is_update)) {
            counter.include(e);
            for (auto& [name, box] : ir::boxes_touched(e, scope)) {
                if (name == f.name) continue;  // an update reading its own Func
                auto [it, fresh] = by_producer.try_emplace(name);
                Footprint& fp = it->second;
                if (fresh) {
                    fp.producer = name;
                    fp.producer_is_image = !env.functions.count(name);
                    fp.box = box;
                    continue;
                }
                for (size_t i = 0; i < box.size() && i < fp.box.size(); i++)
                    fp.box[i] = ir::interval_union(fp.box[i], box[i]);
            }
        }
        for (const auto& [name, n] : counter.calls) {
            if (!by_producer.count(name)) continue;
            by_producer[name].calls += n;
            by_producer[name].element_bytes = counter.element_bytes[name];
        }
    };
    add(f.pure, false);
    for (const lang::Definition& u : f.updates) add(u, true);
    std::vector<Footprint> result;
    for (auto& [name, fp] : by_producer) {
        fp.divisions = divisions_in(fp.box);
        result.push_back(std::move(fp));
    }
    return result;
}

Region estimated_output_region(const lang::FunctionContents& f, const std::string& name) {
    Region region;
    for (const std::string& var : f.pure_args) {
        auto it = std::find_if(f.schedule.estimates.begin(), f.schedule.estimates.end(),
                               [&](const schedule::Bound& b) { return b.var == var; });
        Expr min, extent;
        if (it != f.schedule.estimates.end()) {
            min = it->min;
            extent = it->extent;
        } else {
            const int d = int(region.size());
            for (const auto& buffer : f.output_buffers) {
                if (size_t(d) < buffer->estimates.size() && buffer->estimates[size_t(d)].min.defined()) {
                    min = buffer->estimates[size_t(d)].min;
                    extent = buffer->estimates[size_t(d)].extent;
                }
            }
        }
        TESSERA_USER_CHECK(min.defined())
            << "Pipeline::auto_schedule: the output " << name << " has no estimate for its Var " << var
            << ". Call " << name << ".set_estimate(" << var << ", min, extent) (or " << name
            << ".set_estimates({{min, extent}, ...}) for every Var) with the region a run typically "
               "computes.";
        region.push_back(constant_span(min, extent));
    }
    return region;
}

}  // namespace

void widen(Region& region, const Region& more) {
    if (region.empty()) {
        region = more;
        return;
    }
    for (size_t i = 0; i < region.size() && i < more.size(); i++) {
        region[i].min = std::min(region[i].min, more[i].min);
        region[i].max = std::max(region[i].max, more[i].max);
    }
}

namespace {

// What an update writes of its own Func, where that is known: f(r.x, y) += ... computes f over
// r.x's range even where no consumer reads it.
void widen_by_update_writes(const lang::FunctionContents& f, Region& region) {
    for (const lang::Definition& u : f.updates) {
        std::map<std::string, ir::Interval> scope = definition_scope(f, u);
        std::map<std::string, int64_t> values;
        for (size_t i = 0; i < region.size(); i++) {
            values[region_min_name(int(i))] = region[i].min;
            values[region_max_name(int(i))] = region[i].max;
        }
        for (size_t i = 0; i < u.args.size() && i < region.size(); i++) {
            ir::Interval bounds = ir::bounds_of_expr(u.args[i], scope);
            std::optional<int64_t> lo = evaluate_integer(bounds.min, values);
            std::optional<int64_t> hi = evaluate_integer(bounds.max, values);
            if (lo && hi) {
                region[i].min = std::min(region[i].min, *lo);
                region[i].max = std::max(region[i].max, *hi);
            }
        }
    }
}

double iterations(const lang::FunctionContents& f, const lang::Definition& d, const Region& region,
                  bool is_update) {
    if (!is_update) return double(points_of(region));
    double n = 1;
    for (const auto& [name, span] : rvar_spans(f, d)) n *= double(std::max<int64_t>(span.extent(), 0));
    for (const Expr& a : d.args) {
        const auto* v = a.as<ir::Variable>();
        if (!v || v->var_kind != ir::VariableKind::PureVar) continue;
        auto it = std::find(f.pure_args.begin(), f.pure_args.end(), v->name);
        if (it != f.pure_args.end()) n *= double(region[size_t(it - f.pure_args.begin())].extent());
    }
    return n;
}

std::vector<std::string> pure_vars_of(const lang::Definition& d) {
    std::vector<std::string> vars;
    for (const Expr& a : d.args) {
        const auto* v = a.as<ir::Variable>();
        if (v && v->var_kind == ir::VariableKind::PureVar) vars.push_back(v->name);
    }
    return vars;
}

std::vector<std::string> rvars_of(const lang::Definition& d) {
    std::vector<std::string> vars;
    if (d.rdom)
        for (const auto& r : d.rdom->vars) vars.push_back(r.name);
    return vars;
}

StageNode describe_stage(const lowering::Environment& env, const std::string& name, const FunctionPtr& user) {
    const lang::FunctionContents& f = env.function(name);
    StageNode s;
    s.name = name;
    s.func = user;
    s.vars = f.pure_args;
    for (const lang::Definition& u : f.updates) {
        s.update_pure_vars.push_back(pure_vars_of(u));
        s.update_rvars.push_back(rvars_of(u));
        const std::optional<int64_t> steps =
            u.rdom && !u.rdom->vars.empty() ? ir::as_const_int(u.rdom->vars[0].extent) : std::nullopt;
        s.innermost_rvar_steps.push_back(steps.value_or(0));
    }
    s.is_output = env.is_output(name);
    s.has_updates = !f.updates.empty();
    s.user_scheduled = has_user_schedule(*user);
    s.footprints = footprints_of(f, env);
    for (const Type& t : f.output_types) {
        s.bytes_per_point += t.bytes();
        s.widest_type_bytes = std::max(s.widest_type_bytes, t.bytes());
    }
    return s;
}

void propagate_regions(PipelineAnalysis& a, const lowering::Environment& env) {
    for (size_t k = a.stages.size(); k-- > 0;) {
        StageNode& s = a.stages[k];
        const lang::FunctionContents& f = env.function(s.name);
        if (s.is_output) widen(s.region, estimated_output_region(*s.func, s.name));
        TESSERA_INTERNAL_CHECK(!s.region.empty() || f.pure_args.empty())
            << "auto_schedule: no region for " << s.name;
        widen_by_update_writes(f, s.region);
        double ops = operations(expressions_of(f.pure, false)) * iterations(f, f.pure, s.region, false);
        for (const lang::Definition& u : f.updates)
            ops += operations(expressions_of(u, true)) * iterations(f, u, s.region, true);
        s.ops_per_point = ops / double(std::max<int64_t>(points_of(s.region), 1));
        s.value_ops = operations(f.pure.values, false);
        for (const Footprint& fp : s.footprints) {
            std::optional<Region> needed = evaluate_footprint(fp, s.region);
            if (fp.producer_is_image) {
                if (needed) widen(a.image_regions[fp.producer], *needed);
                continue;
            }
            TESSERA_USER_CHECK(needed)
                << "Pipeline::auto_schedule: the region of " << fp.producer << " that " << s.name
                << " reads cannot be bounded: an index depends on the values of data, or on a Param or "
                   "an input's size without an estimate. Clamp the index (clamp(e, min, max)), or give "
                   "the Params and inputs estimates (set_estimate, set_estimates).";
            StageNode& producer = a.stages[a.index.at(fp.producer)];
            widen(producer.region, *needed);
            producer.consumers.push_back(s.name);
        }
    }
}

}  // namespace

int64_t points_of(const Region& r) {
    int64_t n = 1;
    for (const Span& s : r) n *= std::max<int64_t>(s.extent(), 0);
    return n;
}

std::string region_min_name(int dim) { return "region.min." + std::to_string(dim); }
std::string region_max_name(int dim) { return "region.max." + std::to_string(dim); }

std::optional<Region> evaluate_footprint(const Footprint& f, const Region& consumer) {
    std::map<std::string, int64_t> values;
    for (size_t i = 0; i < consumer.size(); i++) {
        values[region_min_name(int(i))] = consumer[i].min;
        values[region_max_name(int(i))] = consumer[i].max;
    }
    Region region;
    for (const ir::Interval& i : f.box) {
        std::optional<int64_t> lo = evaluate_integer(i.min, values);
        std::optional<int64_t> hi = evaluate_integer(i.max, values);
        if (!lo || !hi) return std::nullopt;
        region.push_back(Span{*lo, *hi});
    }
    return region;
}

bool has_user_schedule(const lang::FunctionContents& f) {
    const schedule::FuncSchedule& s = f.schedule;
    auto stage_scheduled = [](const lang::Definition& d) {
        return !d.schedule.splits.empty() || !d.schedule.dims.empty() || !d.schedule.tensorized.empty() ||
               d.schedule.atomic || d.schedule.gpu_single_thread || !d.specializations.empty();
    };
    if (!s.compute_level.is_inherited() || !s.store_level.is_inherited() || !s.bounds.empty() ||
        !s.alignments.empty() || !s.storage_alignments.empty() || !s.storage_order.empty() ||
        s.memory_type != MemoryType::Auto)
        return true;
    if (stage_scheduled(f.pure)) return true;
    return std::any_of(f.updates.begin(), f.updates.end(), stage_scheduled);
}

std::vector<std::shared_ptr<lang::FunctionContents>> output_functions(const Pipeline& p) {
    std::vector<std::shared_ptr<lang::FunctionContents>> outputs;
    for (const Func& f : p.outputs()) outputs.push_back(f.function());
    return outputs;
}

std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>> pipeline_funcs(
    const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs) {
    lowering::Environment env = lowering::build_environment(outputs);
    std::vector<std::pair<std::string, FunctionPtr>> funcs;
    for (const FunctionPtr& f : lowering::pipeline_functions(outputs))
        funcs.emplace_back(env.names.at(f.get()), f);
    return funcs;
}

PipelineAnalysis analyze_pipeline(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                                  const std::set<std::string>& inlined) {
    lowering::Environment env = lowering::build_environment(outputs);
    std::map<std::string, FunctionPtr> users;
    for (const FunctionPtr& f : lowering::pipeline_functions(outputs)) users[env.names.at(f.get())] = f;

    CollectEstimates estimates;
    for (auto& [name, f] : env.functions) {
        lowering::for_each_definition(f, [&](const Expr& e) {
            estimates.include(e);
            return e;
        });
    }
    for (auto& [name, f] : env.functions) {
        lowering::for_each_definition(f, [&](const Expr& e) { return ir::substitute(estimates.values, e); });
        // The analysis decides placement itself; the user's levels are read from the user's Funcs.
        f.schedule.compute_level =
            inlined.count(name) ? schedule::LoopLevel::inlined() : schedule::LoopLevel::root();
        f.schedule.store_level = schedule::LoopLevel();
    }
    lowering::inline_functions(env);

    PipelineAnalysis a;
    for (const std::string& name : env.order) {
        a.index[name] = a.stages.size();
        a.stages.push_back(describe_stage(env, name, users.at(name)));
    }
    // A Func the user computes or stores at a loop of another needs that other's loops as written.
    for (const StageNode& s : a.stages) {
        for (const schedule::LoopLevel* level :
             {&s.func->schedule.compute_level, &s.func->schedule.store_level}) {
            const FunctionPtr consumer = level->is_at() ? level->function.lock() : nullptr;
            auto it = consumer ? env.names.find(consumer.get()) : env.names.end();
            if (it != env.names.end() && a.index.count(it->second))
                a.stages[a.index.at(it->second)].user_scheduled = true;
        }
    }
    for (const StageNode& s : a.stages)
        for (const Footprint& fp : s.footprints)
            if (fp.producer_is_image) a.image_element_bytes[fp.producer] = fp.element_bytes;
    propagate_regions(a, env);
    return a;
}

}  // namespace tessera::autoschedule
