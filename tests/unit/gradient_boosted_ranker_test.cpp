#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <vector>

#include "schedule/auto/gradient_boosted_ranker.h"
#include "schedule/auto/rank_correlation.h"
#include "tessera/error.h"

using namespace tessera;
using namespace tessera::autoschedule;

namespace {

constexpr int kFeatures = 6;
constexpr unsigned kRowsPerGroup = 30;

struct RankingData {
    std::vector<std::vector<float>> rows;
    std::vector<float> labels;
    std::vector<unsigned> groups;
};

// Groups of 30 candidates of 6 features uniform in [0, 1), each labelled with a nonlinear function
// of five of them plus a little noise. The raw output of mt19937 is the same on every platform.
RankingData synthetic_data(int groups, uint32_t seed) {
    std::mt19937 random(seed);
    auto uniform = [&] { return static_cast<float>(random() / 4294967296.0); };
    RankingData data;
    for (int g = 0; g < groups; g++) {
        data.groups.push_back(kRowsPerGroup);
        for (unsigned i = 0; i < kRowsPerGroup; i++) {
            std::vector<float> x(kFeatures);
            for (float& v : x) v = uniform();
            const double truth =
                std::sin(3 * x[0]) + x[1] * x[2] + (x[3] > 0.5f ? 0.5 : 0.0) + 0.3 * x[4] * x[4];
            data.labels.push_back(static_cast<float>(truth + 0.02 * (uniform() - 0.5)));
            data.rows.push_back(x);
        }
    }
    return data;
}

GradientBoostedRanker trained_ranker(const RankingData& data, uint64_t seed = 0) {
    GradientBoostedRanker ranker;
    RankerTraining training;
    training.seed = seed;
    ranker.train(data.rows, data.labels, data.groups, training);
    return ranker;
}

// The mean over groups of Kendall's tau between the scores and the labels.
double mean_group_tau(const RankingData& data, const std::vector<float>& scores) {
    double sum = 0;
    size_t start = 0;
    for (unsigned size : data.groups) {
        std::vector<double> predicted(scores.begin() + start, scores.begin() + start + size);
        std::vector<double> actual(data.labels.begin() + start, data.labels.begin() + start + size);
        sum += kendall_tau(predicted, actual);
        start += size;
    }
    return sum / data.groups.size();
}

int thread_count() {
    int threads = 0;
    for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
        threads++;
    return threads;
}

}  // namespace

TEST_CASE("the ranker orders held-out groups of candidates as their labels do") {
    const RankingData training = synthetic_data(30, 1), held_out = synthetic_data(10, 2);
    const GradientBoostedRanker ranker = trained_ranker(training);
    REQUIRE(ranker.trained());
    CHECK(ranker.feature_count() == kFeatures);
    const double tau = mean_group_tau(held_out, ranker.predict(held_out.rows));
    MESSAGE("mean Kendall tau over 10 held-out groups: " << tau);
    CHECK(tau > 0.7);
}

TEST_CASE("a model saved with to_bytes and loaded with from_bytes scores exactly as the original") {
    const RankingData training = synthetic_data(30, 1), held_out = synthetic_data(10, 2);
    const GradientBoostedRanker ranker = trained_ranker(training);
    const std::vector<char> bytes = ranker.to_bytes();
    MESSAGE("60 rounds of depth 6 save to " << bytes.size() << " bytes");
    CHECK(bytes.size() < 1024 * 1024);
    const GradientBoostedRanker loaded = GradientBoostedRanker::from_bytes(bytes, kFeatures);
    CHECK(loaded.trained());
    CHECK(loaded.feature_count() == kFeatures);
    CHECK(loaded.predict(held_out.rows) == ranker.predict(held_out.rows));
    CHECK(loaded.to_bytes() == bytes);
}

TEST_CASE("training twice with the same seed and data gives the same model") {
    const RankingData training = synthetic_data(30, 1), held_out = synthetic_data(10, 2);
    const GradientBoostedRanker first = trained_ranker(training, 7), second = trained_ranker(training, 7);
    CHECK(first.predict(held_out.rows) == second.predict(held_out.rows));
    CHECK(first.to_bytes() == second.to_bytes());
}

TEST_CASE("training a trained ranker adds to its model and leaves its copies alone") {
    const RankingData training = synthetic_data(30, 1), more = synthetic_data(5, 3),
                      held_out = synthetic_data(10, 2);
    GradientBoostedRanker ranker = trained_ranker(training);
    const GradientBoostedRanker copy = ranker;
    const std::vector<float> before = ranker.predict(held_out.rows);
    RankerTraining training_more;
    training_more.rounds = 5;
    ranker.train(more.rows, more.labels, more.groups, training_more);
    CHECK(copy.predict(held_out.rows) == before);
    CHECK(ranker.predict(held_out.rows) != before);
    CHECK(ranker.to_bytes().size() > copy.to_bytes().size());
    CHECK_THROWS_WITH_AS(ranker.train({{1, 2}}, {1}, {1}), doctest::Contains("trained on rows of 6"),
                         CompileError);
}

TEST_CASE("training, saving, loading and scoring start no threads") {
    const RankingData training = synthetic_data(5, 1);
    const GradientBoostedRanker ranker = trained_ranker(training);
    const GradientBoostedRanker loaded = GradientBoostedRanker::from_bytes(ranker.to_bytes(), kFeatures);
    GradientBoostedRanker continued = loaded;
    continued.train(training.rows, training.labels, training.groups);
    CHECK(continued.predict(training.rows).size() == training.rows.size());
    CHECK_MESSAGE(thread_count() == 1, "XGBoost started threads (OpenMP): " << thread_count() << " in all");
}

TEST_CASE("misuse of the ranker and corrupt models are errors that say what is wrong") {
    const RankingData training = synthetic_data(3, 1);
    GradientBoostedRanker untrained;
    CHECK_FALSE(untrained.trained());
    CHECK_THROWS_WITH_AS(untrained.predict(training.rows), doctest::Contains("not trained"), CompileError);
    CHECK_THROWS_WITH_AS(untrained.to_bytes(), doctest::Contains("not trained"), CompileError);

    std::vector<std::vector<float>> ragged = training.rows;
    ragged[2].pop_back();
    CHECK_THROWS_WITH_AS(untrained.train(ragged, training.labels, training.groups),
                         doctest::Contains("row 2 has 5 features, but row 0 has 6"), CompileError);
    CHECK_THROWS_WITH_AS(untrained.train(training.rows, {1, 2, 3}, training.groups),
                         doctest::Contains("3 labels for 90 rows"), CompileError);
    CHECK_THROWS_WITH_AS(untrained.train(training.rows, training.labels, {30, 30, 29}),
                         doctest::Contains("the 3 groups hold 89 rows in all, but there are 90 rows"),
                         CompileError);
    RankerTraining no_rounds;
    no_rounds.rounds = 0;
    CHECK_THROWS_WITH_AS(untrained.train(training.rows, training.labels, training.groups, no_rounds),
                         doctest::Contains("rounds is 0"), CompileError);
    CHECK_FALSE(untrained.trained());

    const GradientBoostedRanker ranker = trained_ranker(training);
    CHECK_THROWS_WITH_AS(ranker.predict(ragged), doctest::Contains("row 2 has 5 features"), CompileError);
    // Found by XGBoost, whose reason the error gives.
    std::vector<std::vector<float>> infinite = training.rows;
    infinite[4][1] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH_AS(ranker.predict(infinite), doctest::Contains("Input data contains `inf`"),
                         CompileError);

    const std::vector<char> bytes = ranker.to_bytes();
    std::vector<char> flipped = bytes;
    flipped[flipped.size() / 2] ^= 0x20;
    CHECK_THROWS_WITH_AS(GradientBoostedRanker::from_bytes(flipped, kFeatures), doctest::Contains("corrupt"),
                         CompileError);
    const std::vector<char> truncated(bytes.begin(), bytes.begin() + bytes.size() / 2);
    CHECK_THROWS_WITH_AS(GradientBoostedRanker::from_bytes(truncated, kFeatures),
                         doctest::Contains("corrupt"), CompileError);
    CHECK_THROWS_WITH_AS(GradientBoostedRanker::from_bytes({'n', 'o', 't'}, kFeatures),
                         doctest::Contains("not a model that GradientBoostedRanker::to_bytes() saved"),
                         CompileError);
    CHECK_THROWS_WITH_AS(GradientBoostedRanker::from_bytes(bytes, 5),
                         doctest::Contains("scores rows of 6 features, not 5"), CompileError);
}

TEST_CASE("a corrupt byte anywhere in a model is an error, never a crash") {
    const GradientBoostedRanker ranker = trained_ranker(synthetic_data(3, 1));
    const std::vector<char> bytes = ranker.to_bytes();
    std::mt19937 random(5);
    for (int trial = 0; trial < 200; trial++) {
        std::vector<char> corrupt = bytes;
        const size_t at = random() % corrupt.size();
        corrupt[at] = static_cast<char>(corrupt[at] ^ (1 + random() % 255));
        CHECK_THROWS_AS_MESSAGE(GradientBoostedRanker::from_bytes(corrupt, kFeatures), CompileError,
                                "byte " << at << " changed");
    }
}

TEST_CASE("kendall_tau counts agreeing and disagreeing pairs, corrected for ties") {
    CHECK(kendall_tau({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1));
    CHECK(kendall_tau({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1));
    // Pairs: 4 agree, 1 disagrees ((2, 3) against (3, 2)), 1 tied in b alone ((2, 4)):
    // (4 - 1) / sqrt(6 * 5).
    CHECK(kendall_tau({1, 2, 3, 4}, {1, 3, 2, 3}) == doctest::Approx(3 / std::sqrt(30.0)));
    CHECK(kendall_tau({1}, {1}) == 0);
    CHECK(kendall_tau({}, {}) == 0);
    CHECK(kendall_tau({1, 1, 1}, {1, 2, 3}) == 0);
}
