#pragma once
// What a tuning run sets up before it measures anything, the same way in every process that takes
// part (the root and, under MPI, every rank): the target, random inputs where the user bound none,
// the measurement setup, and what the cost model needs to read a loop nest at the estimated sizes.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedule/auto/loop_nest_features.h"
#include "schedule/auto/pipeline_analysis.h"
#include "tessera/autotune.h"
#include "tune/measurement.h"

namespace tessera::tune {

// Binds a buffer of random values (from the seed) to every input the user has not bound, of the
// region the estimates say the pipeline reads; unbinds them when destroyed.
class TuningInputs {
public:
    TuningInputs(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                 const autoschedule::PipelineAnalysis& a, uint64_t seed);
    ~TuningInputs();
    TuningInputs(const TuningInputs&) = delete;
    TuningInputs& operator=(const TuningInputs&) = delete;

private:
    std::vector<std::shared_ptr<lang::ParameterContents>> bound_;
};

struct TuningSession {
    TuningSession(const Pipeline& pipeline, const TuneOptions& options);

    std::vector<std::shared_ptr<lang::FunctionContents>> outputs;
    Target target;
    autoschedule::PipelineAnalysis analysis;
    TuningInputs inputs;
    MeasureSetup setup;
    std::map<std::string, int64_t> feature_values;
    autoschedule::FeatureMachine machine;
};

}  // namespace tessera::tune
