// The experiment of TVM's Figure 4: the best time found against the number of trials, for a search
// guided by the learned cost model, the same evolutionary search without a model, and random
// search, on SGEMM 1024 and on a convolution layer of PP-OCRv4's text detector. Writes each curve
// as CSV (trial,best_ms) for scripts/plot_tuning_curve.sh and prints, per case and search, the
// curve's final best time, the trials it took to come within 5% of the model-guided curve's final
// best ("-" where it never did), and the chosen schedule's time once autotune has measured its
// fastest three again (the curves hold each trial's first measurement).
//
//   tuning_curves [--trials=N] [--out=DIR] [--cases=sgemm,conv] [--seed=S]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

// C = A B, 1024 x 1024 x 1024: the algorithm and nothing else.
Pipeline sgemm() {
    const int n = 1024;
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Var x("x"), y("y");
    RDom k(0, n, "k");
    Func c("sgemm");
    c(x, y) = 0.0f;
    c(x, y) += a(k, y) * b(x, k);
    a.set_estimates({{0, n}, {0, n}});
    b.set_estimates({{0, n}, {0, n}});
    c.set_estimates({{0, n}, {0, n}});
    return Pipeline(c);
}

// A 3x3 convolution of the detector's backbone at 640 x 640 input: 32 channels in and out at
// 160 x 160, stride 1, with its bias and ReLU; x, y, channel innermost first, as the graph layer
// lays tensors out.
Pipeline detector_conv() {
    const int width = 160, height = 160, channels = 32;
    ImageParam input(Float(32), 3, "input"), weights(Float(32), 4, "weights"), bias(Float(32), 1, "bias");
    Var x("x"), y("y"), co("co");
    RDom r(0, 3, 0, 3, 0, channels, "r");
    Func padded =
        BoundaryConditions::constant_exterior(input, 0.0f, {{0, width}, {0, height}, {0, channels}});
    Func conv("conv");
    conv(x, y, co) = bias(co);
    conv(x, y, co) += weights(r.x, r.y, r.z, co) * padded(x + r.x - 1, y + r.y - 1, r.z);
    Func relu("relu");
    relu(x, y, co) = max(conv(x, y, co), 0.0f);
    input.set_estimates({{0, width}, {0, height}, {0, channels}});
    weights.set_estimates({{0, 3}, {0, 3}, {0, channels}, {0, channels}});
    bias.set_estimates({{0, channels}});
    relu.set_estimates({{0, width}, {0, height}, {0, channels}});
    return Pipeline(relu);
}

// The first trial whose best time is within `fraction` of `target`, or 0 where none is.
int trials_to_reach(const std::vector<double>& curve, double target, double fraction) {
    for (size_t i = 0; i < curve.size(); i++)
        if (curve[i] > 0 && curve[i] <= target * (1 + fraction)) return int(i) + 1;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    int trials = 120;
    uint64_t seed = 1;
    std::string out = "tuning_curves", cases = "sgemm,conv";
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a.rfind("--trials=", 0) == 0)
            trials = std::atoi(a.c_str() + 9);
        else if (a.rfind("--out=", 0) == 0)
            out = a.substr(6);
        else if (a.rfind("--cases=", 0) == 0)
            cases = a.substr(8);
        else if (a.rfind("--seed=", 0) == 0)
            seed = uint64_t(std::atoll(a.c_str() + 7));
        else {
            std::cerr << "tuning_curves: unknown argument " << a << "\n";
            return 2;
        }
    }
    std::filesystem::create_directories(out);
    const std::map<std::string, std::function<Pipeline()>> builders = {{"sgemm", sgemm},
                                                                       {"conv", detector_conv}};
    const std::vector<std::pair<std::string, TuneOptions::Search>> searches = {
        {"model", TuneOptions::Search::ModelGuided},
        {"genetic", TuneOptions::Search::Genetic},
        {"random", TuneOptions::Search::Random}};
    std::printf("%-8s %-8s %10s %24s %14s\n", "case", "search", "best ms", "trials to model's +5%",
                "re-measured");
    for (const auto& [name, build] : builders) {
        if (cases.find(name) == std::string::npos) continue;
        std::map<std::string, TuneResult> results;
        for (const auto& [label, search] : searches) {
            Pipeline p = build();
            TuneOptions o;
            o.trials = trials;
            o.search = search;
            o.seed = seed;
            o.repetitions = 3;
            o.curve_file = out + "/" + name + "_" + label + ".csv";
            o.records_file = out + "/" + name + "_" + label + ".jsonl";
            std::filesystem::remove(o.records_file);
            results[label] = autotune(p, o);
        }
        const double target = results["model"].best_ms_after_trial.back();
        for (const auto& [label, search] : searches) {
            const TuneResult& r = results[label];
            const int reached = trials_to_reach(r.best_ms_after_trial, target, 0.05);
            std::printf("%-8s %-8s %10.3f %24s %14.3f\n", name.c_str(), label.c_str(),
                        r.best_ms_after_trial.back(), reached ? std::to_string(reached).c_str() : "-",
                        r.best_ms);
        }
        std::fflush(stdout);
    }
    return 0;
}
