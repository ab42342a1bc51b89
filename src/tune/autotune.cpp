// tessera::autotune: an evolutionary search over the automatic scheduler's space of schedules,
// measured in batches by a runner; every measurement appended to the records file.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "lang/parameter.h"
#include "schedule/auto/learned_cost_model.h"
#include "schedule/auto/pipeline_analysis.h"
#include "schedule/auto/schedule_space.h"
#include "tessera/autotune.h"
#include "tune/pipeline_signature.h"
#include "tune/plan_json.h"
#include "tune/tune_runner.h"
#include "tune/tuning_records.h"
#include "tune/tuning_session.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

using autoschedule::SchedulePoint;
using Clock = std::chrono::steady_clock;

struct Measured {
    SchedulePoint point;
    double ms = 0;
};

// The search's state: what was measured, and for the model-guided search, the cost model and the
// features of what it measured, on which it is retrained after every batch.
class Search {
public:
    using Featurize = std::function<std::vector<float>(const SchedulePoint&)>;

    Search(const autoschedule::ScheduleSpace& space, const TuneOptions& options, Featurize featurize)
        : space_(space),
          options_(options),
          rng_(options.seed),
          featurize_(std::move(featurize)),
          model_(autoschedule::LearnedCostModel::shipped()) {
        // Not starting from the scheduler's point means never measuring it.
        if (!options.start_from_auto_schedule) proposed_.insert(schedule_of(space.initial()));
    }

    // The next batch of points not measured before, the scheduler's own first of all (unless the
    // options say otherwise), whatever the model makes of it: the search never ends with a schedule
    // slower than auto_schedule's.
    std::vector<SchedulePoint> propose(int count) {
        std::vector<SchedulePoint> batch;
        if (!initial_given_ && options_.start_from_auto_schedule) {
            initial_given_ = true;
            batch.push_back(space_.initial());
            proposed_.insert(schedule_of(batch.back()));
        }
        for (SchedulePoint& p : propose_fresh(count - int(batch.size()))) batch.push_back(std::move(p));
        return batch;
    }

    // Points not proposed before. The model-guided search proposes several times more than it
    // measures and keeps those the model ranks first, and a few at random, so that a wrong model
    // still sees the rest of the space.
    std::vector<SchedulePoint> propose_fresh(int count) {
        if (count <= 0) return {};
        const bool guided = options_.search == TuneOptions::Search::ModelGuided && model_.trained();
        std::vector<SchedulePoint> pool = fresh_points(guided ? count * candidates_per_measurement : count);
        if (!guided || int(pool.size()) <= count) return keep(pool, count);
        std::vector<std::vector<float>> rows;
        for (const SchedulePoint& p : pool) rows.push_back(featurize_(p));
        const std::vector<float> scores = model_.scores(rows, reference());
        std::vector<size_t> order(pool.size());
        for (size_t i = 0; i < order.size(); i++) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return scores[a] > scores[b]; });
        const int explored = std::max(1, count / 4);
        std::vector<SchedulePoint> batch;
        for (int i = 0; i < count - explored; i++) batch.push_back(pool[order[size_t(i)]]);
        std::vector<size_t> rest(order.begin() + (count - explored), order.end());
        std::shuffle(rest.begin(), rest.end(), rng_);
        for (int i = 0; i < explored && i < int(rest.size()); i++) batch.push_back(pool[rest[size_t(i)]]);
        for (size_t i = 0; i < pool.size(); i++) features_[pool[i].key()] = rows[i];
        return keep(batch, count);
    }

    void record(const SchedulePoint& p, double ms) { measured_.push_back({p, ms}); }

    // After a batch: the model learns this pipeline's measurements so far.
    void retrain() {
        if (options_.search != TuneOptions::Search::ModelGuided || measured_.size() < 4) return;
        std::vector<std::vector<float>> rows;
        std::vector<double> times;
        for (const Measured& m : measured_) {
            auto f = features_.find(m.point.key());
            rows.push_back(f != features_.end() ? f->second : featurize_(m.point));
            features_[m.point.key()] = rows.back();
            times.push_back(m.ms);
        }
        autoschedule::RankerTraining training;
        training.rounds = 40;
        training.seed = options_.seed;
        model_.train(rows, times, {unsigned(rows.size())}, {reference()}, training);
    }

private:
    static constexpr int candidates_per_measurement = 8;

    // The features of the automatic scheduler's point, which the model compares the others with.
    const std::vector<float>& reference() {
        if (reference_.empty()) reference_ = featurize_(space_.initial());
        return reference_;
    }

    // The schedule a point makes, as text: points that differ in choices without effect (a tile
    // larger than its Func, say) make the same one, and are measured once.
    std::string schedule_of(const SchedulePoint& p) const {
        try {
            return tune::plan_to_json(space_.plan(p));
        } catch (const std::exception&) {
            return "point " + p.key();
        }
    }

    // Points of the space whose schedules were not proposed before.
    std::vector<SchedulePoint> fresh_points(int count) {
        std::vector<SchedulePoint> points;
        std::set<std::string> keys;
        for (int attempt = 0; int(points.size()) < count && attempt < 50 * count; attempt++) {
            SchedulePoint p = next_point();
            const std::string key = schedule_of(p);
            if (proposed_.count(key) || !keys.insert(key).second) continue;
            points.push_back(std::move(p));
        }
        return points;
    }

    std::vector<SchedulePoint> keep(std::vector<SchedulePoint> points, int count) {
        if (int(points.size()) > count) points.resize(size_t(count));
        for (const SchedulePoint& p : points) proposed_.insert(schedule_of(p));
        return points;
    }

    SchedulePoint next_point() {
        if (options_.search == TuneOptions::Search::Random || measured_.empty()) return random_walk();
        // Tournament selection among the measured points, then one to three mutations.
        const Measured* parent = nullptr;
        for (int k = 0; k < 3; k++) {
            const Measured& m =
                measured_[std::uniform_int_distribution<size_t>(0, measured_.size() - 1)(rng_)];
            if (!parent || m.ms < parent->ms) parent = &m;
        }
        SchedulePoint p = parent->point;
        const int steps = std::uniform_int_distribution<int>(1, 3)(rng_);
        for (int s = 0; s < steps; s++) p = space_.mutate(p, rng_);
        return p;
    }

    // A point some random steps away from the scheduler's.
    SchedulePoint random_walk() {
        SchedulePoint p = space_.initial();
        const int steps = std::uniform_int_distribution<int>(1, 12)(rng_);
        for (int s = 0; s < steps; s++) p = space_.mutate(p, rng_);
        return p;
    }

    const autoschedule::ScheduleSpace& space_;
    const TuneOptions& options_;
    std::mt19937_64 rng_;
    Featurize featurize_;
    autoschedule::LearnedCostModel model_;
    bool initial_given_ = false;
    std::set<std::string> proposed_;
    std::vector<Measured> measured_;
    std::map<std::string, std::vector<float>> features_;
    std::vector<float> reference_;
};

// One line that a terminal rewrites in place; elsewhere (a log), a line per batch.
void print_progress(int trials, int total, double best_ms, double elapsed, double budget) {
    const bool terminal = isatty(STDERR_FILENO);
    std::fprintf(stderr, "%stessera autotune: %d/%d trials, best %.3f ms, %.0f s", terminal ? "\r" : "",
                 trials, total, best_ms, elapsed);
    if (budget > 0) std::fprintf(stderr, " (%.0f s left)", std::max(0.0, budget - elapsed));
    std::fprintf(stderr, terminal ? "   " : "\n");
    std::fflush(stderr);
}

std::string schedule_source(const autoschedule::SchedulePlan& plan, const Target& target) {
    std::ostringstream out;
    out << "// The schedule tessera::autotune found fastest for " << target.to_string() << ".\n{\n";
    std::istringstream lines(autoschedule::plan_source(plan));
    for (std::string line; std::getline(lines, line);) out << "    " << line << "\n";
    out << "}\n";
    return out.str();
}

void write_curve(const std::string& path, const std::vector<double>& best) {
    std::ofstream out(path);
    TESSERA_USER_CHECK(out) << "autotune: cannot write the curve file '" << path << "'.";
    out << "trial,best_ms\n";
    for (size_t i = 0; i < best.size(); i++) out << i + 1 << "," << best[i] << "\n";
}

// A candidate that ran correctly, with its runs.
struct Finished {
    autoschedule::SchedulePlan plan;
    int trial = 0;
    std::vector<double> times_ms;
    double median_ms = 0;
};

// The fastest few candidates measured again, as many runs each as before, and the index of the
// fastest by all its runs together. Among candidates a few percent apart, the fastest of one
// measurement each is partly luck, and slower when measured again (the winner's curse). A candidate
// that fails when measured again (a time limit, a flaky crash) is out, as apply_tuning_records
// passes it over; where all fail, the fastest of the rest. Nullopt where nothing is left.
std::optional<size_t> remeasure_fastest(
    std::vector<Finished>& finished, TuneRunner& runner, tune::MeasureSetup& setup,
    const std::function<void(const Finished&, const tune::Measurement&)>& record) {
    constexpr size_t remeasured = 3;
    std::vector<size_t> order(finished.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return finished[a].median_ms < finished[b].median_ms; });
    if (order.size() <= 1) return order.empty() ? std::nullopt : std::optional<size_t>(order[0]);
    const size_t again = std::min(order.size(), remeasured);
    std::vector<tune::Candidate> batch;
    for (size_t k = 0; k < again; k++) batch.push_back({finished[order[k]].trial, finished[order[k]].plan});
    const std::vector<tune::Measurement> measured = runner.measure(setup, batch);
    std::optional<size_t> best;
    for (size_t k = 0; k < again; k++) {
        Finished& f = finished[order[k]];
        record(f, measured[k]);
        if (measured[k].outcome != tune::Outcome::Ok) continue;
        f.times_ms.insert(f.times_ms.end(), measured[k].times_ms.begin(), measured[k].times_ms.end());
        std::vector<double> sorted = f.times_ms;
        std::sort(sorted.begin(), sorted.end());
        f.median_ms = sorted[sorted.size() / 2];
        if (!best || f.median_ms < finished[*best].median_ms) best = order[k];
    }
    if (!best && again < order.size()) best = order[again];
    return best;
}

}  // namespace

std::string pipeline_signature(const Pipeline& pipeline) {
    TESSERA_USER_CHECK(pipeline.defined()) << "pipeline_signature of an empty Pipeline.";
    return tune::signature_of(autoschedule::output_functions(pipeline));
}

TuneResult tune::autotune_with_plan(Pipeline& pipeline, const TuneOptions& options,
                                    std::string* best_plan_json) {
    TESSERA_USER_CHECK(pipeline.defined()) << "autotune of an empty Pipeline.";
    TESSERA_USER_CHECK(options.trials > 0 && options.batch_size > 0 && options.repetitions > 0)
        << "autotune: TuneOptions needs positive trials, batch_size and repetitions.";
    const auto start = Clock::now();
    const auto outputs = autoschedule::output_functions(pipeline);
    const tune::TuningSession session(pipeline, options);
    const autoschedule::ScheduleSpace space(outputs, session.target, options.machine_params);
    const std::string signature = tune::signature_of(outputs);
    tune::MeasureSetup setup = session.setup;
    const int parallel = options.parallel_compiles > 0
                             ? options.parallel_compiles
                             : int(std::max(1u, std::thread::hardware_concurrency()));
    std::shared_ptr<TuneRunner> runner = options.runner ? options.runner : tune::local_runner(parallel);
    // A point whose loop nest cannot be lowered (it will fail to compile too) has no features: NaN
    // is what XGBoost reads as missing.
    Search search(space, options, [&](const SchedulePoint& p) {
        try {
            return autoschedule::plan_features(space.plan(p), outputs, session.feature_values,
                                               session.machine);
        } catch (const std::exception&) {
            return std::vector<float>(autoschedule::loop_nest_feature_names().size(), std::nanf(""));
        }
    });

    TuneResult result;
    std::vector<Finished> finished;
    auto record = [&](int trial, const autoschedule::SchedulePlan& plan, const tune::Measurement& m,
                      bool remeasured) {
        tune::TuningRecord r;
        r.signature = signature;
        r.target = session.target.to_string();
        r.trial = trial;
        r.status = tune::outcome_name(m.outcome);
        r.median_ms = m.median_ms;
        r.times_ms = m.times_ms;
        r.schedule_json = tune::plan_to_json(plan);
        r.remeasured = remeasured;
        if (!options.records_file.empty()) tune::append_record(options.records_file, r);
    };
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    while (result.trials < options.trials &&
           (options.time_budget_seconds <= 0 || elapsed() < options.time_budget_seconds)) {
        const std::vector<SchedulePoint> points =
            search.propose(std::min(options.batch_size, options.trials - result.trials));
        if (points.empty()) break;  // the space is exhausted
        std::vector<tune::Candidate> batch;
        for (size_t i = 0; i < points.size(); i++)
            batch.push_back({result.trials + int(i), space.plan(points[i])});
        const std::vector<tune::Measurement> measured = runner->measure(setup, batch);
        for (size_t i = 0; i < points.size(); i++) {
            const tune::Measurement& m = measured[i];
            record(batch[i].trial, batch[i].plan, m, false);
            result.trials++;
            if (m.outcome == tune::Outcome::Ok) {
                search.record(points[i], m.median_ms);
                finished.push_back({batch[i].plan, batch[i].trial, m.times_ms, m.median_ms});
                if (result.best_trial < 0 || m.median_ms < result.best_ms) {
                    result.best_ms = m.median_ms;
                    result.best_trial = batch[i].trial;
                }
            } else {
                result.failed++;
            }
            result.best_ms_after_trial.push_back(result.best_trial < 0 ? 0 : result.best_ms);
        }
        search.retrain();
        if (options.progress)
            print_progress(result.trials, options.trials, result.best_ms, elapsed(),
                           options.time_budget_seconds);
    }
    if (options.progress && isatty(STDERR_FILENO)) std::fprintf(stderr, "\n");
    if (!options.curve_file.empty()) write_curve(options.curve_file, result.best_ms_after_trial);
    TESSERA_USER_CHECK(result.best_trial >= 0) << "autotune: none of the " << result.trials
                                               << " schedules measured ran correctly (see the records file "
                                                  "for why); the pipeline is left as it was.";
    const std::optional<size_t> chosen = remeasure_fastest(
        finished, *runner, setup,
        [&](const Finished& f, const tune::Measurement& m) { record(f.trial, f.plan, m, true); });
    TESSERA_USER_CHECK(chosen) << "autotune: the schedules that ran correctly failed when measured again "
                                  "(see the records file for why); the pipeline is left as it was.";
    const Finished& best = finished[*chosen];
    result.best_ms = best.median_ms;
    result.best_trial = best.trial;
    result.seconds = elapsed();
    const autoschedule::SchedulePlan& best_plan = best.plan;
    autoschedule::apply_plan(best_plan);
    if (best_plan_json) *best_plan_json = tune::plan_to_json(best_plan);
    result.schedule_source = schedule_source(best_plan, session.target);
    return result;
}

TuneResult autotune(Pipeline& pipeline, const TuneOptions& options) {
    return tune::autotune_with_plan(pipeline, options, nullptr);
}

}  // namespace tessera
