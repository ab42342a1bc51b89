#pragma once
// The scheduling calls that realize a grouping: each group's root computed at root in its tiles,
// vectorized across its innermost dimension and parallel across tiles; each member computed per
// tile and vectorized; updates vectorized across a pure Var with their RVars outside it.

#include <set>
#include <string>
#include <vector>

#include "schedule/auto/grouping.h"
#include "schedule/auto/schedule_plan.h"

namespace tessera::autoschedule {

// The plan for every Func of the pipeline in realization order, then for the Funcs it makes:
// `funcs` names the pipeline's Funcs (inlined ones included), `made` the Funcs to make (with the
// directives they come with, see contractions.h), `inlined` those computed inline.
SchedulePlan plan_schedules(
    const PipelineAnalysis& a, const std::vector<Group>& groups, const MachineModel& machine,
    const std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>>& funcs,
    const std::set<std::string>& inlined, const std::vector<FuncPlan>& made = {});

}  // namespace tessera::autoschedule
