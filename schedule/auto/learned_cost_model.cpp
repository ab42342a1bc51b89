#include "schedule/auto/learned_cost_model.h"

#include <cmath>

#include "lowering/lower.h"
#include "lowering/names.h"
#include "util/error_stream.h"

namespace tessera::autoschedule {

// The shipped model's bytes (cost_model_data.cpp): empty where the build had none.
std::string_view shipped_cost_model_bytes();

std::vector<float> plan_features(const SchedulePlan& plan,
                                 const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                                 const std::map<std::string, int64_t>& values,
                                 const FeatureMachine& machine) {
    const ScheduleSnapshot before(plan);
    try {
        apply_plan(plan);
        const ir::Stmt nest = lowering::lower_loop_nest(outputs);
        before.restore();
        return loop_nest_features(nest, values, machine);
    } catch (...) {
        before.restore();
        throw;
    }
}

std::map<std::string, int64_t> buffer_field_values(
    const std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>& regions) {
    std::map<std::string, int64_t> values;
    for (const auto& [name, region] : regions) {
        int64_t stride = 1;
        for (size_t d = 0; d < region.size(); d++) {
            values[lowering::buffer_min(name, int(d))] = region[d].first;
            values[lowering::buffer_extent(name, int(d))] = region[d].second;
            values[lowering::buffer_stride(name, int(d))] = stride;
            stride *= std::max<int64_t>(region[d].second, 1);
        }
    }
    return values;
}

namespace {

// What the ranker reads: the features, then their differences from the reference's.
std::vector<float> beside_reference(const std::vector<float>& row, const std::vector<float>& reference) {
    std::vector<float> out = row;
    for (size_t i = 0; i < row.size(); i++)
        out.push_back(row[i] - (i < reference.size() ? reference[i] : 0.0f));
    return out;
}

}  // namespace

LearnedCostModel LearnedCostModel::shipped() {
    LearnedCostModel model;
    const std::string_view bytes = shipped_cost_model_bytes();
    if (!bytes.empty())
        model.ranker_ = GradientBoostedRanker::from_bytes(std::vector<char>(bytes.begin(), bytes.end()),
                                                          2 * loop_nest_feature_names().size());
    return model;
}

std::vector<float> LearnedCostModel::scores(const std::vector<std::vector<float>>& rows,
                                            const std::vector<float>& reference) const {
    std::vector<std::vector<float>> seen;
    for (const auto& row : rows) seen.push_back(beside_reference(row, reference));
    return ranker_.predict(seen);
}

void LearnedCostModel::train(const std::vector<std::vector<float>>& rows, const std::vector<double>& times,
                             const std::vector<unsigned>& groups,
                             const std::vector<std::vector<float>>& references,
                             const RankerTraining& training) {
    TESSERA_INTERNAL_CHECK(rows.size() == times.size() && groups.size() == references.size())
        << "cost model: rows and times, or groups and references, differ in number";
    std::vector<std::vector<float>> seen;
    size_t at = 0;
    for (size_t g = 0; g < groups.size(); g++)
        for (unsigned k = 0; k < groups[g]; k++, at++)
            seen.push_back(beside_reference(rows[at], references[g]));
    // The faster, the higher: ranks are what the pairwise loss compares.
    std::vector<float> labels;
    for (double t : times) labels.push_back(float(-std::log2(std::max(t, 1e-9))));
    GradientBoostedRanker fresh;
    fresh.train(seen, labels, groups, training);
    ranker_ = std::move(fresh);
}

}  // namespace tessera::autoschedule
