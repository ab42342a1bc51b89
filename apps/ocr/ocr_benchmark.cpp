// PP-OCRv4's text detector through Tessera's graph layer beside onnxruntime-node (Google
// Benchmark), on one 1 x 3 x H x W input of uniform random values, with the same number of
// threads for both. Rows:
//
//   ocr_det/tessera/<H>x<W>/threads:<T>       CompiledModel::run, wall time
//   ocr_det/onnxruntime/<H>x<W>/threads:<T>   InferenceSession.run in scripts/onnxruntime_server.js,
//                                             timed by the server (manual time), in a child process
//
// with Google Benchmark's random interleaving of repetitions, the runs of the two alternate. The
// Tessera row also reports the model's compile time (compile_s). Their outputs are compared by
// scripts/compare_ocr_with_onnxruntime.sh.
//
//   --threads=T      threads for both runtimes (default 1)
//   --size=HxW       the input's height and width (default 640x640)
//   --model=PATH     the detector (default: the one the install script puts in third_party/npm)
//   --records=FILE   also a row ocr_det/tessera_tuned: the model compiled with tuning records
//                    (tessera-onnx tune), its outputs checked against the untuned model's

#include <benchmark/benchmark.h>
#include <tessera/graph.h>
#include <tessera/onnx.h>
#include <tessera/tessera.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "onnxruntime_peer.h"

namespace {

using namespace tessera;

struct Options {
    int threads = 1, height = 640, width = 640;
    std::string model = TESSERA_OCR_DETECTOR_MODEL;
    std::string records;
} options;

// Takes this program's options out of argv, leaving Google Benchmark's.
void parse_options(int& argc, char** argv) {
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg.rfind("--threads=", 0) == 0)
            options.threads = std::stoi(arg.substr(10));
        else if (arg.rfind("--size=", 0) == 0)
            std::sscanf(arg.c_str() + 7, "%dx%d", &options.height, &options.width);
        else if (arg.rfind("--model=", 0) == 0)
            options.model = arg.substr(8);
        else if (arg.rfind("--records=", 0) == 0)
            options.records = arg.substr(10);
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
}

graph::Tensor random_input() {
    graph::Tensor t(Float(32), {1, 3, options.height, options.width});
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    for (int64_t i = 0; i < t.elements(); i++) t.data<float>()[i] = dist(rng);
    return t;
}

// The largest difference between two runs' outputs, relative to the larger magnitude (at least 1).
double largest_difference(const std::map<std::string, graph::Tensor>& a,
                          const std::map<std::string, graph::Tensor>& b) {
    double worst = 0;
    for (const auto& [name, t] : a) {
        const graph::Tensor& u = b.at(name);
        for (int64_t i = 0; i < t.elements(); i++) {
            const double x = t.data<float>()[i], y = u.data<float>()[i];
            worst = std::max(worst, std::fabs(x - y) / std::max({1.0, std::fabs(x), std::fabs(y)}));
        }
    }
    return worst;
}

std::string size_text() { return std::to_string(options.height) + "x" + std::to_string(options.width); }

}  // namespace

int main(int argc, char** argv) {
    parse_options(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    if (!std::filesystem::exists(options.model)) {
        std::printf("skipped: no detector model at %s; scripts/install_dependencies.sh installs it\n",
                    options.model.c_str());
        return 77;
    }
    tessera_set_num_threads(options.threads);
    const graph::Tensor input = random_input();
    graph::CompileOptions compile_options;
    compile_options.input_shapes["x"] = input.shape();
    graph::CompiledModel model =
        graph::compile(graph::load_onnx(options.model), get_host_target(), compile_options);
    const std::string input_file =
        (std::filesystem::temp_directory_path() / ("ocr_benchmark_input_" + std::to_string(getpid()) + ".pb"))
            .string();
    graph::write_tensor_proto(input, "x", input_file);
    auto peer = std::make_unique<ocr::OnnxruntimePeer>(TESSERA_SOURCE_DIR "/scripts/onnxruntime_server.js",
                                                       options.model, options.threads,
                                                       std::vector<std::string>{"x=" + input_file});
    const std::string suffix = "/" + size_text() + "/threads:" + std::to_string(options.threads);
    benchmark::RegisterBenchmark(("ocr_det/tessera" + suffix).c_str(), [&](benchmark::State& state) {
        for (auto _ : state) model.run({{"x", input}});
        state.counters["compile_s"] = model.compile_seconds();
    })->Unit(benchmark::kMillisecond);
    graph::CompiledModel tuned;
    if (!options.records.empty()) {
        compile_options.tuning_records = options.records;
        tuned = graph::compile(graph::load_onnx(options.model), get_host_target(), compile_options);
        const double difference = largest_difference(tuned.run({{"x", input}}), model.run({{"x", input}}));
        std::fprintf(
            stderr,
            "ocr_benchmark: the tuned model's outputs differ from the untuned one's by %.2g at most\n",
            difference);
        if (!(difference <= 1e-4)) return 1;
        benchmark::RegisterBenchmark(("ocr_det/tessera_tuned" + suffix).c_str(),
                                     [&](benchmark::State& state) {
                                         for (auto _ : state) tuned.run({{"x", input}});
                                         state.counters["compile_s"] = tuned.compile_seconds();
                                     })
            ->Unit(benchmark::kMillisecond);
    }
    if (peer->error().empty()) {
        benchmark::RegisterBenchmark(("ocr_det/onnxruntime" + suffix).c_str(),
                                     [&](benchmark::State& state) {
                                         for (auto _ : state) {
                                             const double ms = peer->run();
                                             if (ms < 0) {
                                                 state.SkipWithError(peer->error().c_str());
                                                 break;
                                             }
                                             state.SetIterationTime(ms / 1000);
                                         }
                                     })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
    } else {
        std::fprintf(stderr, "ocr_benchmark: no onnxruntime rows: %s\n", peer->error().c_str());
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    peer.reset();
    std::filesystem::remove(input_file);
    return 0;
}
