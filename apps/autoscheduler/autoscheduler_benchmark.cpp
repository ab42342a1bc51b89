// The automatic schedulers side by side: the suite of unscheduled pipelines in suite_pipelines.inc
// (unsharp mask, Harris corners, bilateral grid, local Laplacian, a chain of stencils, a max filter,
// conv + ReLU, matrix multiply, IIR blur, pyramid interpolation), the same source compiled by
// Tessera with its "Tessera" scheduler and by Halide 14 with each of its three (Mullapudi2016,
// Li2018, Adams2019, loaded with Halide::load_plugin), for the same machine (the threads used, this
// CPU's last-level cache, a balance of 40), in one process. Rows: <case>/<scheduler>/<size>, in ms.
//
// Before timing, every pipeline is scheduled (its scheduling time recorded), compiled and run once,
// and its output compared with Tessera's: they must agree within 1e-4 (relative to the value where
// it exceeds 1). A scheduler that fails or disagrees loses its row and the program exits with 1.
// After the rows, a table gives each case's median time under every scheduler and the ratio of
// Halide's best to Tessera's (above 1: Tessera is faster), with their geometric mean.
//
// Options (before Google Benchmark's own):
//   --suite_cases=a,b,...   only these cases (default: all)
//   --suite_shrink=N        images N times smaller in each dimension, for quick runs (default 1)
//   --suite_threads=N       threads for every scheduler and run (default: every core)
//   --suite_halide=a,b      only these Halide schedulers (default: all three)
//   --suite_print_schedules print each scheduler's schedule source on stderr
// For medians of interleaved runs: --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <tessera/tessera.h>

#ifdef TESSERA_BENCHMARK_HALIDE
#include <Halide.h>
#include "halide_jit_target.h"
#endif

namespace tessera_suite {
using namespace tessera;
#include "suite_pipelines.inc"
}  // namespace tessera_suite

#ifdef TESSERA_BENCHMARK_HALIDE
namespace halide_suite {
using namespace Halide;
#include "suite_pipelines.inc"
}  // namespace halide_suite
#endif

namespace {

const std::vector<std::string> all_cases = {
    "unsharp",    "harris",    "bilateral_grid",  "local_laplacian", "stencil_chain",
    "max_filter", "conv_relu", "matrix_multiply", "iir_blur",        "interpolate"};
const std::vector<std::string> halide_schedulers = {"Mullapudi2016", "Li2018", "Adams2019"};

struct Options {
    std::vector<std::string> cases = all_cases;
    std::vector<std::string> halide = halide_schedulers;
    int shrink = 1;
    int threads = 0;
    bool print_schedules = false;
};
Options options;

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "autoscheduler_benchmark: %s\n", message.c_str());
    std::exit(1);
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

int positive_int(const std::string& text, const char* what) {
    char* end = nullptr;
    const long n = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || n <= 0 || n > 1024)
        fail(std::string(what) + ": not '" + text + "'");
    return int(n);
}

void parse_options(int& argc, char** argv) {
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        auto value = [&](const char* flag) { return arg.substr(std::strlen(flag)); };
        if (arg.rfind("--suite_cases=", 0) == 0) {
            options.cases = split_list(value("--suite_cases="));
            for (const std::string& c : options.cases)
                if (std::find(all_cases.begin(), all_cases.end(), c) == all_cases.end())
                    fail("no case '" + c + "'");
        } else if (arg.rfind("--suite_halide=", 0) == 0) {
            options.halide = split_list(value("--suite_halide="));
        } else if (arg.rfind("--suite_shrink=", 0) == 0) {
            options.shrink = positive_int(value("--suite_shrink="), "--suite_shrink");
        } else if (arg == "--suite_print_schedules") {
            options.print_schedules = true;
        } else if (arg.rfind("--suite_threads=", 0) == 0) {
            options.threads = positive_int(value("--suite_threads="), "--suite_threads");
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = nullptr;
    if (options.threads == 0) options.threads = std::max(1, int(std::thread::hardware_concurrency()));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The inputs of a case: random values in [0, 1), the same for every scheduler.
using Inputs = std::shared_ptr<const std::vector<std::vector<float>>>;

Inputs input_values(const std::vector<std::vector<int>>& sizes) {
    std::mt19937 rng(2027);
    std::uniform_real_distribution<float> value(0.0f, 1.0f);
    std::vector<std::vector<float>> inputs;
    for (const auto& shape : sizes) {
        size_t n = 1;
        for (int s : shape) n *= size_t(s);
        std::vector<float> data(n);
        for (float& v : data) v = value(rng);
        inputs.push_back(std::move(data));
    }
    return std::make_shared<const std::vector<std::vector<float>>>(std::move(inputs));
}

std::string size_name(const std::vector<int>& sizes) {
    std::string s;
    for (int v : sizes) s += (s.empty() ? "" : "x") + std::to_string(v);
    return s;
}

void print_schedule(const std::string& name, const std::string& scheduler, const std::string& source) {
    if (options.print_schedules)
        std::fprintf(stderr, "--- %s, %s:\n%s\n", name.c_str(), scheduler.c_str(), source.c_str());
}

// One case under one scheduler, ready to run: scheduled, compiled, run once.
struct Prepared {
    std::string case_name, scheduler, size;
    double schedule_seconds = 0;
    double work = 0;
    std::function<void()> run;
    std::vector<float> output;
};

Prepared prepare_tessera(const std::string& name, const Inputs& data) {
    using namespace tessera;
    auto c = std::make_shared<tessera_suite::SuiteCase>(tessera_suite::suite(name, options.shrink).at(0));
    auto pipeline = std::make_shared<Pipeline>(c->output);
    const MachineParams params(options.threads, MachineParams::host().last_level_cache_size, 40);
    const auto start = std::chrono::steady_clock::now();
    const AutoSchedulerResults results = pipeline->auto_schedule("Tessera", get_host_target(), params);
    print_schedule(name, "Tessera", results.schedule_source);
    Prepared p{name, "tessera", size_name(c->output_sizes), seconds_since(start), c->work, {}, {}};
    for (size_t i = 0; i < c->inputs.size(); i++)
        c->inputs[i].set(Buffer<float>(const_cast<float*>((*data)[i].data()), c->input_sizes[i]));
    auto out = std::make_shared<Buffer<float>>(c->output_sizes);
    const Target target = get_host_target();
    pipeline->compile_jit(target);
    pipeline->realize(*out, target);
    p.output.assign(out->data(), out->data() + out->number_of_elements());
    p.run = [c, pipeline, out, target, data] { pipeline->realize(*out, target); };
    return p;
}

#ifdef TESSERA_BENCHMARK_HALIDE
void load_halide_plugins() {
    static const bool loaded = [] {
        for (const char* plugin : {"mullapudi2016", "li2018", "adams2019"})
            Halide::load_plugin(std::string("/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_") + plugin +
                                ".so");
        return true;
    }();
    (void)loaded;
}

Prepared prepare_halide(const std::string& name, const std::string& scheduler, const Inputs& data) {
    load_halide_plugins();
    auto c = std::make_shared<halide_suite::SuiteCase>(halide_suite::suite(name, options.shrink).at(0));
    auto pipeline = std::make_shared<Halide::Pipeline>(c->output);
    const Halide::MachineParams params(options.threads, tessera::MachineParams::host().last_level_cache_size,
                                       40);
    const auto start = std::chrono::steady_clock::now();
    const Halide::AutoSchedulerResults results =
        pipeline->auto_schedule(scheduler, tessera_benchmarks::halide_target(), params);
    print_schedule(name, scheduler, results.schedule_source);
    std::string lower = scheduler;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return char(std::tolower(ch)); });
    Prepared p{name, "halide_" + lower, size_name(c->output_sizes), seconds_since(start), c->work, {}, {}};
    for (size_t i = 0; i < c->inputs.size(); i++)
        c->inputs[i].set(Halide::Buffer<float>(const_cast<float*>((*data)[i].data()), c->input_sizes[i]));
    auto out = std::make_shared<Halide::Buffer<float>>(c->output_sizes);
    // Halide's own detection of this CPU may be wrong (see halide_jit_target.h): always its target.
    const Halide::Target target = tessera_benchmarks::halide_target();
    pipeline->compile_jit(target);
    pipeline->realize(*out, target);
    p.output.assign(out->data(), out->data() + out->number_of_elements());
    p.run = [c, pipeline, out, target, data] { pipeline->realize(*out, target); };
    return p;
}
#endif

// The largest difference, relative to the value where it exceeds 1; infinite for a size mismatch.
double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < a.size(); i++) {
        const double d = std::abs(double(a[i]) - double(b[i])) / std::max(1.0, std::abs(double(b[i])));
        worst = std::max(worst, std::isnan(d) ? INFINITY : d);
    }
    return worst;
}

std::vector<Prepared> prepared;
std::map<std::string, std::string> failures;           // row -> why
std::map<std::string, std::vector<double>> run_times;  // row -> seconds of each timed run

std::string row_name(const Prepared& p) { return p.case_name + "/" + p.scheduler + "/" + p.size; }

void prepare_all() {
    for (const std::string& name : options.cases) {
        std::fprintf(stderr, "autoscheduler_benchmark: scheduling %s\n", name.c_str());
        const auto c = tessera_suite::suite(name, options.shrink).at(0);
        const auto data = input_values(c.input_sizes);
        std::vector<float> reference;
        try {
            prepared.push_back(prepare_tessera(name, data));
            reference = prepared.back().output;
        } catch (const std::exception& e) {
            failures[name + "/tessera"] = e.what();
        }
#ifdef TESSERA_BENCHMARK_HALIDE
        for (const std::string& scheduler : options.halide) {
            try {
                Prepared p = prepare_halide(name, scheduler, data);
                const double d = reference.empty() ? 0 : max_difference(p.output, reference);
                if (d > 1e-4) {
                    failures[row_name(p)] = "differs from Tessera's output by " + std::to_string(d);
                    continue;
                }
                prepared.push_back(std::move(p));
            } catch (const std::exception& e) {
                failures[name + "/halide_" + scheduler] = e.what();
            }
        }
#endif
    }
}

void register_rows() {
    for (Prepared& p : prepared) {
        const std::string row = row_name(p);
        benchmark::RegisterBenchmark(row.c_str(),
                                     [&p, row](benchmark::State& state) {
                                         for (auto _ : state) {
                                             const auto start = std::chrono::steady_clock::now();
                                             p.run();
                                             run_times[row].push_back(seconds_since(start));
                                         }
                                         state.counters["schedule_s"] = p.schedule_seconds;
                                         if (p.work > 0)
                                             state.counters["GFLOPS"] =
                                                 benchmark::Counter(p.work * double(state.iterations()) / 1e9,
                                                                    benchmark::Counter::kIsRate);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
}

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Each case's median time under every scheduler, and Halide's best against Tessera's.
void print_summary() {
    std::printf("\n%-16s %10s", "case (ms)", "tessera");
    for (const std::string& s : options.halide) std::printf(" %14s", s.c_str());
    std::printf(" %10s %12s %12s\n", "best/ours", "ours sched s", "best sched s");
    double log_sum = 0;
    int ratios = 0;
    for (const std::string& name : options.cases) {
        double ours = NAN, best = INFINITY, ours_schedule = NAN, best_schedule = NAN;
        std::map<std::string, double> times;
        for (const Prepared& p : prepared) {
            if (p.case_name != name) continue;
            const double t = median(run_times[row_name(p)]) * 1e3;
            times[p.scheduler] = t;
            if (p.scheduler == "tessera") {
                ours = t;
                ours_schedule = p.schedule_seconds;
            } else if (t < best) {
                best = t;
                best_schedule = p.schedule_seconds;
            }
        }
        std::printf("%-16s %10.2f", name.c_str(), ours);
        for (std::string s : options.halide) {
            std::transform(s.begin(), s.end(), s.begin(),
                           [](unsigned char ch) { return char(std::tolower(ch)); });
            auto it = times.find("halide_" + s);
            if (it == times.end())
                std::printf(" %14s", "failed");
            else
                std::printf(" %14.2f", it->second);
        }
        const double ratio = best / ours;
        std::printf(" %10.2f %12.2f %12.2f\n", ratio, ours_schedule, best_schedule);
        if (std::isfinite(ratio) && ratio > 0) {
            log_sum += std::log(ratio);
            ratios++;
        }
    }
    if (ratios)
        std::printf("geometric mean of best/ours over %d cases: %.2f\n", ratios, std::exp(log_sum / ratios));
}

}  // namespace

int main(int argc, char** argv) {
    parse_options(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    tessera_set_num_threads(options.threads);
    setenv("HL_NUM_THREADS", std::to_string(options.threads).c_str(), 1);
#ifndef TESSERA_BENCHMARK_HALIDE
    std::fprintf(
        stderr,
        "autoscheduler_benchmark: built without Halide 14 (libhalide14-0-dev): Tessera's rows only\n");
    options.halide.clear();
#endif
    prepare_all();
    register_rows();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    print_summary();
    for (const auto& [row, message] : failures)
        std::fprintf(stderr, "autoscheduler_benchmark: %s FAILED: %s\n", row.c_str(), message.c_str());
    return failures.empty() ? 0 : 1;
}
