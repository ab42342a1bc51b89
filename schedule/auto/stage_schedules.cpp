#include "schedule/auto/stage_schedules.h"

#include <algorithm>
#include <map>

namespace tessera::autoschedule {
namespace {

using Kind = Directive::Kind;

// The most steps of a register tile's innermost RVar unrolled: with 12 sums in the tile, 192
// multiply-adds in the loop's body.
constexpr int64_t kMaxUnrolledReductionSteps = 16;

// Builds the directives of one Func, naming new loops so that they clash with none of its own.
class FuncBuilder {
public:
    FuncBuilder(const StageNode& s, std::vector<Directive>& out) : out_(out) {
        taken_.insert(s.vars.begin(), s.vars.end());
        for (const auto& rvars : s.update_rvars) taken_.insert(rvars.begin(), rvars.end());
    }

    std::string fresh(const std::string& base) {
        std::string name = base;
        for (int k = 2; taken_.count(name); k++) name = base + std::to_string(k);
        taken_.insert(name);
        return name;
    }

    void add(Directive d) { out_.push_back(std::move(d)); }
    void stage_call(int stage, Kind kind, std::vector<LoopName> loops, int factor = 0,
                    TailStrategy tail = TailStrategy::Auto) {
        add(Directive{kind, stage, std::move(loops), factor, tail, ""});
    }

private:
    std::vector<Directive>& out_;
    std::set<std::string> taken_;
};

LoopName pure(const std::string& name) { return LoopName{name, false}; }

// The vector width over a loop of the given extent: the target's, or for a shorter loop the largest
// power of two it holds.
int vector_width(int lanes, int64_t extent) {
    int width = lanes;
    while (width > 2 && width > extent) width /= 2;
    return width;
}

// The loops of a tiled pure stage: what a tile spans (innermost first) and the loops over tiles.
struct TiledLoops {
    std::vector<LoopName> inner, outer;
    std::string tile_loop;      // where members are computed: the innermost loop over tiles
    std::string parallel_loop;  // the outermost loop over tiles, fused with those it runs in parallel
};

// The outermost of a stage's pure loops (`outer`, innermost first, with their extents) run in
// parallel, fused inwards until they give every core two tasks. Returns the parallel loop and the
// index in `outer` of the innermost loop fused into it.
std::pair<std::string, size_t> parallelize_outermost(int stage, const std::vector<LoopName>& outer,
                                                     const std::vector<int64_t>& outer_extents,
                                                     int parallelism, FuncBuilder& b) {
    std::string parallel = outer.back().name;
    int64_t tasks = outer_extents.back();
    size_t next = outer.size() - 1;
    while (tasks < 2 * parallelism && next > 0) {
        next--;
        const std::string fused = b.fresh(outer[next].name + "_" + parallel);
        b.stage_call(stage, Kind::Fuse, {outer[next], pure(parallel), pure(fused)});
        parallel = fused;
        tasks *= outer_extents[next];
    }
    b.stage_call(stage, Kind::Parallel, {pure(parallel)});
    return {parallel, next};
}

// The loops over tiles run in parallel as far as the cores need; the members are computed at the
// innermost loop over tiles.
void parallelize_tiles(TiledLoops& loops, const std::vector<int64_t>& outer_extents, int parallelism,
                       FuncBuilder& b) {
    const auto [parallel, innermost_fused] =
        parallelize_outermost(0, loops.outer, outer_extents, parallelism, b);
    loops.tile_loop = innermost_fused == 0 ? parallel : loops.outer[0].name;
    loops.parallel_loop = parallel;
}

TiledLoops tile_pure_stage(const StageNode& s, const Group& g, int lanes, int parallelism, FuncBuilder& b) {
    const std::vector<int64_t>& tile = g.tile;
    TiledLoops loops;
    std::vector<int64_t> outer_extents;
    for (size_t d = 0; d < s.vars.size(); d++) {
        const std::string& v = s.vars[d];
        const int64_t extent = s.region[d].extent();
        if (d < tile.size() && tile[d] < extent) {
            const std::string o = b.fresh(v + "_o"), i = b.fresh(v + "_i");
            b.stage_call(0, Kind::Split, {pure(v), pure(o), pure(i)}, int(tile[d]),
                         TailStrategy::GuardWithIf);
            loops.inner.push_back(pure(i));
            loops.outer.push_back(pure(o));
            outer_extents.push_back((extent + tile[d] - 1) / tile[d]);
        } else {
            loops.inner.push_back(pure(v));
        }
    }
    if (!loops.outer.empty() && loops.inner.size() > 1) {
        std::vector<LoopName> order = loops.inner;
        order.insert(order.end(), loops.outer.begin(), loops.outer.end());
        b.stage_call(0, Kind::Reorder, order);
    }
    // Rows unrolled inside the tile: each value loaded serves the neighbouring rows' stencils.
    if (g.unroll_rows > 1 && loops.inner.size() >= 2 && tile.size() >= 2 &&
        std::min(tile[1], s.region[1].extent()) >= 2 * g.unroll_rows) {
        const std::string& row = loops.inner[1].name;
        const std::string o = b.fresh(row + "_o"), u = b.fresh(row + "_u");
        b.stage_call(0, Kind::Split, {pure(row), pure(o), pure(u)}, g.unroll_rows, TailStrategy::GuardWithIf);
        b.stage_call(0, Kind::Unroll, {pure(u)});
    }
    const int64_t inner_extent = tile.empty() ? 1 : std::min(tile[0], s.region[0].extent());
    if (!s.vars.empty() && inner_extent >= 2) {
        const bool whole_vectors = tile[0] < s.region[0].extent() && inner_extent == lanes;
        if (whole_vectors) {
            b.stage_call(0, Kind::Vectorize, {loops.inner[0]});
        } else {
            b.stage_call(0, Kind::Vectorize, {loops.inner[0]}, vector_width(lanes, inner_extent),
                         TailStrategy::GuardWithIf);
        }
    }
    if (loops.outer.empty()) return loops;
    parallelize_tiles(loops, outer_extents, parallelism, b);
    return loops;
}

// An update: vectorized across the innermost pure Var it keeps, with its RVars (which may carry
// dependences) outside the vector; parallel across its outermost pure Vars, fused until every core
// has work (an IIR filter down the columns of three channels: over channels and columns), unless
// parallelism is 0 (inside a parallel loop already). In a reduction over
// RVars that keeps two pure Vars or more (a matrix product, a convolution), a register tile: the
// group's update_rows values of the second computed together, unrolled, so that each value read
// inside the reduction serves several vectors of sums.
void schedule_update(const StageNode& s, const Group& g, int update, int lanes, int parallelism,
                     FuncBuilder& b) {
    const int stage = update + 1;
    const std::vector<std::string>& pure_vars = s.update_pure_vars[size_t(update)];
    const std::vector<std::string>& rvars = s.update_rvars[size_t(update)];
    if (pure_vars.empty()) return;
    auto extent_of = [&](const std::string& v) {
        auto it = std::find(s.vars.begin(), s.vars.end(), v);
        return s.region[size_t(it - s.vars.begin())].extent();
    };
    std::vector<LoopName> order;
    std::vector<LoopName> outer;         // the pure loops outside the RVars, innermost first
    std::vector<int64_t> outer_extents;  // and their extents
    const std::string& first = pure_vars[0];
    const bool vectorize = first == s.vars[0] && extent_of(first) >= 2;
    if (vectorize) {
        const std::string o = b.fresh(first + "_o"), v = b.fresh(first + "_v");
        const int width = extent_of(first) >= 2 * lanes * g.update_vectors
                              ? lanes * g.update_vectors
                              : vector_width(lanes, extent_of(first));
        b.stage_call(stage, Kind::Split, {pure(first), pure(o), pure(v)}, width, TailStrategy::GuardWithIf);
        order.push_back(pure(v));
        outer.push_back(pure(o));
        outer_extents.push_back((extent_of(first) + width - 1) / width);
    } else {
        outer.push_back(pure(first));
        outer_extents.push_back(extent_of(first));
    }
    size_t next = 1;
    if (vectorize && !rvars.empty() && pure_vars.size() >= 2 && g.update_rows > 1 &&
        extent_of(pure_vars[1]) >= g.update_rows) {
        const std::string& second = pure_vars[1];
        const std::string o = b.fresh(second + "_o"), i = b.fresh(second + "_i");
        b.stage_call(stage, Kind::Split, {pure(second), pure(o), pure(i)}, g.update_rows,
                     TailStrategy::GuardWithIf);
        order.push_back(pure(i));
        outer.push_back(pure(o));
        outer_extents.push_back((extent_of(second) + g.update_rows - 1) / g.update_rows);
        next = 2;
    }
    for (const std::string& r : rvars) order.push_back(LoopName{r, true});
    for (size_t i = next; i < pure_vars.size(); i++) {
        outer.push_back(pure(pure_vars[i]));
        outer_extents.push_back(extent_of(pure_vars[i]));
    }
    order.insert(order.end(), outer.begin(), outer.end());
    if (!rvars.empty() && order.size() > 1) b.stage_call(stage, Kind::Reorder, order);
    if (vectorize) b.stage_call(stage, Kind::Vectorize, {order[0]});
    if (next == 2) b.stage_call(stage, Kind::Unroll, {order[1]});
    const bool worth_parallel = outer.size() > 1 || !vectorize || extent_of(first) > 2 * lanes;
    if (worth_parallel && parallelism > 0) parallelize_outermost(stage, outer, outer_extents, parallelism, b);
}

// The consumer of a register-tile group: split into register tiles (shifted inwards at the edges,
// so that every tile, and the reduction computed in it, has constant extents), the vector across
// the innermost dimension and the other dimensions of the tile unrolled; parallel across tiles.
// With packed operands, the tiles are visited a panel at a time (the loop over the innermost
// dimension's tiles outermost), so that each panel is packed once.
TiledLoops register_tile_root(const StageNode& s, const Group& g, int lanes, int parallelism,
                              FuncBuilder& b) {
    TiledLoops loops;
    std::vector<int64_t> outer_extents;
    std::vector<LoopName> unrolled;
    for (size_t d = 0; d < s.vars.size(); d++) {
        const std::string& v = s.vars[d];
        const int64_t extent = s.region[d].extent();
        if (d < g.tile.size() && g.tile[d] > 1 && (d == 0 || g.tile[d] < extent || d < 4)) {
            const std::string o = b.fresh(v + "_o"), i = b.fresh(v + "_i");
            b.stage_call(0, Kind::Split, {pure(v), pure(o), pure(i)}, int(g.tile[d]),
                         TailStrategy::ShiftInwards);
            loops.inner.push_back(pure(i));
            loops.outer.push_back(pure(o));
            outer_extents.push_back((extent + g.tile[d] - 1) / g.tile[d]);
            if (d > 0) unrolled.push_back(pure(i));
        } else {
            loops.outer.push_back(pure(v));
            outer_extents.push_back(extent);
        }
    }
    if (!g.panels.empty() && !loops.inner.empty() && loops.inner[0].name != s.vars[0]) {
        std::rotate(loops.outer.begin(), loops.outer.begin() + 1, loops.outer.end());
        std::rotate(outer_extents.begin(), outer_extents.begin() + 1, outer_extents.end());
    }
    std::vector<LoopName> order = loops.inner;
    order.insert(order.end(), loops.outer.begin(), loops.outer.end());
    b.stage_call(0, Kind::Reorder, order);
    if (!loops.inner.empty() && loops.inner[0].name != s.vars[0]) {
        const int64_t width = g.tile[0];
        if (width == lanes)
            b.stage_call(0, Kind::Vectorize, {loops.inner[0]});
        else
            b.stage_call(0, Kind::Vectorize, {loops.inner[0]}, vector_width(lanes, width),
                         TailStrategy::GuardWithIf);
    }
    for (const LoopName& u : unrolled) b.stage_call(0, Kind::Unroll, {u});
    parallelize_tiles(loops, outer_extents, parallelism, b);
    return loops;
}

// The reduction of a register-tile group, computed per tile: each stage split by the tile (one
// iteration outside: the tile is the whole region computed), vectorized and unrolled inside, the
// updates with their RVars outside the tile, so that the tile's sums stay in registers.
void register_tile_member(const StageNode& m, const Group& g, int lanes, FuncBuilder& b) {
    for (int stage = 0; stage <= int(m.update_pure_vars.size()); stage++) {
        std::vector<LoopName> inner, outer;
        for (size_t d = 0; d < m.vars.size(); d++) {
            const std::string& v = m.vars[d];
            if (d >= g.tile.size() || g.tile[d] <= 1) {
                outer.push_back(pure(v));
                continue;
            }
            const std::string o = b.fresh(v + "_t"), i = b.fresh(v + "_r");
            b.stage_call(stage, Kind::Split, {pure(v), pure(o), pure(i)}, int(g.tile[d]),
                         TailStrategy::GuardWithIf);
            inner.push_back(pure(i));
            outer.push_back(pure(o));
        }
        if (stage > 0) {
            std::vector<LoopName> order = inner;
            for (const std::string& r : m.update_rvars[size_t(stage - 1)]) order.push_back(LoopName{r, true});
            order.insert(order.end(), outer.begin(), outer.end());
            b.stage_call(stage, Kind::Reorder, order);
        }
        if (!inner.empty()) {
            // Whole vectors as one wider vector, so that the loop across them is unrolled too.
            const int width = g.tile[0] % lanes == 0 ? int(g.tile[0]) : vector_width(lanes, g.tile[0]);
            if (g.tile[0] == width)
                b.stage_call(stage, Kind::Vectorize, {inner[0]});
            else
                b.stage_call(stage, Kind::Vectorize, {inner[0]}, width, TailStrategy::GuardWithIf);
        }
        for (size_t i = 1; i < inner.size(); i++) b.stage_call(stage, Kind::Unroll, {inner[i]});
        // A few constant steps of the innermost RVar unrolled too: they read the operands at
        // constant offsets (a convolution's block of input channels), and the tile's sums are
        // updated without a loop's bookkeeping between them.
        if (stage > 0) {
            const int64_t steps = m.innermost_rvar_steps[size_t(stage - 1)];
            if (steps > 1 && steps <= kMaxUnrolledReductionSteps)
                b.stage_call(stage, Kind::Unroll, {LoopName{m.update_rvars[size_t(stage - 1)][0], true}});
        }
    }
}

// Tiles that shift inwards need an output at least a tile in size, and estimates may overstate the
// sizes a pipeline runs at. An output's register tiles (the directives from `first` on) become a
// specialization for outputs that large; the general definition runs the same loops guarded.
void guard_smaller_outputs(const StageNode& root, const Group& g, std::vector<Directive>& directives,
                           size_t first) {
    Directive large{Kind::Specialize, 0, {}, 0, TailStrategy::Auto, ""};
    for (size_t d = 0; d < root.vars.size() && d < g.tile.size(); d++) {
        if (g.tile[d] <= 1) continue;
        large.loops.push_back(pure(root.vars[d]));
        large.at_least.push_back(int(g.tile[d]));
    }
    if (large.loops.empty()) return;
    std::vector<Directive> tiles(directives.begin() + std::ptrdiff_t(first), directives.end());
    directives.resize(first);
    directives.push_back(large);
    for (Directive d : tiles) {
        d.specialization = 1;
        directives.push_back(d);
    }
    for (Directive d : tiles) {
        if (d.tail == TailStrategy::ShiftInwards) d.tail = TailStrategy::GuardWithIf;
        directives.push_back(d);
    }
}

void schedule_register_tile_group(const PipelineAnalysis& a, const Group& g, const MachineModel& machine,
                                  std::map<std::string, std::vector<Directive>>& plans) {
    const StageNode& root = a.stage(g.root);
    FuncBuilder b(root, plans[g.root]);
    if (!root.is_output) b.add(Directive{Kind::ComputeRoot, 0, {}, 0, TailStrategy::Auto, ""});
    const size_t first = plans[g.root].size();
    const TiledLoops loops =
        register_tile_root(root, g, machine.vector_lanes.at(g.root), machine.parallelism, b);
    if (root.is_output) guard_smaller_outputs(root, g, plans[g.root], first);
    for (const std::string& m : g.members) {
        FuncBuilder mb(a.stage(m), plans[m]);
        mb.add(Directive{Kind::ComputeAt, 0, {pure(loops.tile_loop)}, 0, TailStrategy::Auto, g.root});
        register_tile_member(a.stage(m), g, machine.vector_lanes.at(m), mb);
    }
    for (const std::string& p : g.panels) {
        const StageNode& panel = a.stage(p);
        FuncBuilder pb(panel, plans[p]);
        pb.add(Directive{Kind::ComputeAt, 0, {pure(loops.parallel_loop)}, 0, TailStrategy::Auto, g.root});
        // Copied along the packed dimension innermost, as it is stored.
        const std::string& packed = panel.vars[size_t(panel.packed_dimension)];
        if (panel.packed_dimension > 0) {
            std::vector<LoopName> order{pure(packed)};
            for (const std::string& v : panel.vars)
                if (v != packed) order.push_back(pure(v));
            pb.stage_call(0, Kind::Reorder, order);
        }
        const int lanes = machine.vector_lanes.at(p);
        pb.stage_call(0, Kind::Vectorize, {pure(packed)}, vector_width(lanes, g.tile[0]),
                      TailStrategy::GuardWithIf);
    }
}

void schedule_group(const PipelineAnalysis& a, const Group& g, const MachineModel& machine,
                    std::map<std::string, std::vector<Directive>>& plans) {
    if (g.register_tile && !g.members.empty()) return schedule_register_tile_group(a, g, machine, plans);
    const StageNode& root = a.stage(g.root);
    FuncBuilder b(root, plans[g.root]);
    if (!root.is_output) b.add(Directive{Kind::ComputeRoot, 0, {}, 0, TailStrategy::Auto, ""});
    const int lanes = machine.vector_lanes.at(g.root);
    TiledLoops loops = tile_pure_stage(root, g, lanes, machine.parallelism, b);
    for (size_t u = 0; u < root.update_pure_vars.size(); u++)
        schedule_update(root, g, int(u), lanes, machine.parallelism, b);
    const std::map<std::string, Region> regions = tile_regions(a, g, g.tile);
    for (const std::string& m : g.members) {
        const StageNode& member = a.stage(m);
        FuncBuilder mb(member, plans[m]);
        if (loops.tile_loop.empty()) {
            mb.add(Directive{Kind::ComputeRoot, 0, {}, 0, TailStrategy::Auto, ""});
        } else {
            mb.add(Directive{Kind::ComputeAt, 0, {pure(loops.tile_loop)}, 0, TailStrategy::Auto, g.root});
        }
        const Region& region = regions.at(m);
        if (!member.vars.empty() && !region.empty() && region[0].extent() >= 2) {
            const int member_lanes = machine.vector_lanes.at(m);
            mb.stage_call(0, Kind::Vectorize, {pure(member.vars[0])},
                          vector_width(member_lanes, region[0].extent()), TailStrategy::GuardWithIf);
        }
        // Its updates (a scan) run inside the tile, which the loops over tiles already spread over
        // the cores.
        Group plain{m, {}, {}, 0};  // no register tiles: those are the root's
        plain.update_rows = 1;
        plain.update_vectors = 1;
        for (size_t u = 0; u < member.update_pure_vars.size(); u++)
            schedule_update(member, plain, int(u), machine.vector_lanes.at(m), /*parallelism=*/0, mb);
    }
}

}  // namespace

SchedulePlan plan_schedules(
    const PipelineAnalysis& a, const std::vector<Group>& groups, const MachineModel& machine,
    const std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>>& funcs,
    const std::set<std::string>& inlined, const std::vector<FuncPlan>& made) {
    std::map<std::string, std::vector<Directive>> directives;
    for (const Group& g : groups) {
        if (a.stage(g.root).user_scheduled) continue;
        schedule_group(a, g, machine, directives);
    }
    SchedulePlan plan;
    for (size_t i = 0; i < funcs.size(); i++) {
        const auto& [name, func] = funcs[i];
        FuncPlan p{name, func, i, {}};
        if (inlined.count(name) && !has_user_schedule(*func)) {
            p.directives.push_back(Directive{Kind::ComputeInline, 0, {}, 0, TailStrategy::Auto, ""});
        } else if (directives.count(name)) {
            p.directives = directives.at(name);
        }
        if (!p.directives.empty()) plan.funcs.push_back(std::move(p));
    }
    for (FuncPlan p : made) {
        if (inlined.count(p.name))
            p.directives = {Directive{Kind::ComputeInline, 0, {}, 0, TailStrategy::Auto, ""}};
        else if (directives.count(p.name))
            p.directives.insert(p.directives.end(), directives.at(p.name).begin(),
                                directives.at(p.name).end());
        plan.funcs.push_back(std::move(p));
    }
    return plan;
}

}  // namespace tessera::autoschedule
