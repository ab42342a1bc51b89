// tune_model: autotune for each distinct fusion group of a model, resumable from its records.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "graph/group_pipeline.h"
#include "graph/passes/fuse_operators.h"
#include "tune/tune_runner.h"
#include "tune/tuning_records.h"
#include "tune/tuning_session.h"
#include "util/error_stream.h"
#include "util/json.h"

namespace tessera::graph {
namespace {

std::string node_names(const Graph& g, const FusionGroup& group) {
    std::string names;
    for (int n : group.nodes) names += (names.empty() ? "" : " ") + g.nodes[n].name;
    return names;
}

// The trials already in the file for each signature on the target.
std::map<std::string, int> recorded_trials(const std::string& file, const Target& target) {
    std::map<std::string, int> count;
    for (const tune::TuningRecord& r : tune::read_records(file))
        if (r.target == target.to_string() && !r.remeasured) count[r.signature]++;
    return count;
}

// Each group's curve in a file of its own: "curve.csv" gives "curve_group3.csv".
std::string group_curve_file(const std::string& file, size_t group) {
    const size_t dot = file.rfind('.');
    const std::string suffix = "_group" + std::to_string(group);
    return dot == std::string::npos || file.find('/', dot) != std::string::npos
               ? file + suffix
               : file.substr(0, dot) + suffix + file.substr(dot);
}

// The operators' own schedule of the group, measured as tuned candidates are and recorded as the
// baseline they must beat (compile() keeps it where no tuned record is faster).
void record_operator_schedule(const Graph& g, const FusionGroup& group, const Target& target,
                              const std::string& signature, const TuneOptions& tuning) {
    GroupDefinition d = define_group_funcs(g, group, target);
    apply_operator_schedule(d, target);
    Pipeline pipeline(d.outputs);
    TuneOptions o = tuning;
    o.target = target;
    tune::TuningSession session(pipeline, o);
    tune::MeasureSetup setup = session.setup;
    const tune::Measurement m = tune::local_runner(1)->measure(setup, {tune::Candidate{-1, {}}})[0];
    tune::TuningRecord r;
    r.signature = signature;
    r.target = target.to_string();
    r.trial = -1;
    r.status = tune::outcome_name(m.outcome);
    r.median_ms = m.median_ms;
    r.times_ms = m.times_ms;
    r.schedule_json = json::quote(tune::operator_schedule);
    tune::append_record(tuning.records_file, r);
}

}  // namespace

std::vector<GroupTuning> tune_model(const Graph& g, const Target& target, const CompileOptions& options,
                                    const TuneOptions& tuning) {
    TESSERA_USER_CHECK(!tuning.records_file.empty())
        << "tune_model: TuneOptions::records_file must name the file the records go to.";
    const auto start = std::chrono::steady_clock::now();
    const Graph optimized = optimize(g, target, options);
    const std::vector<FusionGroup> groups =
        options.fuse ? fuse_operators(optimized) : one_group_per_node(optimized);
    const std::map<std::string, int> recorded = recorded_trials(tuning.records_file, target);

    // The distinct pipelines, in the model's order.
    struct Pending {
        GroupDefinition definition;
        GroupTuning report;
    };
    std::vector<Pending> pending;
    std::vector<GroupTuning> reports;
    std::set<std::string> seen;
    std::vector<const FusionGroup*> pending_groups;
    for (const FusionGroup& group : groups) {
        if (user_schedule_of(optimized, group, options)) continue;
        GroupDefinition d = define_group_funcs(optimized, group, target);
        const std::string signature = pipeline_signature(Pipeline(d.outputs));
        if (!seen.insert(signature).second) continue;
        GroupTuning report{node_names(optimized, group), signature, "", 0, 0, 0};
        auto done = recorded.find(signature);
        if (done != recorded.end() && done->second >= tuning.trials) {
            report.status = "already tuned";
            reports.push_back(report);
            continue;
        }
        pending.push_back({std::move(d), report});
        pending_groups.push_back(&group);
    }
    for (size_t i = 0; i < pending.size(); i++) {
        auto& [d, report] = pending[i];
        TuneOptions o = tuning;
        o.target = target;
        auto done = recorded.find(report.signature);
        o.trials = tuning.trials - (done == recorded.end() ? 0 : done->second);
        if (tuning.time_budget_seconds > 0) {
            const double spent =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            o.time_budget_seconds =
                std::max(1.0, (tuning.time_budget_seconds - spent) / double(pending.size() - i));
        }
        if (!tuning.curve_file.empty()) o.curve_file = group_curve_file(tuning.curve_file, i);
        if (o.progress)
            std::fprintf(stderr, "tessera tune: group %zu of %zu: %s\n", i + 1, pending.size(),
                         report.nodes.c_str());
        Pipeline pipeline(d.outputs);
        try {
            if (done == recorded.end())
                record_operator_schedule(optimized, *pending_groups[i], target, report.signature, o);
            const TuneResult r = autotune(pipeline, o);
            report.status = "tuned";
            report.trials = r.trials;
            report.best_ms = r.best_ms;
            report.seconds = r.seconds;
        } catch (const std::exception& e) {
            report.status = std::string("failed: ") + e.what();
        }
        reports.push_back(report);
    }
    return reports;
}

}  // namespace tessera::graph
