#include "schedule/auto/gradient_boosted_ranker.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include "util/error_stream.h"

namespace tessera::autoschedule {
namespace {

// XGBoost's reason for the last failure, less the time stamp and stack trace it adds.
std::string last_xgboost_error() {
    std::string message = XGBGetLastError();
    message = message.substr(0, message.find("Stack trace:"));
    if (message.size() > 11 && message[0] == '[' && message[9] == ']') message.erase(0, 11);
    while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
    return message;
}

void check(int status, std::string_view doing, std::string_view advice) {
    if (status == 0) return;
    TESSERA_USER_ERROR << "GradientBoostedRanker: " << doing << " failed in XGBoost: " << last_xgboost_error()
                       << "\n  " << advice;
}

constexpr std::string_view kDataAdvice =
    "Features and labels must be finite numbers (a feature may be NaN where it is missing).";

using DMatrix = std::unique_ptr<void, decltype(&XGDMatrixFree)>;

// rows, each of `width` features, as one dense matrix, built on the calling thread.
DMatrix dense_matrix(const std::vector<std::vector<float>>& rows, size_t width) {
    std::vector<float> values;
    values.reserve(rows.size() * width);
    for (const std::vector<float>& row : rows) values.insert(values.end(), row.begin(), row.end());
    DMatrixHandle handle = nullptr;
    const float missing = std::numeric_limits<float>::quiet_NaN();
    check(XGDMatrixCreateFromMat_omp(values.data(), rows.size(), width, missing, &handle, /*nthread=*/1),
          "building the matrix of features", kDataAdvice);
    return DMatrix(handle, XGDMatrixFree);
}

void set_param(BoosterHandle booster, const std::string& name, const std::string& value) {
    check(XGBoosterSetParam(booster, name.c_str(), value.c_str()), "setting " + name + " to " + value,
          "Check the fields of RankerTraining.");
}

// XGBoost reads a model's trees with a thread per core unless the booster is configured to use one
// beforehand. Configuring takes the number of features, and no call of the C API only configures:
// saving the configuration configures first.
void use_one_thread(BoosterHandle booster, size_t feature_count) {
    set_param(booster, "nthread", "1");
    set_param(booster, "num_feature", std::to_string(feature_count));
    bst_ulong size = 0;
    const char* config = nullptr;
    check(XGBoosterSaveJsonConfig(booster, &size, &config), "configuring a booster",
          "XGBoost may be out of memory.");
}

// A booster for rows of feature_count features, that runs on the calling thread alone.
std::shared_ptr<void> new_booster(DMatrixHandle cached_data, size_t feature_count) {
    BoosterHandle handle = nullptr;
    check(XGBoosterCreate(&cached_data, cached_data ? 1 : 0, &handle), "creating a booster",
          "XGBoost may be out of memory.");
    std::shared_ptr<void> booster(handle, XGBoosterFree);
    use_one_thread(booster.get(), feature_count);
    return booster;
}

// XGBoost 1.7 crashes on many corrupt models (it reads past the end of a string whose length is
// wrong, or follows a tree's child index out of the tree) instead of reporting them. So the model
// carries a checksum of its own bytes as one of its attributes, which from_bytes() verifies before
// XGBoost reads anything. The checksum covers the bytes with its own 16 hex digits zeroed.
constexpr std::string_view kChecksumKey = "tessera_checksum";
constexpr size_t kChecksumDigits = 16;

// A length as XGBoost's UBJSON writer puts it before an object's key or a string's bytes: an int64,
// big-endian, after the type marker 'L'.
std::string ubjson_length(size_t n) {
    std::string encoded = "L";
    for (int shift = 56; shift >= 0; shift -= 8) encoded += static_cast<char>((n >> shift) & 0xff);
    return encoded;
}

// Where the checksum's digits start in the model's bytes, or npos where they are not there once.
size_t checksum_offset(const std::vector<char>& model) {
    const std::string marker =
        ubjson_length(kChecksumKey.size()) + std::string(kChecksumKey) + "S" + ubjson_length(kChecksumDigits);
    const std::string_view bytes(model.data(), model.size());
    const size_t at = bytes.find(marker);
    if (at == std::string_view::npos || bytes.find(marker, at + 1) != std::string_view::npos ||
        at + marker.size() + kChecksumDigits > bytes.size())
        return std::string_view::npos;
    return at + marker.size();
}

// FNV-1a of the bytes with the checksum's digits zeroed, in hex.
std::string checksum(std::vector<char> model, size_t offset) {
    std::fill_n(model.begin() + offset, kChecksumDigits, '0');
    uint64_t hash = 14695981039346656037ull;
    for (char c : model) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    std::string digits(kChecksumDigits, '0');
    for (size_t i = kChecksumDigits; i-- > 0; hash >>= 4) digits[i] = "0123456789abcdef"[hash & 0xf];
    return digits;
}

void check_model_bytes(const std::vector<char>& model) {
    const size_t offset = checksum_offset(model);
    TESSERA_USER_CHECK(offset != std::string_view::npos)
        << "GradientBoostedRanker::from_bytes(): these " << model.size()
        << " bytes are not a model that GradientBoostedRanker::to_bytes() saved (it has no checksum).\n"
        << "  Pass the bytes that to_bytes() returned, whole.";
    const std::string stored(model.begin() + offset, model.begin() + offset + kChecksumDigits);
    TESSERA_USER_CHECK(checksum(model, offset) == stored)
        << "GradientBoostedRanker::from_bytes(): the model's " << model.size()
        << " bytes are corrupt (they do not match their checksum).\n"
        << "  Save the model again with to_bytes(), or train a new one.";
}

void load_model(BoosterHandle booster, const std::vector<char>& model, size_t feature_count) {
    check_model_bytes(model);
    check(XGBoosterLoadModelFromBuffer(booster, model.data(), model.size()), "loading the model",
          "Pass the bytes that GradientBoostedRanker::to_bytes() returned, whole.");
    bst_ulong model_features = 0;
    check(XGBoosterGetNumFeature(booster, &model_features), "reading the model's number of features",
          "The model may be corrupt.");
    TESSERA_USER_CHECK(model_features == feature_count)
        << "GradientBoostedRanker::from_bytes(): the model scores rows of " << model_features
        << " features, not " << feature_count << ".\n  Pass the feature count it was trained with.";
}

std::vector<char> save_model(BoosterHandle booster) {
    bst_ulong size = 0;
    const char* bytes = nullptr;
    check(XGBoosterSaveModelToBuffer(booster, R"({"format": "ubj"})", &size, &bytes), "saving the model",
          "XGBoost may be out of memory.");
    std::vector<char> model(bytes, bytes + size);
    const size_t offset = checksum_offset(model);
    // train() and from_bytes() give every booster the attribute.
    TESSERA_INTERNAL_CHECK(offset != std::string_view::npos) << "the saved model has no " << kChecksumKey;
    const std::string digits = checksum(model, offset);
    std::copy(digits.begin(), digits.end(), model.begin() + offset);
    return model;
}

// Every row has `width` features.
void check_row_lengths(const std::vector<std::vector<float>>& rows, size_t width, std::string_view call,
                       std::string_view whose) {
    for (size_t i = 0; i < rows.size(); i++) {
        TESSERA_USER_CHECK(rows[i].size() == width)
            << "GradientBoostedRanker::" << call << ": row " << i << " has " << rows[i].size()
            << " features, but " << whose << " " << width << ".\n"
            << "  Every candidate needs a feature vector of the same length.";
    }
}

void check_training_data(const std::vector<std::vector<float>>& rows, const std::vector<float>& labels,
                         const std::vector<unsigned>& groups, size_t trained_width) {
    TESSERA_USER_CHECK(!rows.empty()) << "GradientBoostedRanker::train(): there are no rows to train on.";
    if (trained_width) {
        check_row_lengths(rows, trained_width, "train()", "the ranker was trained on rows of");
    } else {
        TESSERA_USER_CHECK(!rows.front().empty())
            << "GradientBoostedRanker::train(): the rows have no features.";
        check_row_lengths(rows, rows.front().size(), "train()", "row 0 has");
    }
    TESSERA_USER_CHECK(labels.size() == rows.size())
        << "GradientBoostedRanker::train(): " << labels.size() << " labels for " << rows.size()
        << " rows.\n  Give one label per row.";
    for (size_t i = 0; i < labels.size(); i++) {
        TESSERA_USER_CHECK(std::isfinite(labels[i]))
            << "GradientBoostedRanker::train(): the label of row " << i << " is " << labels[i]
            << ".\n  Labels must be finite, e.g. -log(time) of a measured time.";
    }
    uint64_t grouped = 0;
    for (unsigned size : groups) grouped += size;
    TESSERA_USER_CHECK(grouped == rows.size())
        << "GradientBoostedRanker::train(): the " << groups.size() << " groups hold " << grouped
        << " rows in all, but there are " << rows.size()
        << " rows.\n  The group sizes must add up to the number of rows.";
}

void check_training_parameters(const RankerTraining& t) {
    const char* prefix = "GradientBoostedRanker::train(): RankerTraining::";
    TESSERA_USER_CHECK(t.rounds >= 1) << prefix << "rounds is " << t.rounds << "; it must be at least 1.";
    TESSERA_USER_CHECK(t.max_depth >= 1)
        << prefix << "max_depth is " << t.max_depth << "; it must be at least 1.";
    TESSERA_USER_CHECK(t.learning_rate > 0 && std::isfinite(t.learning_rate))
        << prefix << "learning_rate is " << t.learning_rate << "; it must be positive.";
    TESSERA_USER_CHECK(t.min_child_weight >= 0 && std::isfinite(t.min_child_weight))
        << prefix << "min_child_weight is " << t.min_child_weight << "; it must be 0 or more.";
}

std::string decimal(double value) {
    std::ostringstream out;
    out.precision(std::numeric_limits<double>::max_digits10);
    out << value;
    return out.str();
}

void set_training_parameters(BoosterHandle booster, const RankerTraining& t) {
    set_param(booster, "objective", "rank:pairwise");
    set_param(booster, "tree_method", "hist");
    set_param(booster, "max_depth", std::to_string(t.max_depth));
    set_param(booster, "eta", decimal(t.learning_rate));
    set_param(booster, "min_child_weight", decimal(t.min_child_weight));
    // XGBoost's seed is signed; every uint64_t still names its own seed.
    set_param(booster, "seed", std::to_string(static_cast<int64_t>(t.seed)));
}

}  // namespace

GradientBoostedRanker::GradientBoostedRanker() = default;

GradientBoostedRanker GradientBoostedRanker::from_bytes(const std::vector<char>& model,
                                                        size_t feature_count) {
    TESSERA_USER_CHECK(feature_count > 0) << "GradientBoostedRanker::from_bytes(): a feature count of 0; "
                                             "pass the one the model was trained with.";
    GradientBoostedRanker ranker;
    ranker.booster_ = new_booster(nullptr, feature_count);
    load_model(ranker.booster_.get(), model, feature_count);
    ranker.feature_count_ = feature_count;
    return ranker;
}

bool GradientBoostedRanker::trained() const { return booster_ != nullptr; }

size_t GradientBoostedRanker::feature_count() const { return feature_count_; }

void GradientBoostedRanker::train(const std::vector<std::vector<float>>& rows,
                                  const std::vector<float>& labels, const std::vector<unsigned>& groups,
                                  const RankerTraining& training) {
    check_training_data(rows, labels, groups, feature_count_);
    check_training_parameters(training);
    const size_t width = rows.front().size();
    DMatrix data = dense_matrix(rows, width);
    check(XGDMatrixSetFloatInfo(data.get(), "label", labels.data(), labels.size()), "setting the labels",
          kDataAdvice);
    check(XGDMatrixSetUIntInfo(data.get(), "group", groups.data(), groups.size()), "setting the groups",
          "Give each group's number of rows.");
    // A new booster, continuing from the model if there is one, so that copies keep theirs.
    std::shared_ptr<void> next = new_booster(data.get(), width);
    if (booster_) load_model(next.get(), to_bytes(), width);
    int done = 0;
    check(XGBoosterBoostedRounds(next.get(), &done), "counting the model's rounds",
          "The model may be corrupt.");
    set_training_parameters(next.get(), training);
    check(XGBoosterSetAttr(next.get(), std::string(kChecksumKey).c_str(),
                           std::string(kChecksumDigits, '0').c_str()),
          "marking the model", "XGBoost may be out of memory.");
    for (int i = 0; i < training.rounds; i++) {
        check(XGBoosterUpdateOneIter(next.get(), done + i, data.get()),
              "training round " + std::to_string(i + 1) + " of " + std::to_string(training.rounds),
              std::string(kDataAdvice) + " Check the fields of RankerTraining.");
    }
    booster_ = std::move(next);
    feature_count_ = width;
}

std::vector<float> GradientBoostedRanker::predict(const std::vector<std::vector<float>>& rows) const {
    TESSERA_USER_CHECK(booster_) << "GradientBoostedRanker::predict() on a ranker that is not trained.\n"
                                 << "  train() it first, or load a trained one with from_bytes().";
    if (rows.empty()) return {};
    check_row_lengths(rows, feature_count_, "predict()", "the ranker was trained on rows of");
    DMatrix data = dense_matrix(rows, feature_count_);
    const char* config =
        R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
    const bst_ulong* shape = nullptr;
    bst_ulong dimensions = 0;
    const float* scores = nullptr;
    check(XGBoosterPredictFromDMatrix(booster_.get(), data.get(), config, &shape, &dimensions, &scores),
          "scoring the rows", kDataAdvice);
    TESSERA_INTERNAL_CHECK(dimensions == 1 && shape[0] == rows.size())
        << "XGBoost scored " << rows.size() << " rows with an array of " << dimensions << " dimensions";
    return std::vector<float>(scores, scores + rows.size());
}

std::vector<char> GradientBoostedRanker::to_bytes() const {
    TESSERA_USER_CHECK(booster_) << "GradientBoostedRanker::to_bytes() on a ranker that is not trained: "
                                 << "there is no model to save.";
    return save_model(booster_.get());
}

}  // namespace tessera::autoschedule
