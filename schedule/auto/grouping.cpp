#include "schedule/auto/grouping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace tessera::autoschedule {
namespace {

constexpr double cache_line_bytes = 64;
// A tile's fixed cost: its loops, the allocations of its members.
constexpr double per_tile_overhead = 300;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

const Footprint* footprint_of(const StageNode& consumer, const std::string& producer) {
    for (const Footprint& fp : consumer.footprints)
        if (fp.producer == producer) return &fp;
    return nullptr;
}

bool in_group(const Group& g, const std::string& name) {
    return g.root == name || std::find(g.members.begin(), g.members.end(), name) != g.members.end();
}

// The cache lines a region of a Func's values spans: a row (the innermost dimension) that starts
// and ends inside lines pays for the partial lines at its edges, which narrow tiles feel; one of
// whole lines from a multiple of a line (a tile of the vector width's multiples) does not.
double cache_lines(const Region& region, double element_bytes) {
    if (region.empty()) return std::ceil(element_bytes / cache_line_bytes);
    const double row_bytes = double(std::max<int64_t>(region[0].extent(), 0)) * element_bytes;
    const double rows = double(points_of(region)) / double(std::max<int64_t>(region[0].extent(), 1));
    const bool whole_lines = std::fmod(double(region[0].min) * element_bytes, cache_line_bytes) == 0 &&
                             std::fmod(row_bytes, cache_line_bytes) == 0;
    return rows * (std::ceil(row_bytes / cache_line_bytes) + (whole_lines ? 0 : 1));
}

// The fraction of vector lanes doing useful work over an innermost extent.
double lane_efficiency(int64_t extent, int lanes) {
    if (lanes <= 1 || extent <= 0) return 1;
    return double(extent) / double(ceil_div(extent, lanes) * lanes);
}

// The updates of s that walk one of its dimensions with RVars, rather than keep them all pure.
int scans_of(const StageNode& s) {
    int scans = 0;
    for (const auto& pure : s.update_pure_vars) scans += pure.size() < s.vars.size() ? 1 : 0;
    return scans;
}

// Whether a tile's region of a Func with updates spans the whole of every dimension its updates
// walk with RVars (a scan down columns: whole columns), so that no tile computes a scan again.
bool covers_scans(const StageNode& s, const Region& region) {
    if (!s.has_updates) return true;
    if (region.size() != s.region.size()) return false;
    for (size_t d = 0; d < s.vars.size(); d++) {
        const bool scanned = std::any_of(
            s.update_pure_vars.begin(), s.update_pure_vars.end(),
            [&](const auto& pure) { return std::find(pure.begin(), pure.end(), s.vars[d]) == pure.end(); });
        if (scanned && (region[d].min > s.region[d].min || region[d].max < s.region[d].max)) return false;
    }
    return true;
}

class CostModel {
public:
    CostModel(const PipelineAnalysis& a, const MachineModel& m) : a_(a), m_(m) {}

    // The estimated run time of a group with the given tile, in units of arithmetic operations.
    double cost(const Group& g, const std::vector<int64_t>& tile) const {
        const StageNode& root = a_.stage(g.root);
        int64_t tiles = 1;
        for (size_t d = 0; d < tile.size(); d++) tiles *= ceil_div(root.region[d].extent(), tile[d]);
        const std::map<std::string, Region> regions = tile_regions(a_, g, tile);
        for (const std::string& m : g.members)
            if (!covers_scans(a_.stage(m), regions.at(m))) return std::numeric_limits<double>::infinity();
        const double line_cost = m_.balance / cache_line_bytes;
        const double per_line = m_.balance;
        double compute = 0, traffic = 0, working_set = 0, intermediate = 0;
        for (const auto& [name, region] : regions) {
            const StageNode& s = a_.stage(name);
            const double points = double(points_of(region));
            const double lanes = m_.vector_lanes.at(name);
            const double efficiency = region.empty() ? 1.0 : lane_efficiency(region[0].extent(), int(lanes));
            // Vector code does `lanes` operations at once, as far as the lanes are filled.
            compute += points * std::max(s.ops_per_point, 1.0) / (lanes * efficiency);
            if (name != g.root) {
                working_set += points * s.bytes_per_point;
                intermediate += points * s.bytes_per_point;
            }
            for (const Footprint& fp : s.footprints) {
                if (!fp.producer_is_image && in_group(g, fp.producer)) continue;
                const std::optional<Region> needed = evaluate_footprint(fp, region);
                // A read that cannot be bounded reads as much as the whole producer.
                const double bytes =
                    (needed ? double(points_of(*needed)) : producer_points(fp)) * fp.element_bytes;
                const double lines =
                    needed ? cache_lines(*needed, fp.element_bytes) : bytes / cache_line_bytes;
                // What the members read must stay while the tile runs; the root's reads stream.
                if (name != g.root) working_set += bytes;
                traffic += lines * source_cost(fp) * per_line;
            }
        }
        // The root's values go out to memory, and each update that walks a dimension with RVars (a
        // scan) reads and writes them once more.
        const double root_passes = 1 + 2 * double(scans_of(root));
        traffic += double(points_of(regions.at(g.root))) * root.bytes_per_point * line_cost * root_passes;
        // Intermediates stay in the cache while the tile's working set fits there.
        const double spill = working_set > m_.cache_bytes_per_core ? 1.0 : 0.1;
        traffic += intermediate * spill * line_cost;
        const double per_tile = compute + traffic + per_tile_overhead;
        // Tiles spread over the cores; the last round may leave some idle.
        const double rounds = double(ceil_div(tiles, m_.parallelism));
        return per_tile * rounds;
    }

private:
    double producer_points(const Footprint& fp) const {
        if (!fp.producer_is_image) return double(points_of(a_.stage(fp.producer).region));
        auto it = a_.image_regions.find(fp.producer);
        return it == a_.image_regions.end() ? 0 : double(points_of(it->second));
    }

    // Values from outside the group come from the last-level cache where the whole producer fits
    // there, and from memory otherwise (twice the cost).
    double source_cost(const Footprint& fp) const {
        const double bytes = producer_points(fp) * fp.element_bytes;
        return bytes > m_.last_level_cache_bytes ? 2.0 : 1.0;
    }

    const PipelineAnalysis& a_;
    const MachineModel& m_;
};

// Tiles to try: the innermost dimension in multiples of the vector width, the next in powers of
// two, the others whole or one at a time.
std::vector<std::vector<int64_t>> candidate_tiles(const StageNode& root, int lanes) {
    std::vector<std::vector<int64_t>> tiles{{}};
    for (size_t d = 0; d < root.region.size(); d++) {
        const int64_t extent = std::max<int64_t>(root.region[d].extent(), 1);
        std::set<int64_t> sizes{extent};
        if (d == 0) {
            for (int64_t k = 1; k * lanes <= std::max<int64_t>(256, lanes); k *= 2)
                sizes.insert(std::min(extent, k * lanes));
        } else if (d == 1) {
            for (int64_t k = 1; k <= 256; k *= 2) sizes.insert(std::min(extent, k));
        } else {
            sizes.insert(1);
        }
        std::vector<std::vector<int64_t>> next;
        for (const auto& t : tiles)
            for (int64_t s : sizes) {
                auto longer = t;
                longer.push_back(s);
                next.push_back(std::move(longer));
            }
        tiles = std::move(next);
    }
    return tiles;
}

void choose_tile(const CostModel& model, const PipelineAnalysis& a, const MachineModel& m, Group& g) {
    const StageNode& root = a.stage(g.root);
    g.cost = std::numeric_limits<double>::infinity();
    for (const auto& tile : candidate_tiles(root, m.vector_lanes.at(g.root))) {
        const double c = model.cost(g, tile);
        if (c < g.cost) {
            g.cost = c;
            g.tile = tile;
        }
    }
}

// The depth of the deepest member, the cheapest path of reads to it from the root, or of a Func
// outside the group that a member reads: a read with an affine footprint counts 1, and each
// division in it (up- or downsampling) 2 more, as bounds expressions grow much faster through them.
int member_depth(const PipelineAnalysis& a, const Group& g) {
    std::map<std::string, int> depth{{g.root, 0}};
    int deepest = 0;
    for (auto it = g.members.rbegin(); it != g.members.rend(); ++it) {
        int d = 1 << 20;
        for (const std::string& consumer : a.stage(*it).consumers) {
            auto c = depth.find(consumer);
            if (c == depth.end()) continue;
            d = std::min(d, c->second + 1 + 2 * footprint_of(a.stage(consumer), *it)->divisions);
        }
        depth[*it] = d;
        deepest = std::max(deepest, d);
    }
    // The Funcs outside the group that members read: their regions come through the members'.
    for (const auto& [member, d] : depth) {
        if (member == g.root) continue;
        for (const Footprint& fp : a.stage(member).footprints)
            if (!fp.producer_is_image && !in_group(g, fp.producer))
                deepest = std::max(deepest, d + 1 + 2 * fp.divisions);
    }
    return deepest;
}

}  // namespace

// Whether producer p may be computed per tile of the group g that all its consumers belong to.
bool can_join(const PipelineAnalysis& a, const Group& p, const Group& g, const GroupingLimits& limits) {
    const StageNode& producer = a.stage(p.root);
    const StageNode& root = a.stage(g.root);
    if (producer.is_output || producer.user_scheduled) return false;
    // A Func with updates joins alone, read by the root only, and is computed per tile over all
    // that its scans walk (see covers_scans).
    if (producer.has_updates &&
        (!p.members.empty() || producer.consumers != std::vector<std::string>{g.root}))
        return false;
    if (root.user_scheduled || root.has_updates || root.region.empty()) return false;
    if (producer.consumers.empty()) return false;
    if (g.members.size() + 1 + p.members.size() > limits.max_members) return false;
    return std::all_of(producer.consumers.begin(), producer.consumers.end(),
                       [&](const std::string& c) { return in_group(g, c); });
}

Group merged(const PipelineAnalysis& a, const Group& p, const Group& g) {
    Group m = g;
    m.members.push_back(p.root);
    m.members.insert(m.members.end(), p.members.begin(), p.members.end());
    std::sort(m.members.begin(), m.members.end(),
              [&](const std::string& x, const std::string& y) { return a.index.at(x) < a.index.at(y); });
    return m;
}

Group singleton_group(const PipelineAnalysis& a, const MachineModel& machine, const std::string& name) {
    Group g{name, {}, {}, 0};
    choose_tile(CostModel(a, machine), a, machine, g);
    return g;
}

MachineModel machine_model(const PipelineAnalysis& a, const MachineParams& params, const Target& target) {
    MachineModel m;
    m.parallelism = std::max(params.parallelism, 1);
    m.last_level_cache_bytes = double(std::max<uint64_t>(params.last_level_cache_size, 64 * 1024));
    m.cache_bytes_per_core = std::clamp(m.last_level_cache_bytes / m.parallelism, 128.0 * 1024, 512.0 * 1024);
    m.balance = std::max(params.balance, 1.0f);
    m.vector_registers = target.has_feature(Target::AVX512) ? 32 : 16;
    for (const StageNode& s : a.stages) {
        const Type t = s.widest_type_bytes >= 4 ? Float(32) : UInt(8 * s.widest_type_bytes);
        m.vector_lanes[s.name] =
            std::max(target.natural_vector_size(s.widest_type_bytes == 8 ? Float(64) : t), 1);
    }
    return m;
}

std::map<std::string, Region> tile_regions(const PipelineAnalysis& a, const Group& g,
                                           const std::vector<int64_t>& tile) {
    const StageNode& root = a.stage(g.root);
    Region root_tile;
    for (size_t d = 0; d < tile.size(); d++) {
        const Span& full = root.region[d];
        // A tile in the middle of the region: the edges may clamp their footprints.
        const int64_t tiles = ceil_div(full.extent(), tile[d]);
        const int64_t min = full.min + (tiles / 2) * tile[d];
        root_tile.push_back(Span{min, std::min(full.max, min + tile[d] - 1)});
    }
    std::map<std::string, Region> regions{{g.root, root_tile}};
    // Consumers before producers: members in reverse realization order.
    for (auto it = g.members.rbegin(); it != g.members.rend(); ++it) {
        Region region;
        for (const std::string& consumer : a.stage(*it).consumers) {
            auto r = regions.find(consumer);
            if (r == regions.end()) continue;
            widen(region, evaluate_footprint(*footprint_of(a.stage(consumer), *it), r->second)
                              .value_or(a.stage(*it).region));
        }
        regions[*it] = region;
    }
    return regions;
}

namespace {

// Whether the reduction r is read by its one consumer point for point (conv by its activation).
bool read_point_for_point(const PipelineAnalysis& a, const StageNode& r) {
    if (r.consumers.size() != 1 || !a.has_stage(r.consumers[0])) return false;
    const StageNode& consumer = a.stage(r.consumers[0]);
    const Footprint* fp = footprint_of(consumer, r.name);
    if (!fp || fp->calls != 1 || consumer.region.size() != r.region.size()) return false;
    const std::optional<Region> read = evaluate_footprint(*fp, consumer.region);
    if (!read || read->size() != consumer.region.size()) return false;
    for (size_t d = 0; d < read->size(); d++)
        if ((*read)[d].min != consumer.region[d].min || (*read)[d].max != consumer.region[d].max)
            return false;
    return true;
}

// The register tile, most registers holding sums and the rest the operands: two vectors across the
// innermost dimension where it holds them (each value broadcast from the other operand then feeds
// two multiply-adds), else one; of a matrix product, by 8 rows with 32 vector registers, 6 with
// 16; of more dimensions (a convolution), by 4 x 6 rows of the next two, or 2 x 3 (4 x 3 and 2 x 3
// with two vectors), clamped to their extents. The outer dimensions (a batch) are not tiled: the
// tiles shift inwards at the edges, which needs an extent at least the tile's, and a batch is often
// smaller than estimated.
std::vector<int64_t> register_tile_of(const StageNode& root, int lanes, int registers) {
    const bool wide = registers >= 32;
    const bool matrix = root.region.size() == 2;
    const int64_t vectors = root.region[0].extent() >= 2 * lanes ? 2 : 1;
    const std::vector<int64_t> rows = matrix
                                          ? std::vector<int64_t>{wide ? 8 : 6}
                                          : std::vector<int64_t>{wide ? 4 : 2, wide && vectors == 1 ? 6 : 3};
    std::vector<int64_t> tile;
    for (size_t d = 0; d < root.region.size(); d++) {
        const int64_t extent = std::max<int64_t>(root.region[d].extent(), 1);
        const int64_t want = d == 0 ? lanes * vectors : d <= rows.size() ? rows[d - 1] : 1;
        tile.push_back(std::min(extent, want));
    }
    return tile;
}

}  // namespace

bool is_contraction(const StageNode& s) {
    if (!s.has_updates || s.vars.size() < 2) return false;
    for (size_t u = 0; u < s.update_pure_vars.size(); u++) {
        const auto& pure = s.update_pure_vars[u];
        if (s.update_rvars[u].empty() || pure.size() != s.vars.size() || pure[0] != s.vars[0]) return false;
    }
    return true;
}

bool register_tiled(const PipelineAnalysis& a, const std::string& reduction) {
    const StageNode& r = a.stage(reduction);
    if (!is_contraction(r) || r.is_output || r.user_scheduled || !read_point_for_point(a, r)) return false;
    const StageNode& consumer = a.stage(r.consumers[0]);
    return !consumer.has_updates && !consumer.user_scheduled;
}

std::optional<Group> register_tile_group(const PipelineAnalysis& a, const MachineModel& machine,
                                         const std::string& reduction) {
    if (!register_tiled(a, reduction)) return std::nullopt;
    const StageNode& consumer = a.stage(a.stage(reduction).consumers[0]);
    Group g{consumer.name, {reduction}, {}, 0};
    g.register_tile = true;
    g.tile = register_tile_of(consumer, machine.vector_lanes.at(consumer.name), machine.vector_registers);
    g.cost = CostModel(a, machine).cost(g, g.tile);
    return g;
}

std::vector<Group> group_stages(const PipelineAnalysis& a, const MachineModel& machine,
                                const GroupingLimits& limits) {
    CostModel model(a, machine);
    std::map<std::string, Group> groups;
    std::map<std::string, std::string> group_of;
    std::set<std::string> in_register_tiles;  // the Funcs of register-tile groups, which merge no further
    for (const StageNode& s : a.stages) {
        Group g{s.name, {}, {}, 0};
        choose_tile(model, a, machine, g);
        groups[s.name] = g;
        group_of[s.name] = s.name;
    }
    for (const StageNode& s : a.stages) {
        std::optional<Group> g = register_tile_group(a, machine, s.name);
        if (!g) continue;
        groups.erase(s.name);
        groups[g->root] = *g;
        group_of[s.name] = g->root;
        in_register_tiles.insert({s.name, g->root});
    }
    // A register tile's packed operands are copied per panel of its tiles.
    for (const StageNode& s : a.stages) {
        if (s.packed_dimension < 0 || s.consumers.size() != 1 || !in_register_tiles.count(s.consumers[0]))
            continue;
        Group& g = groups.at(group_of.at(s.consumers[0]));
        g.panels.push_back(s.name);
        groups.erase(s.name);
        group_of[s.name] = g.root;
        in_register_tiles.insert(s.name);
    }
    // Candidate merges, keyed by the producer group's root; recomputed when either side changes.
    std::map<std::string, Group> candidates;
    auto consider = [&](const std::string& producer) {
        candidates.erase(producer);
        if (!groups.count(producer) || in_register_tiles.count(producer)) return;
        const Group& p = groups.at(producer);
        const StageNode& s = a.stage(producer);
        if (s.consumers.empty() || in_register_tiles.count(group_of.at(s.consumers[0]))) return;
        const Group& g = groups.at(group_of.at(s.consumers[0]));
        if (g.root == producer || !can_join(a, p, g, limits)) return;
        Group m = merged(a, p, g);
        if (member_depth(a, m) > limits.max_member_depth) return;
        choose_tile(model, a, machine, m);
        if (m.cost < p.cost + g.cost) candidates[producer] = m;
    };
    for (const StageNode& s : a.stages) consider(s.name);
    while (!candidates.empty()) {
        // The merge that saves the most.
        std::string best;
        double best_saving = 0;
        for (const auto& [producer, m] : candidates) {
            const double saving = groups.at(producer).cost + groups.at(m.root).cost - m.cost;
            if (saving > best_saving) {
                best_saving = saving;
                best = producer;
            }
        }
        if (best.empty()) break;
        Group m = candidates.at(best);
        const std::string root = m.root;
        groups.erase(best);
        candidates.erase(best);
        for (const std::string& member : m.members) group_of[member] = root;
        groups[root] = m;
        // The grown group may now join its own consumers' differently, and its producers may join
        // it; the other candidates stand.
        std::vector<std::string> affected{root};
        for (const auto& [name, g] : groups) {
            const StageNode& s = a.stage(name);
            if (name != root && !s.consumers.empty() && group_of.at(s.consumers[0]) == root)
                affected.push_back(name);
        }
        for (auto it = candidates.begin(); it != candidates.end();)
            it = it->second.root == root ? candidates.erase(it) : std::next(it);
        for (const std::string& name : affected) consider(name);
    }
    std::vector<Group> result;
    for (auto& [name, g] : groups) result.push_back(g);
    std::sort(result.begin(), result.end(),
              [&](const Group& x, const Group& y) { return a.index.at(x.root) < a.index.at(y.root); });
    return result;
}

}  // namespace tessera::autoschedule
