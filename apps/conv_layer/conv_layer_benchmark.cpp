// Two convolution layers of ResNet-50, f32, batch 1, stride 1, in Tessera beside oneDNN and plain
// C++:
//   conv3x3   3x3 kernel, 64 -> 64 channels, 56 x 56, padding 1
//   conv1x1   1x1 kernel, 256 -> 64 channels, 56 x 56, no padding
// Rows, named <workload>/<implementation>/threads:<T>:
//   tessera_nchw    conv_nchw_pipeline under schedule_conv_nchw (conv_pipelines.h)
//   tessera_nchwc   conv_nchwc_pipeline, channels in blocks of 16, under schedule_conv_nchwc; its
//                   input and weights are blocked once, before timing, as oneDNN's are reordered
//   tessera_nchw_auto, tessera_nchwc_auto  the same pipelines, estimated at the layer's shape, under
//                   Pipeline::auto_schedule (--machine_scheduled): no schedule written by hand
//   tessera_nchw_tuned, tessera_nchwc_tuned  the fastest schedule of a tuning records file
//                   (--records), tuned first by tessera::autotune for --tune_trials trials where the
//                   file has no record of the layer's pipeline
//   onednn          oneDNN's convolution_direct in the layouts it prefers (format_tag::any), the
//                   tensors reordered once, before timing; only the primitive is timed (when
//                   oneDNN was found at build time)
//   naive_cpp       the loops of conv_reference.h, one thread, only in the one-thread run
// Each row reports GFLOPS (2 Cin Cout K^2 W H operations a run) and peak_pct, its rate as a
// percentage of the FMA peak of this CPU on the same number of threads, measured by this process
// before any row runs (apps/common/peak_flops.h); the peak is in the JSON context.
//
// Before any timing every implementation runs once and is checked against naive_cpp: both
// Tessera layouts must give the same bits (the same chain of fused multiply-adds), oneDNN, which
// sums in its own order, must be within 1e-4 of the scale of the result (the square root of the
// number of terms, for inputs in [-1, 1]) plus 1e-4 of the value. A row that fails its check, or
// whose pipeline throws, reports the error instead of timings, and the program exits with status 1
// after the rest have run.
//
// One process runs one thread count (--threads), and scripts/run_benchmarks.sh runs the program
// once per count. oneDNN runs on OpenMP, which reads OMP_NUM_THREADS when the process starts; so
// the program starts itself again with OMP_NUM_THREADS=T unless it already was, and says so.
//
// Options (before Google Benchmark's own):
//   --threads=T   threads for Tessera and oneDNN (default 1)
//   --small       small layers instead (37 x 9, 32 -> 16 and 48 -> 32 channels): a quick check that
//                 every row runs and agrees, for the smoke test
//   --nchw_tile=XxC     tessera_nchw's register tile, X columns by C output channels
//   --nchwc_tile=XxB    tessera_nchwc's register tile, X columns by B blocks of channels
//                 (both default to conv_pipelines.h's choice for this CPU)
//   --machine_scheduled  add the *_auto rows
//   --records=FILE       add the *_tuned rows, from this tuning records file
//   --tune_trials=N      trials to tune a layer that FILE has no record of (default 0: such a row
//                        fails)

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tessera/tessera.h>

#include "benchmark_rows.h"
#include "conv_pipelines.h"
#include "conv_reference.h"
#include "machine_schedule.h"
#include "peak_flops.h"
#include "process_environment.h"

#ifdef TESSERA_BENCHMARK_DNNL
#include "onednn_conv.h"
#endif

namespace {

using tessera_apps::ConvShape;

constexpr const char* kProgram = "conv_layer_benchmark";

// --- Options ---

struct Options {
    int threads = 1;
    bool small = false;
    // Tessera's register tiles; the defaults are those of conv_pipelines.h for this CPU.
    tessera_apps::RegisterTile nchw_tile =
        tessera_apps::default_nchw_tile(tessera::get_jit_target_from_environment());
    tessera_apps::RegisterTile nchwc_tile =
        tessera_apps::default_nchwc_tile(tessera::get_jit_target_from_environment());
    bool machine_scheduled = false;
    tessera_apps::MachineScheduling machine;  // of the *_auto and *_tuned rows
};
Options options;

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", kProgram, message.c_str());
    std::exit(1);
}

// Takes this program's options out of argv, leaving Google Benchmark's.
void parse_options(int& argc, char** argv) {
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg.rfind("--threads=", 0) == 0) {
            const char* text = argv[i] + std::strlen("--threads=");
            char* end = nullptr;
            const long n = std::strtol(text, &end, 10);
            if (end == text || *end != '\0' || n < 1 || n > 1024)
                fail(std::string("--threads must be a positive number of threads, not '") + text + "'");
            options.threads = options.machine.threads = int(n);
        } else if (arg == "--small") {
            options.small = true;
        } else if (arg.rfind("--nchw_tile=", 0) == 0) {
            const auto tile = tessera_apps::parse_register_tile(arg.substr(std::strlen("--nchw_tile=")));
            if (!tile) fail("--nchw_tile must be columns x channels, such as 16x6, not '" + arg + "'");
            options.nchw_tile = *tile;
        } else if (arg.rfind("--nchwc_tile=", 0) == 0) {
            const auto tile = tessera_apps::parse_register_tile(arg.substr(std::strlen("--nchwc_tile=")));
            if (!tile) fail("--nchwc_tile must be columns x channel blocks, such as 8x2, not '" + arg + "'");
            options.nchwc_tile = *tile;
        } else if (arg == "--machine_scheduled") {
            options.machine_scheduled = true;
        } else if (arg.rfind("--records=", 0) == 0) {
            options.machine.records = arg.substr(std::strlen("--records="));
        } else if (arg.rfind("--tune_trials=", 0) == 0) {
            const char* text = argv[i] + std::strlen("--tune_trials=");
            char* end = nullptr;
            const long n = std::strtol(text, &end, 10);
            if (end == text || *end != '\0' || n < 0 || n > 100000)
                fail(std::string("--tune_trials must be a number of trials, not '") + text + "'");
            options.machine.tune_trials = int(n);
        } else {
            if (arg == "--help")
                std::printf(
                    "%s options: --threads=T --small --nchw_tile=XxC --nchwc_tile=XxB --machine_scheduled "
                    "--records=FILE --tune_trials=N\n",
                    kProgram);
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = nullptr;
}

// --- The layers ---

struct Layer {
    const char* name;
    ConvShape shape;
    std::vector<float> input, weights;  // NCHW, OIHW
    std::vector<float> expected;        // naive_cpp's output, until every check is done
    std::vector<float> input_nchwc, weights_blocked;
};
std::vector<Layer> layers;

void make_layers() {
    const ConvShape conv3x3 =
        options.small ? ConvShape{37, 9, 32, 16, 3, 1} : ConvShape{56, 56, 64, 64, 3, 1};
    const ConvShape conv1x1 =
        options.small ? ConvShape{37, 9, 48, 32, 1, 0} : ConvShape{56, 56, 256, 64, 1, 0};
    for (auto [name, s] : {std::pair{"conv3x3", conv3x3}, std::pair{"conv1x1", conv1x1}}) {
        Layer layer;
        layer.name = name;
        layer.shape = s;
        layer.input = tessera_apps::random_tensor(int64_t(s.in_channels) * s.height * s.width, 1);
        layer.weights =
            tessera_apps::random_tensor(int64_t(s.out_channels) * s.in_channels * s.kernel * s.kernel, 2);
        layer.input_nchwc =
            tessera_apps::nchw_to_nchwc(layer.input, s.in_channels, s.width, s.height, s.block);
        layer.weights_blocked = tessera_apps::oihw_to_blocked(layer.weights, s, s.block);
        layers.push_back(std::move(layer));
    }
}

std::string row_name(const Layer& layer, const char* implementation) {
    return std::string(layer.name) + "/" + implementation + "/threads:" + std::to_string(options.threads);
}

// --- Tessera: per layer, each layout's pipeline, its buffers bound, compiled once ---

struct TesseraConv {
    explicit TesseraConv(tessera_apps::ConvPipeline pipeline) : p(std::move(pipeline)) {}

    tessera_apps::ConvPipeline p;
    tessera::Buffer<float> output;
    std::vector<float> output_data;

    // Runs the pipeline once more; the output is in output_data, in the pipeline's layout.
    void run() { p.output.realize(output); }
};

// The pipeline of a layer in a layout, its buffers bound, unscheduled.
std::unique_ptr<TesseraConv> unscheduled_conv(Layer& layer, bool blocked) {
    const ConvShape& s = layer.shape;
    const int blocks_in = s.in_channels / s.block, blocks_out = s.out_channels / s.block;
    auto conv = std::make_unique<TesseraConv>(blocked ? tessera_apps::conv_nchwc_pipeline(s)
                                                      : tessera_apps::conv_nchw_pipeline(s));
    conv->output_data.resize(size_t(s.out_channels) * s.height * s.width);
    if (blocked) {
        conv->p.input.set(tessera::Buffer<float>(layer.input_nchwc.data(),
                                                 std::vector<int>{s.block, s.width, s.height, blocks_in}));
        conv->p.weights.set(tessera::Buffer<float>(
            layer.weights_blocked.data(),
            std::vector<int>{s.block, s.block, s.kernel, s.kernel, blocks_in, blocks_out}));
        conv->output = tessera::Buffer<float>(conv->output_data.data(),
                                              std::vector<int>{s.block, s.width, s.height, blocks_out});
    } else {
        conv->p.input.set(tessera::Buffer<float>(layer.input.data(), s.width, s.height, s.in_channels));
        conv->p.weights.set(
            tessera::Buffer<float>(layer.weights.data(), s.kernel, s.kernel, s.in_channels, s.out_channels));
        conv->output = tessera::Buffer<float>(conv->output_data.data(), s.width, s.height, s.out_channels);
    }
    return conv;
}

// The Tessera rows: a layout (nchw, nchwc) and who schedules it (the hand schedules of
// conv_pipelines.h; _auto and _tuned: the machine, machine_schedule.h).
std::vector<std::string> tessera_rows() {
    std::vector<std::string> rows{"tessera_nchw", "tessera_nchwc"};
    for (const char* suffix : {"_auto", "_tuned"}) {
        const bool wanted =
            suffix == std::string("_auto") ? options.machine_scheduled : !options.machine.records.empty();
        if (wanted)
            for (const char* layout : {"tessera_nchw", "tessera_nchwc"})
                rows.push_back(layout + std::string(suffix));
    }
    return rows;
}

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

std::unique_ptr<TesseraConv> tessera_conv(Layer& layer, const std::string& row) {
    const bool blocked = row.find("nchwc") != std::string::npos;
    auto conv = unscheduled_conv(layer, blocked);
    if (ends_with(row, "_auto") || ends_with(row, "_tuned")) {
        tessera_apps::set_conv_estimates(conv->p);
        tessera::Pipeline pipeline(conv->p.output);
        tessera_apps::machine_schedule(pipeline,
                                       ends_with(row, "_tuned") ? tessera_apps::MachineScheduler::Tuned
                                                                : tessera_apps::MachineScheduler::Automatic,
                                       options.machine);
    } else if (blocked) {
        tessera_apps::schedule_conv_nchwc(conv->p, options.nchwc_tile);
    } else {
        tessera_apps::schedule_conv_nchw(conv->p, options.nchw_tile.columns, options.nchw_tile.rows);
    }
    return conv;
}

// Per row, indexed like layers.
std::map<std::string, std::vector<std::unique_ptr<TesseraConv>>> tessera_convs;
#ifdef TESSERA_BENCHMARK_DNNL
std::vector<std::unique_ptr<tessera_apps::OneDnnConv>> onednn_convs;
#endif

// --- Checks, before any timing ---

// The rows whose check failed or whose pipeline threw, with the error.
std::map<std::string, std::string> failures;

void record_failure(const std::string& row, const std::string& message) {
    std::fprintf(stderr, "%s: %s fails: %s\n", kProgram, row.c_str(), message.c_str());
    failures[row] = message;
}

// The first element farther from the expected value than the tolerance allows, described; "" if
// none. A zero tolerance asks for the same bits.
std::string first_difference(const Layer& layer, const std::vector<float>& got, double tolerance) {
    const ConvShape& s = layer.shape;
    const double scale = std::sqrt(double(s.in_channels) * s.kernel * s.kernel);
    for (size_t i = 0; i < got.size(); i++) {
        const float want = layer.expected[i];
        const bool same = tolerance == 0 ? std::memcmp(&got[i], &want, sizeof(float)) == 0
                                         : std::fabs(got[i] - want) <= tolerance * (scale + std::fabs(want));
        if (same) continue;
        const size_t plane = size_t(s.width) * s.height;
        char text[240];
        std::snprintf(text, sizeof text,
                      "output(x %zu, y %zu, channel %zu) is %.9g where plain C++ gives %.9g%s", i % s.width,
                      i % plane / s.width, i / plane, double(got[i]), double(want),
                      tolerance == 0 ? " (the bits must be the same)" : "");
        return text;
    }
    return "";
}

// Makes and runs an implementation once and checks its output (NCHW); keeps what make returned
// if it did not throw.
template <typename Make, typename Output>
auto checked(const Layer& layer, const char* implementation, double tolerance, Make make, Output output)
    -> decltype(make()) {
    const std::string row = row_name(layer, implementation);
    try {
        auto made = make();
        const std::string difference = first_difference(layer, output(*made), tolerance);
        if (!difference.empty()) record_failure(row, difference);
        return made;
    } catch (const std::exception& e) {
        record_failure(row, e.what());
        return nullptr;
    }
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void check_layer(Layer& layer) {
    const ConvShape& s = layer.shape;
    tessera_apps::naive_conv(s, layer.input, layer.weights, layer.expected);
    auto compiled = [&](std::unique_ptr<TesseraConv> conv, const char* implementation) {
        const auto start = std::chrono::steady_clock::now();
        conv->p.output.compile_jit();
        benchmark::AddCustomContext(std::string(layer.name) + "_compile_ms/" + implementation,
                                    std::to_string(milliseconds_since(start)));
        conv->run();
        return conv;
    };
#ifdef TESSERA_BENCHMARK_DNNL
    // oneDNN before Tessera, so that the timed rows do not start right after a oneDNN run, whose
    // OpenMP threads spin for a while after it.
    onednn_convs.push_back(checked(
        layer, "onednn", 1e-4,
        [&] {
            auto conv = std::make_unique<tessera_apps::OneDnnConv>(s, layer.input, layer.weights);
            conv->run();
            benchmark::AddCustomContext(std::string(layer.name) + "/onednn", conv->description());
            return conv;
        },
        [](tessera_apps::OneDnnConv& c) { return c.output_nchw(); }));
#endif
    for (const std::string& row : tessera_rows()) {
        const bool blocked = row.find("nchwc") != std::string::npos;
        tessera_convs[row].push_back(checked(
            layer, row.c_str(), 0, [&] { return compiled(tessera_conv(layer, row), row.c_str()); },
            [&](TesseraConv& c) {
                return blocked ? tessera_apps::nchwc_to_nchw(c.output_data, s.out_channels, s.width, s.height,
                                                             s.block)
                               : c.output_data;
            }));
    }
    layer.expected = {};
}

// --- The rows ---

tessera_apps::PeakFlops peak;

bool skipped_for_failure(benchmark::State& state, const std::string& row) {
    return tessera_apps::skipped_for_failure(state, row, failures);
}

void set_rates(benchmark::State& state, const Layer& layer) {
    tessera_apps::set_flop_rates(state, layer.shape.flops(), peak.gflops);
}

void run_tessera(benchmark::State& state, size_t i, const char* implementation) {
    if (skipped_for_failure(state, row_name(layers[i], implementation))) return;
    TesseraConv& conv = *tessera_convs.at(implementation)[i];
    for (auto _ : state) conv.run();
    set_rates(state, layers[i]);
}

void run_naive(benchmark::State& state, size_t i) {
    const Layer& layer = layers[i];
    std::vector<float> output;
    for (auto _ : state) {
        tessera_apps::naive_conv(layer.shape, layer.input, layer.weights, output);
        benchmark::DoNotOptimize(output.data());
        benchmark::ClobberMemory();
    }
    set_rates(state, layer);
}

#ifdef TESSERA_BENCHMARK_DNNL
void run_onednn(benchmark::State& state, size_t i) {
    if (skipped_for_failure(state, row_name(layers[i], "onednn"))) return;
    for (auto _ : state) onednn_convs[i]->run();
    set_rates(state, layers[i]);
}
#endif

// oneDNN last: OpenMP's threads spin for a while after each parallel region, and would take time
// from whatever row came next.
void register_rows() {
    auto add = [](const std::string& name, auto&& fn) {
        benchmark::RegisterBenchmark(name.c_str(), fn)->Unit(benchmark::kMillisecond)->UseRealTime();
    };
    for (size_t i = 0; i < layers.size(); i++) {
        for (const std::string& row : tessera_rows())
            add(row_name(layers[i], row.c_str()),
                [i, row](benchmark::State& s) { run_tessera(s, i, row.c_str()); });
    }
    if (options.threads == 1) {
        for (size_t i = 0; i < layers.size(); i++)
            add(row_name(layers[i], "naive_cpp"), [i](benchmark::State& s) { run_naive(s, i); });
    }
#ifdef TESSERA_BENCHMARK_DNNL
    for (size_t i = 0; i < layers.size(); i++)
        add(row_name(layers[i], "onednn"), [i](benchmark::State& s) { run_onednn(s, i); });
#endif
}

std::string describe(const ConvShape& s) {
    char text[120];
    std::snprintf(text, sizeof text, "%dx%d kernel, %d -> %d channels, %dx%d, pad %d, stride 1, batch 1",
                  s.kernel, s.kernel, s.in_channels, s.out_channels, s.width, s.height, s.pad);
    return text;
}

// The shapes, the peak and oneDNN's version and threads, for the JSON context (the rows name their
// thread count).
void describe_run() {
    const std::string threads = "threads:" + std::to_string(options.threads);
    for (const Layer& layer : layers)
        benchmark::AddCustomContext(std::string(layer.name) + "/shape", describe(layer.shape));
    benchmark::AddCustomContext("peak/isa", peak.isa);
    benchmark::AddCustomContext("tessera_nchw/tile", options.nchw_tile.to_string());
    benchmark::AddCustomContext("tessera_nchwc/tile", options.nchwc_tile.to_string());
    benchmark::AddCustomContext("peak_gflops/" + threads, std::to_string(peak.gflops));
#ifdef TESSERA_BENCHMARK_DNNL
    benchmark::AddCustomContext("onednn/version", tessera_apps::OneDnnConv::version());
    benchmark::AddCustomContext("onednn_OMP_NUM_THREADS/" + threads, std::getenv("OMP_NUM_THREADS"));
#else
    std::fprintf(stderr, "%s: built without oneDNN (libdnnl-dev); its rows are left out\n", kProgram);
#endif
}

}  // namespace

int main(int argc, char** argv) {
    // Kept for starting again: parse_options takes this program's options out of argv.
    const std::vector<char*> original_argv(argv, argv + argc + 1);
    parse_options(argc, argv);
#ifdef TESSERA_BENCHMARK_DNNL
    tessera_apps::rerun_with_environment(kProgram, const_cast<char**>(original_argv.data()),
                                         {{"OMP_NUM_THREADS", std::to_string(options.threads)}});
#endif
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    tessera_set_num_threads(options.threads);
    // Measured first, while nothing else of this process runs.
    peak = tessera_apps::measure_peak_flops(options.threads);
    make_layers();
    describe_run();
    try {
        for (Layer& layer : layers) check_layer(layer);
    } catch (const std::exception& e) {
        fail(e.what());
    }
    register_rows();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return tessera_apps::report_failures(kProgram, failures);
}
