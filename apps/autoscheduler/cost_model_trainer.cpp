// Trains the learned cost model the library ships (data/cost_model.ubj): random pipelines of the
// random-schedule test's generator, each with random points of the automatic scheduler's space of
// schedules, measured in worker processes; gradient-boosted trees with a pairwise rank loss on the
// features of their lowered loop nests. Reports the rank correlation (Kendall's tau) of predicted
// and measured times on pipelines held out of the training. scripts/train_cost_model.sh runs it.
//
//   cost_model_trainer --pipelines=N --schedules=M [--seed=S] --dataset=FILE.csv
//   cost_model_trainer --train=FILE.csv[,FILE2.csv] --model=OUT.ubj [--rounds=R] [--depth=D]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tessera/tessera.h>

#include "../../tests/correctness/random_schedule/pipeline_builder.h"
#include "../../tests/correctness/random_schedule/pipeline_reference.h"
#include "../../tests/correctness/random_schedule/random_pipeline.h"
#include "schedule/auto/learned_cost_model.h"
#include "schedule/auto/rank_correlation.h"
#include "schedule/auto/schedule_space.h"
#include "tune/tune_runner.h"

using namespace tessera;
using namespace random_schedule;

namespace {

struct Options {
    int pipelines = 40, schedules = 24;
    uint32_t seed = 1;
    std::string dataset, train, model;
    int rounds = 60, depth = 2;
};

std::string value_of(const std::string& arg, const std::string& key) { return arg.substr(key.size()); }

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a.rfind("--pipelines=", 0) == 0)
            o.pipelines = std::atoi(value_of(a, "--pipelines=").c_str());
        else if (a.rfind("--schedules=", 0) == 0)
            o.schedules = std::atoi(value_of(a, "--schedules=").c_str());
        else if (a.rfind("--seed=", 0) == 0)
            o.seed = uint32_t(std::atoi(value_of(a, "--seed=").c_str()));
        else if (a.rfind("--dataset=", 0) == 0)
            o.dataset = value_of(a, "--dataset=");
        else if (a.rfind("--train=", 0) == 0)
            o.train = value_of(a, "--train=");
        else if (a.rfind("--model=", 0) == 0)
            o.model = value_of(a, "--model=");
        else if (a.rfind("--rounds=", 0) == 0)
            o.rounds = std::atoi(value_of(a, "--rounds=").c_str());
        else if (a.rfind("--depth=", 0) == 0)
            o.depth = std::atoi(value_of(a, "--depth=").c_str());
        else {
            std::cerr << "cost_model_trainer: unknown argument " << a << "\n";
            std::exit(2);
        }
    }
    return o;
}

// Pipelines large enough that schedules differ in time: images of a few hundred pixels a side.
GeneratorOptions training_generator() {
    GeneratorOptions g;
    g.min_stages = 3;
    g.max_stages = 8;
    g.min_size = 192;
    g.max_size = 640;
    g.small_size_probability = 0;
    g.max_input_size = 256;
    return g;
}

// One pipeline's candidates measured, each with its features: rows of the dataset.
void measure_pipeline(int id, uint32_t seed, int schedules, std::ostream& out) {
    std::mt19937 rng(seed);
    const PipelineDef def = random_pipeline(rng, training_generator());
    const Buffer<> input = make_input(def);
    BuiltPipeline built = build_pipeline(def, input);
    Func output = built.output();
    output.set_estimate(built.x, def.output_min[0], def.output_extent[0]);
    output.set_estimate(built.y, def.output_min[1], def.output_extent[1]);
    const std::vector<std::shared_ptr<lang::FunctionContents>> outputs{output.function()};
    const Target target = get_host_target();
    const MachineParams params = MachineParams::host();
    const autoschedule::ScheduleSpace space(outputs, target, params);

    // The scheduler's point and random walks from it.
    std::mt19937_64 walk(seed);
    std::vector<autoschedule::SchedulePoint> points{space.initial()};
    std::set<std::string> seen{points[0].key()};
    for (int attempt = 0; int(points.size()) < schedules && attempt < 20 * schedules; attempt++) {
        autoschedule::SchedulePoint p = space.initial();
        const int steps = std::uniform_int_distribution<int>(1, 12)(walk);
        for (int s = 0; s < steps; s++) p = space.mutate(p, walk);
        if (seen.insert(p.key()).second) points.push_back(p);
    }

    autoschedule::FeatureMachine machine;
    machine.cores = params.parallelism;
    machine.vector_lanes = target.natural_vector_size(Float(32));
    machine.cache_bytes_per_core = double(params.last_level_cache_size) / params.parallelism;
    std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> regions;
    regions[output.name()] = {{def.output_min[0], def.output_extent[0]},
                              {def.output_min[1], def.output_extent[1]}};
    regions[input.name()] = {{def.input_min[0], def.input_extent[0]},
                             {def.input_min[1], def.input_extent[1]}};
    const auto values = autoschedule::buffer_field_values(regions);

    tune::MeasureSetup setup;
    setup.outputs = outputs;
    setup.target = target;
    setup.output_regions = {
        {{def.output_min[0], def.output_extent[0]}, {def.output_min[1], def.output_extent[1]}}};
    setup.repetitions = 5;
    setup.compile_timeout_seconds = 60;
    setup.run_timeout_seconds = 10;
    auto runner = tune::local_runner(int(std::max(1u, std::thread::hardware_concurrency())));
    std::vector<tune::Candidate> batch;
    std::vector<std::vector<float>> features;
    for (size_t i = 0; i < points.size(); i++) {
        // A point whose plan the schedule's own checks refuse (as the tuner loses such a trial) is
        // left out; its index keeps its features' place.
        try {
            tune::Candidate candidate{int(i), space.plan(points[i])};
            features.push_back(autoschedule::plan_features(candidate.plan, outputs, values, machine));
            batch.push_back(std::move(candidate));
        } catch (const CompileError& e) {
            features.emplace_back();
            std::cerr << "cost_model_trainer: pipeline " << id << ", schedule " << i
                      << " left out: " << e.what() << "\n";
        }
    }
    int ok = 0;
    for (size_t start = 0; start < batch.size(); start += 8) {
        const std::vector<tune::Candidate> part(
            batch.begin() + std::ptrdiff_t(start),
            batch.begin() + std::ptrdiff_t(std::min(batch.size(), start + 8)));
        const std::vector<tune::Measurement> measured = runner->measure(setup, part);
        for (size_t k = 0; k < part.size(); k++) {
            if (measured[k].outcome != tune::Outcome::Ok) continue;
            ok++;
            out << id << "," << part[k].trial << "," << measured[k].median_ms;
            for (float f : features[size_t(part[k].trial)]) out << "," << f;
            out << "\n";
        }
    }
    out.flush();
    std::cerr << "cost_model_trainer: pipeline " << id << ": " << def.stages.size() << " stages, " << ok
              << " of " << points.size() << " schedules measured\n";
}

struct Dataset {
    std::vector<int> pipeline, trial;
    std::vector<double> times;
    std::vector<std::vector<float>> rows;
};

Dataset read_dataset(const std::string& files) {
    Dataset d;
    std::stringstream list(files);
    for (std::string file; std::getline(list, file, ',');) {
        std::ifstream in(file);
        if (!in) {
            std::cerr << "cost_model_trainer: cannot read " << file << "\n";
            std::exit(1);
        }
        const int offset =
            d.pipeline.empty() ? 0 : *std::max_element(d.pipeline.begin(), d.pipeline.end()) + 1;
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == 'p') continue;
            std::stringstream fields(line);
            std::string field;
            std::vector<double> v;
            while (std::getline(fields, field, ',')) v.push_back(std::atof(field.c_str()));
            if (v.size() != 3 + autoschedule::loop_nest_feature_names().size()) continue;
            d.pipeline.push_back(offset + int(v[0]));
            d.trial.push_back(int(v[1]));
            d.times.push_back(v[2]);
            d.rows.emplace_back(v.begin() + 3, v.end());
        }
    }
    return d;
}

// The rows of the pipelines chosen, grouped by pipeline (rows of one pipeline are consecutive),
// each group with its reference: the automatic scheduler's schedule (trial 0), or its first row.
struct Selection {
    std::vector<std::vector<float>> rows, references;
    std::vector<double> times;
    std::vector<unsigned> groups;
};

Selection select(const Dataset& d, bool held_out) {
    std::map<int, std::vector<size_t>> by_pipeline;
    for (size_t i = 0; i < d.rows.size(); i++)
        if ((d.pipeline[i] % 5 == 0) == held_out) by_pipeline[d.pipeline[i]].push_back(i);
    Selection s;
    for (const auto& [id, members] : by_pipeline) {
        if (members.size() < 2) continue;
        size_t reference = members[0];
        for (size_t i : members)
            if (d.trial[i] == 0) reference = i;
        for (size_t i : members) {
            s.rows.push_back(d.rows[i]);
            s.times.push_back(d.times[i]);
        }
        s.groups.push_back(unsigned(members.size()));
        s.references.push_back(d.rows[reference]);
    }
    return s;
}

int train(const Options& o) {
    const Dataset d = read_dataset(o.train);
    autoschedule::RankerTraining training;
    training.rounds = o.rounds;
    training.max_depth = o.depth;
    Selection train_set = select(d, false);
    const Selection test_set = select(d, true);
    std::cerr << "cost_model_trainer: " << d.rows.size() << " measured schedules of "
              << train_set.groups.size() + test_set.groups.size() << " pipelines; " << test_set.groups.size()
              << " pipelines held out\n";
    autoschedule::LearnedCostModel model;
    model.train(train_set.rows, train_set.times, train_set.groups, train_set.references, training);
    // Per held-out pipeline: how the predicted order agrees with the measured one.
    std::vector<double> taus;
    size_t at = 0;
    for (size_t g = 0; g < test_set.groups.size(); g++) {
        const unsigned n = test_set.groups[g];
        const std::vector<std::vector<float>> rows(test_set.rows.begin() + std::ptrdiff_t(at),
                                                   test_set.rows.begin() + std::ptrdiff_t(at + n));
        const std::vector<float> scores = model.scores(rows, test_set.references[g]);
        std::vector<double> predicted, measured;
        for (unsigned i = 0; i < n; i++) {
            predicted.push_back(-double(scores[i]));  // a higher score predicts a shorter time
            measured.push_back(test_set.times[at + i]);
        }
        taus.push_back(autoschedule::kendall_tau(predicted, measured));
        at += n;
    }
    double mean = 0;
    for (double t : taus) mean += t / double(std::max<size_t>(taus.size(), 1));
    std::vector<double> sorted = taus;
    std::sort(sorted.begin(), sorted.end());
    std::printf("held-out pipelines: %zu, Kendall tau mean %.3f, median %.3f\n", taus.size(), mean,
                sorted.empty() ? 0.0 : sorted[sorted.size() / 2]);
    if (o.model.empty()) return 0;
    // The shipped model learns from every pipeline.
    for (const Selection* part : {&test_set}) {
        train_set.rows.insert(train_set.rows.end(), part->rows.begin(), part->rows.end());
        train_set.times.insert(train_set.times.end(), part->times.begin(), part->times.end());
        train_set.groups.insert(train_set.groups.end(), part->groups.begin(), part->groups.end());
        train_set.references.insert(train_set.references.end(), part->references.begin(),
                                    part->references.end());
    }
    model.train(train_set.rows, train_set.times, train_set.groups, train_set.references, training);
    const std::vector<char> bytes = model.to_bytes();
    std::ofstream(o.model, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    std::printf("wrote %s: %zu bytes\n", o.model.c_str(), bytes.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        if (!o.train.empty()) return train(o);
        if (o.dataset.empty()) {
            std::cerr << "cost_model_trainer: give --dataset=FILE to measure, or --train=FILE to train\n";
            return 2;
        }
        std::ofstream out(o.dataset);
        out << "pipeline,trial,median_ms";
        for (const std::string& name : autoschedule::loop_nest_feature_names()) out << "," << name;
        out << "\n";
        for (int p = 0; p < o.pipelines; p++)
            measure_pipeline(p, o.seed * 100003u + uint32_t(p), o.schedules, out);
    } catch (const std::exception& e) {
        std::cerr << "cost_model_trainer: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
