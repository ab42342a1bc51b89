#pragma once
// Compiling a fused group into one Tessera pipeline.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/fusion_group.h"
#include "tessera/tessera.h"
#include "tune/tuning_records.h"

namespace tessera::graph {

struct GroupPipeline {
    Pipeline pipeline;
    // Where its schedule came from: the operators' own ("operator"), the user's, or tuning records.
    std::string schedule_origin = "operator";
    // One per input of the group, in order; undefined where the input is a one-element constant,
    // which the definition holds as a literal.
    std::vector<ImageParam> params;
    double compile_ms = 0;
};

// What two groups that may share one compiled pipeline have in common: the ops, their
// attributes and how they connect, the types and shapes, and the values of small constants.
std::string group_signature(const Graph& g, const FusionGroup& group);

// The group's nodes defined as Funcs over ImageParams for its inputs, unscheduled, with the
// estimates of their static shapes (what automatic scheduling and tuning need), and the schedule
// its first operator would give it.
struct GroupDefinition {
    std::shared_ptr<GroupPipeline> result;  // its params; its pipeline not yet made
    std::vector<Func> outputs;
    std::vector<std::vector<int64_t>> shapes;  // of the outputs, outermost first
    std::function<void(const Func&, const std::vector<int64_t>&, const Target&)> operator_schedule;
};
GroupDefinition define_group_funcs(const Graph& g, const FusionGroup& group, const Target& target);
// The schedule the group's operators give it (elementwise, for groups of several outputs).
void apply_operator_schedule(GroupDefinition& d, const Target& target);

// Defines the group's nodes and schedules them; the pipeline is compiled by compile_groups. A
// user's schedule (CompileOptions::schedules) for a node of the group replaces the operators';
// else the fastest tuning record for the group's pipeline, if `records` has one for the target.
std::shared_ptr<GroupPipeline> define_group(const Graph& g, const FusionGroup& group, const Target& target,
                                            const GroupSchedule& user_schedule = {},
                                            const std::vector<tune::TuningRecord>* records = nullptr);

// Compiles the pipelines for target, one per core at a time: the lowering and the LLVM modules of
// two pipelines share nothing. Adds each pipeline's compile time to its compile_ms. A pipeline
// that fails to compile throws after the others are done (the first such in the list).
void compile_groups(const std::vector<std::shared_ptr<GroupPipeline>>& pipelines, const Target& target);

// define_group and compile_groups for one group.
std::shared_ptr<GroupPipeline> compile_group(const Graph& g, const FusionGroup& group, const Target& target,
                                             const GroupSchedule& user_schedule = {});

// The user's schedule for a node of the group, if any (the first node's first).
GroupSchedule user_schedule_of(const Graph& g, const FusionGroup& group, const CompileOptions& options);

// Runs the pipeline on the group's inputs and into its outputs (tensors indexed by value id).
void run_group(GroupPipeline& p, const FusionGroup& group, const std::vector<Tensor>& tensors,
               const Target& target);

}  // namespace tessera::graph
