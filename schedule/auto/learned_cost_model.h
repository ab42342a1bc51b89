#pragma once
// The learned cost model: gradient-boosted trees over the features of a plan's lowered loop nest
// (loop_nest_features.h), trained with a pairwise rank loss on measured schedules, so that it
// orders the schedules of one pipeline as their run times would. The model trained ahead of time on
// random pipelines ships inside the library (data/cost_model.ubj); the tuner retrains a copy on
// its own measurements.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedule/auto/gradient_boosted_ranker.h"
#include "schedule/auto/loop_nest_features.h"
#include "schedule/auto/schedule_plan.h"

namespace tessera::autoschedule {

// The features of a plan: applied to the Funcs, lowered, and the Funcs' schedules put back.
// `values` give the buffers' fields at the estimated sizes (buffer_field_values).
std::vector<float> plan_features(const SchedulePlan& plan,
                                 const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                                 const std::map<std::string, int64_t>& values, const FeatureMachine& machine);

// The mins, extents and strides of the pipeline's buffers (outputs and inputs) at the regions
// given, named as the lowered loop nest names them.
std::map<std::string, int64_t> buffer_field_values(
    const std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>& regions);

class LearnedCostModel {
public:
    // The model that ships with the library (untrained where the build had none).
    static LearnedCostModel shipped();

    bool trained() const { return ranker_.trained(); }
    // Scores for candidate schedules of one pipeline, given the features of a reference schedule
    // of it (the automatic scheduler's): the model sees each row beside its difference from the
    // reference, so that what it learned on some pipelines carries over to others of other sizes.
    // Higher is faster; only the order among the schedules of one pipeline means anything.
    std::vector<float> scores(const std::vector<std::vector<float>>& rows,
                              const std::vector<float>& reference) const;
    // Trains afresh on the measurements given, which hold the schedules of one pipeline or several
    // (`groups`: how many consecutive rows each has; `references`: each group's reference row);
    // times in any unit.
    void train(const std::vector<std::vector<float>>& rows, const std::vector<double>& times,
               const std::vector<unsigned>& groups, const std::vector<std::vector<float>>& references,
               const RankerTraining& training = {});
    std::vector<char> to_bytes() const { return ranker_.to_bytes(); }

private:
    GradientBoostedRanker ranker_;
};

}  // namespace tessera::autoschedule
