#pragma once
// A schedule plan as JSON, as tuning records keep it, and back: Funcs by their place in realization
// order (and their names, checked), each directive with its loops.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedule/auto/schedule_plan.h"
#include "util/json.h"

namespace tessera::tune {

std::string plan_to_json(const autoschedule::SchedulePlan& plan);

// The plan for the pipeline whose Funcs are `funcs` (as pipeline_funcs lists them), or nullopt with
// the reason in `why` where the JSON does not describe a plan of this pipeline.
std::optional<autoschedule::SchedulePlan> plan_from_json(
    const json::Value& value,
    const std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>>& funcs,
    std::string* why);

}  // namespace tessera::tune
