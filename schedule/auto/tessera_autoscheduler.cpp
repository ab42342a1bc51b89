#include "schedule/auto/tessera_autoscheduler.h"

#include <algorithm>

#include <cstdlib>
#include <iostream>
#include <set>

#include "lowering/lower.h"
#include "schedule/auto/contractions.h"
#include "schedule/auto/grouping.h"
#include "schedule/auto/pipeline_analysis.h"
#include "schedule/auto/stage_schedules.h"

namespace tessera::autoschedule {
namespace {

// What storing a value and loading it again costs, in arithmetic operations per byte.
constexpr double round_trip_ops_per_byte = 1.5;
// The arithmetic of a pointwise value cheap enough to recompute at every read.
constexpr double cheap_value_ops = 2;

bool user_computes_inline(const StageNode& s) {
    const schedule::LoopLevel& level = s.func->schedule.compute_level;
    return level.is_inline() || (level.is_inherited() && !s.has_updates && !s.is_output);
}

// TESSERA_DEBUG_AUTOSCHEDULE=1: what the scheduler saw and chose, on stderr.
bool debugging() {
    static const bool on = [] {
        const char* v = std::getenv("TESSERA_DEBUG_AUTOSCHEDULE");
        return v && *v && std::string(v) != "0";
    }();
    return on;
}

void print_region(std::ostream& out, const Region& r) {
    for (size_t d = 0; d < r.size(); d++)
        out << (d ? " x " : "") << "[" << r[d].min << ", " << r[d].max << "]";
}

void print_analysis(const PipelineAnalysis& a, const std::set<std::string>& inlined,
                    const std::vector<Group>& groups) {
    std::cerr << "tessera autoscheduler: inlined:";
    for (const std::string& name : inlined) std::cerr << " " << name;
    std::cerr << "\n";
    for (const StageNode& s : a.stages) {
        std::cerr << "  " << s.name << ": ";
        print_region(std::cerr, s.region);
        std::cerr << ", " << s.ops_per_point << " ops per point, reads";
        for (const Footprint& fp : s.footprints) std::cerr << " " << fp.producer << " (" << fp.calls << "x)";
        std::cerr << "\n";
    }
    for (const Group& g : groups) {
        std::cerr << "  group " << g.root << " tile";
        for (int64_t t : g.tile) std::cerr << " " << t;
        std::cerr << ", cost " << g.cost << ", members";
        for (const std::string& m : g.members) std::cerr << " " << m;
        std::cerr << "\n";
    }
}

// Whether some Func reads another through a division (up- or downsampling): only then may bounds
// grow past what bounds inference can bound, and only then is the plan checked (which costs about
// as much as scheduling).
bool resamples(const PipelineAnalysis& a) {
    for (const StageNode& s : a.stages)
        for (const Footprint& fp : s.footprints)
            if (fp.divisions > 0 && !fp.producer_is_image) return true;
    return false;
}

// Whether s reads a Func computed by update stages (a scan, say) and is read by one: kept, s can
// compute that producer per strip of its own (an IIR filter's columns, transposed), where the
// consumer with updates could not.
bool stages_a_scan_for_a_scan(const PipelineAnalysis& a, const StageNode& s) {
    auto has_updates = [&](const std::string& name) {
        return a.has_stage(name) && a.stage(name).has_updates;
    };
    const bool reads_one = std::any_of(s.footprints.begin(), s.footprints.end(), [&](const Footprint& fp) {
        return !fp.producer_is_image && has_updates(fp.producer);
    });
    return reads_one && std::any_of(s.consumers.begin(), s.consumers.end(), has_updates);
}

// Whether s does work of its own (a boundary condition's clamps or select: arithmetic in its indices
// or its value) and a contraction reads it. Inlined, that work would run at every step of the
// reduction, in the innermost loop, where loop partitioning cannot take it out (a convolution's
// padded input, read at x + kx - 1); computed once, it is a copy the size of its input.
bool bounds_a_contraction(const PipelineAnalysis& a, const StageNode& s) {
    if (s.ops_per_point <= 0) return false;
    return std::any_of(s.consumers.begin(), s.consumers.end(),
                       [&](const std::string& c) { return a.has_stage(c) && is_contraction(a.stage(c)); });
}

}  // namespace

// Inlined: what the user computes inline, and, of the rest, pure Funcs that only read one value
// (boundary conditions, whose clamps loop partitioning takes out of the steady state; wrappers),
// and those whose arithmetic, repeated at every read, costs less than computing them once and
// passing them through memory.
// Consumers are decided first: a Func inlined into an inlined consumer is evaluated as often as
// that consumer is, times its reads there.
std::set<std::string> choose_inlined(const PipelineAnalysis& a) {
    std::map<std::string, double> evaluations;  // of each Func, where its consumers are decided
    std::set<std::string> inlined;
    for (auto it = a.stages.rbegin(); it != a.stages.rend(); ++it) {
        const StageNode& s = *it;
        const double points = double(points_of(s.region));
        bool inline_it = false;
        if (s.user_scheduled) {
            inline_it = user_computes_inline(s);
        } else if (!s.is_output && !s.has_updates && s.packed_dimension < 0) {
            int reads = 0;
            bool pointwise = true;  // one value of each producer per point
            for (const Footprint& fp : s.footprints) {
                reads += fp.calls;
                pointwise = pointwise && fp.calls == 1;
            }
            const double inline_cost = evaluations[s.name] * s.ops_per_point;
            const double root_cost = points * (s.ops_per_point + s.bytes_per_point * round_trip_ops_per_byte);
            // A pointwise value that costs no more than a load or two to compute (a product, a cast)
            // is recomputed wherever it is read rather than stored and loaded again.
            const bool as_cheap_as_a_load = pointwise && s.value_ops <= cheap_value_ops;
            inline_it = (reads <= 1 && s.value_ops == 0) || as_cheap_as_a_load || inline_cost <= root_cost;
            inline_it = inline_it && !stages_a_scan_for_a_scan(a, s) && !bounds_a_contraction(a, s);
        }
        const double evaluated = inline_it ? evaluations[s.name] : points;
        if (inline_it) inlined.insert(s.name);
        for (const Footprint& fp : s.footprints) evaluations[fp.producer] += double(fp.calls) * evaluated;
    }
    return inlined;
}

SchedulePlan tessera_autoschedule(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                                  const Target& target, const MachineParams& params) {
    const auto funcs = pipeline_funcs(outputs);
    const std::vector<FuncPlan> made = contraction_funcs(outputs, funcs);
    const std::set<std::string> inlined = choose_inlined(analyze_with(outputs, funcs, made, {}));
    const PipelineAnalysis a = analyze_with(outputs, funcs, made, inlined);
    const MachineModel machine = machine_model(a, params, target);
    // From the groups the cost model prefers to none at all: the last always has bounds.
    const std::vector<GroupingLimits> limits = {{12, 6}, {6, 4}, {0, 0}};
    for (size_t attempt = 0;; attempt++) {
        const std::vector<Group> groups = group_stages(a, machine, limits[attempt]);
        if (debugging()) print_analysis(a, inlined, groups);
        SchedulePlan plan = plan_schedules(a, groups, machine, funcs, inlined, made);
        const ScheduleSnapshot before(plan);
        apply_plan(plan);
        if (attempt + 1 == limits.size() || !resamples(a)) return plan;
        try {
            lowering::infer_bounds(outputs);
            return plan;
        } catch (const CompileError& e) {
            if (debugging()) std::cerr << "tessera autoscheduler: smaller groups, as " << e.what() << "\n";
            before.restore();
        }
    }
}

}  // namespace tessera::autoschedule
