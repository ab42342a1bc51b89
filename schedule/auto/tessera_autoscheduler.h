#pragma once
// The "Tessera" automatic scheduler: from the estimates of a pipeline's outputs, a schedule for
// every Func the user has not scheduled. Funcs that are cheap or used once are inlined; the others
// are grouped (grouping.h) and each group scheduled in tiles (stage_schedules.h).

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lang/function.h"
#include "schedule/auto/pipeline_analysis.h"
#include "schedule/auto/schedule_plan.h"
#include "tessera/auto_schedule.h"
#include "tessera/target.h"

namespace tessera::autoschedule {

// The Funcs that are cheaper inlined than passed through memory, by the names pipeline_funcs gives
// them, as the analysis of the pipeline with none inlined sees them.
std::set<std::string> choose_inlined(const PipelineAnalysis& a);

// Plans the schedule and applies it. Should bounds inference fail on the plan (a region too deep
// in a nest of up- and downsamplings to bound), the groups are made smaller until it succeeds.
SchedulePlan tessera_autoschedule(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                                  const Target& target, const MachineParams& params);

}  // namespace tessera::autoschedule
