#include "schedule/auto/schedule_space.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "schedule/auto/contractions.h"
#include "schedule/auto/stage_schedules.h"
#include "schedule/auto/tessera_autoscheduler.h"

namespace tessera::autoschedule {

struct ScheduleSpace::Analyzed {
    PipelineAnalysis analysis;
    MachineModel machine;
};

namespace {

template <typename T>
const T& pick(const std::vector<T>& v, std::mt19937_64& rng) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

size_t group_of(const SchedulePoint& p, const std::string& name) {
    for (size_t g = 0; g < p.groups.size(); g++) {
        const Group& group = p.groups[g];
        if (group.root == name ||
            std::find(group.members.begin(), group.members.end(), name) != group.members.end())
            return g;
    }
    return p.groups.size();
}

// Every Func of the analysis in exactly one group, and each member read only within its group:
// what a plan needs to be legal.
bool well_formed(const SchedulePoint& p, const PipelineAnalysis& a) {
    std::map<std::string, size_t> group;
    for (size_t g = 0; g < p.groups.size(); g++) {
        if (!a.has_stage(p.groups[g].root) || !group.emplace(p.groups[g].root, g).second) return false;
        for (const std::string& m : p.groups[g].members)
            if (!a.has_stage(m) || !group.emplace(m, g).second) return false;
        for (const std::string& m : p.groups[g].panels)
            if (!a.has_stage(m) || !group.emplace(m, g).second) return false;
    }
    if (group.size() != a.stages.size()) return false;
    // Members are computed at a loop of the root's pure definition, which a root with updates
    // (other than a register tile's, whose updates are tiled alike) does not run last.
    for (const Group& g : p.groups)
        if (!g.members.empty() && a.stage(g.root).has_updates && !g.register_tile) return false;
    for (const Group& g : p.groups)
        for (const std::string& m : g.members)
            for (const std::string& c : a.stage(m).consumers)
                if (group.at(c) != group.at(g.root)) return false;
    return true;
}

void sort_groups(SchedulePoint& p, const PipelineAnalysis& a) {
    std::sort(p.groups.begin(), p.groups.end(),
              [&](const Group& x, const Group& y) { return a.index.at(x.root) < a.index.at(y.root); });
}

}  // namespace

std::string SchedulePoint::key() const {
    std::ostringstream out;
    for (const std::string& name : inlined) out << name << ";";
    for (const Group& g : groups) {
        out << "|" << g.root << ":";
        for (const std::string& m : g.members) out << m << ",";
        out << ":";
        for (int64_t t : g.tile) out << t << "x";
        out << ":" << g.unroll_rows << "," << g.update_rows << "," << g.update_vectors
            << (g.register_tile ? "r" : "");
    }
    return out.str();
}

ScheduleSpace::ScheduleSpace(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                             const Target& target, const MachineParams& params)
    : outputs_(outputs),
      target_(target),
      params_(params),
      funcs_(pipeline_funcs(outputs)),
      made_(contraction_funcs(outputs, funcs_)) {
    const Analyzed& none_inlined = analysis_for({});
    for (const StageNode& s : none_inlined.analysis.stages)
        if (!s.is_output && !s.has_updates && !s.user_scheduled && s.packed_dimension < 0)
            inlinable_.insert(s.name);
    initial_.inlined = choose_inlined(none_inlined.analysis);
    const Analyzed& chosen = analysis_for(initial_.inlined);
    initial_.groups = group_stages(chosen.analysis, chosen.machine);
}

const ScheduleSpace::Analyzed& ScheduleSpace::analysis_for(const std::set<std::string>& inlined) const {
    for (const auto& [key, analyzed] : analyses_)
        if (key == inlined) return *analyzed;
    auto analyzed = std::make_shared<Analyzed>();
    analyzed->analysis = analyze_with(outputs_, funcs_, made_, inlined);
    analyzed->machine = machine_model(analyzed->analysis, params_, target_);
    analyses_.emplace_back(inlined, analyzed);
    return *analyzed;
}

SchedulePlan ScheduleSpace::plan(const SchedulePoint& p) const {
    const Analyzed& a = analysis_for(p.inlined);
    return plan_schedules(a.analysis, p.groups, a.machine, funcs_, p.inlined, made_);
}

SchedulePoint ScheduleSpace::mutate(const SchedulePoint& p, std::mt19937_64& rng) const {
    // Tiles and the choices within them most often; the structure now and then.
    for (int attempt = 0; attempt < 8; attempt++) {
        SchedulePoint q = p;
        const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
        const bool changed = kind < 4   ? mutate_tile(q, rng)
                             : kind < 7 ? mutate_knob(q, rng)
                             : kind < 8 ? split_group(q, rng)
                             : kind < 9 ? join_group(q, rng)
                                        : toggle_inline(q, rng);
        if (changed && q.key() != p.key() && well_formed(q, analysis_for(q.inlined).analysis)) return q;
    }
    return p;
}

// One dimension of one group's tile doubled or halved: the innermost in whole vectors, the others
// down to one row; a tile as large as the region leaves the dimension untiled.
bool ScheduleSpace::mutate_tile(SchedulePoint& p, std::mt19937_64& rng) const {
    const Analyzed& a = analysis_for(p.inlined);
    Group& g = p.groups[std::uniform_int_distribution<size_t>(0, p.groups.size() - 1)(rng)];
    const StageNode& root = a.analysis.stage(g.root);
    if (root.user_scheduled || g.tile.empty()) return false;
    if (g.register_tile) return mutate_register_tile(g, root, a.machine, rng);
    const size_t d = std::uniform_int_distribution<size_t>(0, g.tile.size() - 1)(rng);
    const int64_t extent = root.region[d].extent();
    const int64_t smallest = d == 0 ? a.machine.vector_lanes.at(g.root) : 1;
    int64_t size = std::min(g.tile[d], extent);
    size = std::uniform_int_distribution<int>(0, 1)(rng) ? size * 2 : size / 2;
    size = std::clamp<int64_t>(size, std::min(smallest, extent), extent);
    if (d == 0 && size < extent) size = std::max<int64_t>(smallest, size / smallest * smallest);
    if (size == g.tile[d]) return false;
    g.tile[d] = size;
    return true;
}

// A register tile's shape: one dimension given another size (the innermost in one to four
// vectors, the others one to twelve rows), as long as its accumulators, one vector each, leave a few
// of the target's vector registers for the operands. Where they would not, the other rows shrink,
// the outermost first, until they do: 2 x 3 rows asked for 4 along the first become 4 x 1.
bool ScheduleSpace::mutate_register_tile(Group& g, const StageNode& root, const MachineModel& machine,
                                         std::mt19937_64& rng) const {
    const int64_t lanes = machine.vector_lanes.at(g.root);
    const size_t d = std::uniform_int_distribution<size_t>(0, g.tile.size() - 1)(rng);
    const int64_t extent = std::max<int64_t>(root.region[d].extent(), 1);
    const int64_t size = d == 0 ? lanes * pick(std::vector<int64_t>{1, 2, 3, 4}, rng)
                                : pick(std::vector<int64_t>{1, 2, 3, 4, 6, 8, 12}, rng);
    std::vector<int64_t> tile = g.tile;
    tile[d] = std::min(size, extent);
    auto accumulators = [&] {
        int64_t n = (tile[0] + lanes - 1) / lanes;
        for (size_t k = 1; k < tile.size(); k++) n *= tile[k];
        return n;
    };
    const int64_t budget = machine.vector_registers - 4;
    for (size_t k = tile.size(); k-- > 1;) {
        while (k != d && tile[k] > 1 && accumulators() > budget) tile[k]--;
    }
    if (tile == g.tile || accumulators() > budget) return false;
    g.tile = tile;
    return true;
}

bool ScheduleSpace::mutate_knob(SchedulePoint& p, std::mt19937_64& rng) const {
    Group& g = p.groups[std::uniform_int_distribution<size_t>(0, p.groups.size() - 1)(rng)];
    const Analyzed& a = analysis_for(p.inlined);
    const StageNode& root = a.analysis.stage(g.root);
    if (root.user_scheduled) return false;
    if (root.has_updates) {
        if (std::uniform_int_distribution<int>(0, 1)(rng))
            g.update_rows = pick(std::vector<int>{1, 2, 4, 6, 8}, rng);
        else
            g.update_vectors = pick(std::vector<int>{1, 2, 3, 4}, rng);
    } else {
        g.unroll_rows = pick(std::vector<int>{1, 2, 4}, rng);
    }
    return true;
}

// A member computed at root instead, with the members it reads (they must be computed before it).
bool ScheduleSpace::split_group(SchedulePoint& p, std::mt19937_64& rng) const {
    std::vector<size_t> with_members;
    for (size_t g = 0; g < p.groups.size(); g++)
        if (!p.groups[g].members.empty()) with_members.push_back(g);
    if (with_members.empty()) return false;
    const Analyzed& a = analysis_for(p.inlined);
    Group& g = p.groups[pick(with_members, rng)];
    const std::string leaving = pick(g.members, rng);
    // The members the leaving one reads, directly or through others, leave with it.
    std::set<std::string> moved{leaving};
    for (auto it = g.members.rbegin(); it != g.members.rend(); ++it) {
        const StageNode& s = a.analysis.stage(*it);
        if (std::any_of(s.consumers.begin(), s.consumers.end(),
                        [&](const std::string& c) { return moved.count(c); }))
            moved.insert(*it);
    }
    // A Func with updates takes no members (see well_formed): those it reads are computed at root.
    const bool takes_members = !a.analysis.stage(leaving).has_updates;
    Group out = singleton_group(a.analysis, a.machine, leaving);
    for (const std::string& m : g.members) {
        if (m == leaving || !moved.count(m)) continue;
        if (takes_members)
            out.members.push_back(m);
        else
            p.groups.push_back(singleton_group(a.analysis, a.machine, m));
    }
    std::erase_if(g.members, [&](const std::string& m) { return moved.count(m) != 0; });
    p.groups.push_back(out);
    sort_groups(p, a.analysis);
    return true;
}

// A group computed per tile of the group that all its root's consumers belong to.
bool ScheduleSpace::join_group(SchedulePoint& p, std::mt19937_64& rng) const {
    const Analyzed& a = analysis_for(p.inlined);
    std::vector<std::pair<size_t, size_t>> joins;
    for (size_t i = 0; i < p.groups.size(); i++) {
        const StageNode& s = a.analysis.stage(p.groups[i].root);
        if (s.consumers.empty()) continue;
        const size_t j = group_of(p, s.consumers[0]);
        if (j < p.groups.size() && j != i && can_join(a.analysis, p.groups[i], p.groups[j]))
            joins.emplace_back(i, j);
    }
    if (joins.empty()) return false;
    const auto [i, j] = pick(joins, rng);
    p.groups[j] = merged(a.analysis, p.groups[i], p.groups[j]);
    p.groups.erase(p.groups.begin() + std::ptrdiff_t(i));
    return true;
}

// A Func inlined that was computed alone, or computed alone that was inlined.
bool ScheduleSpace::toggle_inline(SchedulePoint& p, std::mt19937_64& rng) const {
    if (inlinable_.empty()) return false;
    const std::string name = pick(std::vector<std::string>(inlinable_.begin(), inlinable_.end()), rng);
    if (p.inlined.count(name)) {
        p.inlined.erase(name);
        const Analyzed& after = analysis_for(p.inlined);
        p.groups.push_back(singleton_group(after.analysis, after.machine, name));
        sort_groups(p, after.analysis);
        return true;
    }
    const size_t g = group_of(p, name);
    if (g == p.groups.size()) return false;
    Group& group = p.groups[g];
    if (group.root == name) {
        if (!group.members.empty()) return false;
        p.groups.erase(p.groups.begin() + std::ptrdiff_t(g));
    } else {
        std::erase(group.members, name);
    }
    p.inlined.insert(name);
    return true;
}

}  // namespace tessera::autoschedule
