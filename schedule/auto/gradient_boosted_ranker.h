#pragma once
// A learned cost model for the autoscheduler: gradient-boosted trees (XGBoost's rank:pairwise) that
// score candidate schedules so that, within one pipeline, a higher score predicts a faster
// schedule. Only the order of the scores within a pipeline means anything.
//
// Training and prediction run on the calling thread alone (XGBoost's nthread=1), so that a model
// trained on the same data with the same seed is the same model, and so that the processes the
// autoscheduler forks inherit no OpenMP thread pool. Every failure, XGBoost's included, is a
// CompileError that says what to do.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::autoschedule {

struct RankerTraining {
    int rounds = 60;  // trees added by one train()
    int max_depth = 6;
    double learning_rate = 0.3;
    double min_child_weight = 1;
    uint64_t seed = 0;
};

class GradientBoostedRanker {
public:
    // Untrained: predict() and to_bytes() are errors until train() or from_bytes().
    GradientBoostedRanker();
    // A model that to_bytes() saved, for rows of feature_count features. Bytes that are not such a
    // model, or that changed since (its checksum says), are an error: a model trained by XGBoost
    // elsewhere has no checksum.
    static GradientBoostedRanker from_bytes(const std::vector<char>& model, size_t feature_count);

    bool trained() const;
    size_t feature_count() const;

    // rows: one feature vector per candidate (all of feature_count() length, or of any fixed length
    // for the first train()); a NaN feature is a missing one. groups: how many consecutive rows
    // belong to each query (one pipeline's candidate schedules); labels: larger = better (e.g.
    // -log(time)). A trained ranker continues from its model, adding training.rounds trees.
    void train(const std::vector<std::vector<float>>& rows, const std::vector<float>& labels,
               const std::vector<unsigned>& groups, const RankerTraining& training = {});
    // One score per row; higher score = predicted faster.
    std::vector<float> predict(const std::vector<std::vector<float>>& rows) const;
    // The model in XGBoost's UBJSON format, which XGBoost itself reads too, with a checksum among its
    // attributes (tessera_checksum), for from_bytes().
    std::vector<char> to_bytes() const;

private:
    // XGBoost's BoosterHandle, or null while untrained. Copies share it: training builds a new
    // booster rather than changing this one.
    std::shared_ptr<void> booster_;
    size_t feature_count_ = 0;
};

}  // namespace tessera::autoschedule
