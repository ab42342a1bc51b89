#include "schedule/auto/contractions.h"

#include <algorithm>
#include <map>
#include <optional>

#include "ir/ir_util.h"
#include "schedule/auto/grouping.h"
#include "schedule/auto/image_reads.h"
#include "schedule/auto/tessera_autoscheduler.h"

namespace tessera::autoschedule {
namespace {

// cache_read names the Vars of its copy v0, v1, ...
std::string copy_var(size_t d) { return "v" + std::to_string(d); }

// A name for a made Func, distinct from every Func of the pipeline and every one made before.
std::string fresh_name(const std::string& base, const PipelineFuncs& funcs,
                       const std::vector<FuncPlan>& made) {
    auto taken = [&](const std::string& name) {
        return std::any_of(funcs.begin(), funcs.end(), [&](const auto& f) { return f.first == name; }) ||
               std::any_of(made.begin(), made.end(), [&](const FuncPlan& p) { return p.name == name; });
    };
    std::string name = base;
    for (int k = 2; taken(name); k++) name = base + std::to_string(k);
    return name;
}

// The dimension of the ImageParam that the contraction r's updates index by its innermost Var,
// where every read of the image there indexes that one dimension by it and no dimension by another
// pure Var of r. (An image read only by the pure definition, a bias, is read once per point.)
std::optional<size_t> packed_dimension(const StageNode& r, const std::string& image) {
    std::optional<size_t> dim;
    std::vector<const ir::Call*> reads;
    for (const lang::Definition& u : r.func->updates) {
        const std::vector<const ir::Call*> more = image_reads(u, image);
        reads.insert(reads.end(), more.begin(), more.end());
    }
    if (reads.empty()) return std::nullopt;
    for (const ir::Call* c : reads) {
        if (!c->parameter()) return std::nullopt;
        std::optional<size_t> here;
        for (size_t d = 0; d < c->args.size(); d++) {
            for (size_t v = 1; v < r.vars.size(); v++)
                if (ir::uses_var(c->args[d], r.vars[v])) return std::nullopt;
            if (!ir::uses_var(c->args[d], r.vars[0])) continue;
            if (here) return std::nullopt;
            here = d;
        }
        if (!here || (dim && *dim != *here)) return std::nullopt;
        dim = here;
    }
    return dim;
}

// Renames the made Funcs' stages from the names the analysis gave them to their names in the plan.
void rename_stages(PipelineAnalysis& a, const std::map<std::string, std::string>& names) {
    auto renamed = [&](const std::string& name) {
        auto it = names.find(name);
        return it == names.end() ? name : it->second;
    };
    a.index.clear();
    for (StageNode& s : a.stages) {
        s.name = renamed(s.name);
        for (Footprint& fp : s.footprints)
            if (!fp.producer_is_image) fp.producer = renamed(fp.producer);
        for (std::string& c : s.consumers) c = renamed(c);
        a.index[s.name] = size_t(&s - a.stages.data());
    }
}

// The copy's Vars (cache_read names them v0, v1, ...) with the packed dimension's first.
Directive storage_order(size_t dimensions, size_t packed) {
    Directive d{Directive::Kind::ReorderStorage, 0, {}, 0, TailStrategy::Auto, ""};
    d.loops.push_back(LoopName{copy_var(packed), false});
    for (size_t i = 0; i < dimensions; i++)
        if (i != packed) d.loops.push_back(LoopName{copy_var(i), false});
    return d;
}

// The packed dimension of a copy: the first in the storage order its plan gives.
int packed_dimension_of(const FuncPlan& copy) {
    for (const Directive& d : copy.directives)
        if (d.kind == Directive::Kind::ReorderStorage) return std::stoi(d.loops[0].name.substr(1));
    return 0;
}

bool analyzable_contraction(const StageNode& s) { return is_contraction(s) && !s.user_scheduled; }

}  // namespace

std::vector<FuncPlan> contraction_funcs(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                                        const PipelineFuncs& funcs) {
    const PipelineAnalysis plain = analyze_pipeline(outputs, {});
    if (std::none_of(plain.stages.begin(), plain.stages.end(), analyzable_contraction)) return {};
    std::vector<FuncPlan> made;
    // Accumulators first: the contractions they make register-tiled may then pack their operands.
    const PipelineAnalysis a = analyze_pipeline(outputs, choose_inlined(plain));
    for (const StageNode& s : a.stages) {
        if (!analyzable_contraction(s) || register_tiled(a, s.name)) continue;
        const MadeFunc m{MadeFunc::How::CacheWrite, s.name, "", MemoryType::Auto};
        made.push_back(FuncPlan{fresh_name(s.name + "_local", funcs, made), nullptr, 0, {}, m});
    }
    const PipelineAnalysis with_accumulators =
        analyze_with(outputs, funcs, made, choose_inlined(analyze_with(outputs, funcs, made, {})));
    for (const StageNode& s : with_accumulators.stages) {
        if (!register_tiled(with_accumulators, s.name)) continue;
        for (const Footprint& fp : s.footprints) {
            const std::optional<size_t> dim =
                fp.producer_is_image ? packed_dimension(s, fp.producer) : std::nullopt;
            if (!dim) continue;
            const MadeFunc m{MadeFunc::How::CacheReadImage, fp.producer, s.name, MemoryType::Auto};
            FuncPlan copy{fresh_name(fp.producer + "_packed", funcs, made), nullptr, 0, {}, m};
            if (*dim > 0) copy.directives.push_back(storage_order(fp.box.size(), *dim));
            made.push_back(copy);
        }
    }
    return made;
}

PipelineAnalysis analyze_with(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                              const PipelineFuncs& funcs, const std::vector<FuncPlan>& made,
                              const std::set<std::string>& inlined) {
    if (made.empty()) return analyze_pipeline(outputs, inlined);
    SchedulePlan plan;
    for (size_t i = 0; i < funcs.size(); i++)
        plan.funcs.push_back(FuncPlan{funcs[i].first, funcs[i].second, i, {}, {}});
    plan.funcs.insert(plan.funcs.end(), made.begin(), made.end());
    const ScheduleSnapshot before(plan);
    const auto made_funcs = make_funcs(plan);
    // The names the analysis gives the made Funcs, and the plan's names for them.
    std::map<std::string, std::string> to_plan, to_analysis;
    for (const auto& [name, f] : pipeline_funcs(outputs)) {
        for (const auto& [plan_name, contents] : made_funcs) {
            if (contents != f) continue;
            to_plan[name] = plan_name;
            to_analysis[plan_name] = name;
        }
    }
    std::set<std::string> inlined_here;
    for (const std::string& name : inlined)
        inlined_here.insert(to_analysis.count(name) ? to_analysis.at(name) : name);
    PipelineAnalysis a = analyze_pipeline(outputs, inlined_here);
    before.restore();
    rename_stages(a, to_plan);
    for (const FuncPlan& p : made) {
        if (!a.has_stage(p.name)) continue;
        StageNode& s = a.stages[a.index.at(p.name)];
        s.user_scheduled = false;  // its memory type is the plan's
        if (p.made->how == MadeFunc::How::CacheReadImage) s.packed_dimension = packed_dimension_of(p);
    }
    return a;
}

}  // namespace tessera::autoschedule
