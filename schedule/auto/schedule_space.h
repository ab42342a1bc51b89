#pragma once
// The space of schedules the tuner searches: a point is what the automatic scheduler chooses (the
// Funcs inlined, the groups, their tiles and the choices within a tile), so that the scheduler's
// own choice is a point of it and every point becomes a plan the same way. Mutations change one
// choice and keep the point legal.

#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "schedule/auto/grouping.h"
#include "schedule/auto/schedule_plan.h"
#include "tessera/auto_schedule.h"
#include "tessera/target.h"

namespace tessera::autoschedule {

struct SchedulePoint {
    std::set<std::string> inlined;
    std::vector<Group> groups;  // in realization order of their roots

    // A text that two points share exactly when they make the same choices. Points with different
    // choices may still make the same plan (a tile as large as its Func or larger, say).
    std::string key() const;
};

class ScheduleSpace {
public:
    ScheduleSpace(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs, const Target& target,
                  const MachineParams& params);

    // What the automatic scheduler chooses.
    SchedulePoint initial() const { return initial_; }
    // A point one random change away (or the same point where no change applies).
    SchedulePoint mutate(const SchedulePoint& p, std::mt19937_64& rng) const;
    // The plan of a point.
    SchedulePlan plan(const SchedulePoint& p) const;

private:
    struct Analyzed;
    const Analyzed& analysis_for(const std::set<std::string>& inlined) const;
    bool mutate_tile(SchedulePoint& p, std::mt19937_64& rng) const;
    bool mutate_register_tile(Group& g, const StageNode& root, const MachineModel& machine,
                              std::mt19937_64& rng) const;
    bool mutate_knob(SchedulePoint& p, std::mt19937_64& rng) const;
    bool split_group(SchedulePoint& p, std::mt19937_64& rng) const;
    bool join_group(SchedulePoint& p, std::mt19937_64& rng) const;
    bool toggle_inline(SchedulePoint& p, std::mt19937_64& rng) const;

    std::vector<std::shared_ptr<lang::FunctionContents>> outputs_;
    Target target_;
    MachineParams params_;
    std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>> funcs_;
    std::vector<FuncPlan> made_;       // the Funcs every plan makes (contractions.h)
    std::set<std::string> inlinable_;  // Funcs the space may inline
    mutable std::vector<std::pair<std::set<std::string>, std::shared_ptr<Analyzed>>> analyses_;
    SchedulePoint initial_;
};

}  // namespace tessera::autoschedule
