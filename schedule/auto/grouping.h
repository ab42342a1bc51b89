#pragma once
// Which Funcs are computed together: each group is a Func computed at root (its root) in tiles, and
// members computed per tile of it, as far as the cost model says the locality gained outweighs the
// work recomputed where tiles overlap. A greedy merge, as Mullapudi et al.'s autoscheduler (2016)
// does, over an analytic cost: arithmetic, traffic to memory and the caches, vector lanes used,
// and the cores kept busy.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schedule/auto/pipeline_analysis.h"
#include "tessera/auto_schedule.h"

namespace tessera::autoschedule {

struct Group {
    std::string root;
    std::vector<std::string> members;  // computed per tile of the root, producers first
    std::vector<int64_t> tile;         // per pure Var of the root; its extent where not tiled
    double cost = 0;
    // Choices within the tile, which the tuner varies: rows of the root's tile unrolled; of the
    // root's updates, the rows and vectors of each register tile.
    int unroll_rows = 1;
    int update_rows = 4;
    int update_vectors = 1;
    // A reduction computed per tile of its one consumer, which reads it point for point: the tile is
    // a register tile (a vector by a few rows, unrolled), and the reduction's sums stay in registers
    // across its RVars, as in a convolution followed by its activation.
    bool register_tile = false;
    // Of a register-tile group: packed copies of the reduction's operands (see contractions.h),
    // each computed per panel of tiles, at the loop over the tiles' innermost dimension.
    std::vector<std::string> panels;
};

// What the cost model knows of the machine, with the vector width of each Func.
struct MachineModel {
    int parallelism = 16;
    double cache_bytes_per_core = 512 * 1024;  // where a tile's working set should fit
    double last_level_cache_bytes = 16 * 1024 * 1024;
    double balance = 40;        // cost of a cache line loaded from the last-level cache, in operations
    int vector_registers = 16;  // 32 with AVX-512
    std::map<std::string, int> vector_lanes;  // per Func
};

MachineModel machine_model(const PipelineAnalysis& a, const MachineParams& params, const Target& target);

// How far groups may grow: the Funcs computed per tile of a root, and how deep in reads (see
// member_depth in grouping.cpp). Deeper nests of Funcs computed at tiles make bounds inference's
// expressions grow with every level (and compile times with them); past a size, a region cannot
// be bounded at all.
struct GroupingLimits {
    size_t max_members = 12;
    int max_member_depth = 6;
};

// Groups in realization order of their roots. Funcs the user scheduled stay alone.
std::vector<Group> group_stages(const PipelineAnalysis& a, const MachineModel& machine,
                                const GroupingLimits& limits = GroupingLimits());

// The stage alone in its group, with the tile the cost model prefers.
Group singleton_group(const PipelineAnalysis& a, const MachineModel& machine, const std::string& name);

// A reduction over RVars that keeps two pure Vars or more, the first innermost, in every update: a
// matrix product, a convolution.
bool is_contraction(const StageNode& s);

// Whether the reduction is computed per register tile of the one pure Func that reads it point for
// point (see Group::register_tile).
bool register_tiled(const PipelineAnalysis& a, const std::string& reduction);

// The reduction computed per register tile of its one consumer, where it qualifies (see
// Group::register_tile).
std::optional<Group> register_tile_group(const PipelineAnalysis& a, const MachineModel& machine,
                                         const std::string& reduction);

// Whether the group p (its root and members) may be computed per tile of the group g, which all of
// p's root's consumers belong to; and the group they make.
bool can_join(const PipelineAnalysis& a, const Group& p, const Group& g,
              const GroupingLimits& limits = GroupingLimits());
Group merged(const PipelineAnalysis& a, const Group& p, const Group& g);

// The region of each member (and of the root) that one tile of the root computes, for a tile placed
// at the start of the root's region.
std::map<std::string, Region> tile_regions(const PipelineAnalysis& a, const Group& g,
                                           const std::vector<int64_t>& tile);

}  // namespace tessera::autoschedule
