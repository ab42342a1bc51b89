#pragma once
// What the automatic scheduler knows of a pipeline before it chooses anything: its Funcs in
// realization order, which calls which and with what footprint, the region of every Func that the
// estimates of the outputs require, and the arithmetic per point of each.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/interval.h"
#include "lang/function.h"
#include "tessera/pipeline.h"
#include "tessera/target.h"

namespace tessera::autoschedule {

// The integers [min, max] (empty when max < min).
struct Span {
    int64_t min = 0, max = -1;
    int64_t extent() const { return max - min + 1; }
};
using Region = std::vector<Span>;

int64_t points_of(const Region& r);
// Grows region to hold more too (an empty region becomes more).
void widen(Region& region, const Region& more);

// How the region of a consumer's pure Vars maps to the region it reads of one producer (a Func or
// an input image): each dimension's min and max as expressions of the variables that
// region_min_name(d) and region_max_name(d) name, the consumer's region in dimension d.
struct Footprint {
    std::string producer;
    bool producer_is_image = false;
    ir::Box box;
    int calls = 0;          // call sites in the consumer's definitions
    int element_bytes = 4;  // of the values read
    // Divisions and modulos in the box (up- and downsampling, and Funcs inlined between): bounds
    // through them grow at every level of a nest of Funcs computed per tile.
    int divisions = 0;
};
std::string region_min_name(int dim);
std::string region_max_name(int dim);

// The producer's region that the consumer's region requires, or nothing where a dimension cannot
// be evaluated (an index that depends on data without a clamp).
std::optional<Region> evaluate_footprint(const Footprint& f, const Region& consumer);

struct StageNode {
    std::string name;                                        // unique in the pipeline
    std::shared_ptr<lang::FunctionContents> func;            // the user's Func
    std::vector<std::string> vars;                           // the pure Vars, innermost first
    std::vector<std::vector<std::string>> update_pure_vars;  // per update: the pure Vars it keeps
    std::vector<std::vector<std::string>> update_rvars;      // per update: its RVars, innermost first
    // Per update: the extent of its innermost RVar where it is a constant, else 0.
    std::vector<int64_t> innermost_rvar_steps;
    Region region;                       // required by the outputs' estimates
    std::vector<Footprint> footprints;   // one per producer read
    std::vector<std::string> consumers;  // Funcs (in this analysis) that read it
    bool is_output = false;
    bool has_updates = false;
    bool user_scheduled = false;  // a schedule the user wrote: kept as it is
    double ops_per_point = 0;     // arithmetic per point of the region, every definition included
    double value_ops = 0;         // of the pure definition, outside the indices of its reads
    int bytes_per_point = 0;      // of all its values
    int widest_type_bytes = 1;    // of its values: what sets the vector width
    // Of a packed copy of a contraction's operand (contractions.h): the dimension along which the
    // contraction's vectors read it, which its storage has innermost; -1 for every other Func.
    int packed_dimension = -1;
};

struct PipelineAnalysis {
    std::vector<StageNode> stages;  // producers first; Funcs inlined in the analysis are absent
    std::map<std::string, size_t> index;
    std::map<std::string, int> image_element_bytes;
    std::map<std::string, Region> image_regions;  // what the pipeline reads of each input

    const StageNode& stage(const std::string& name) const { return stages[index.at(name)]; }
    bool has_stage(const std::string& name) const { return index.count(name) != 0; }
};

// Analyzes the pipeline of outputs as if the Funcs named in `inlined` (by their names in the
// pipeline) were computed inline and every other Func were computed at root.
PipelineAnalysis analyze_pipeline(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                                  const std::set<std::string>& inlined);

// The Funcs a Pipeline outputs.
std::vector<std::shared_ptr<lang::FunctionContents>> output_functions(const Pipeline& p);

// The names of every Func of the pipeline in realization order, as analyze_pipeline names them.
std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>> pipeline_funcs(
    const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs);

// Whether the user wrote any part of f's schedule (a loop level, a split, an order, a memory type,
// bounds): the automatic scheduler then leaves f's schedule as it is.
bool has_user_schedule(const lang::FunctionContents& f);

}  // namespace tessera::autoschedule
