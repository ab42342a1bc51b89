// The blur generator (blur_generator.h) run two ways in one process: through the JIT, and as the
// ahead-of-time library add_tessera_library generated from the same generator during the build.
// Both are code for the host target from the same lowering and the same LLVM pipeline, so they
// should run at the same speed. Rows, named <workload>/<implementation>/<width>x<height>:
//   blur_generator/tessera       the generator's pipeline, JIT-compiled here
//   blur_generator/tessera_aot   the static library's blur(); its ratio is JIT time / AOT time
// GBps counts the input read once and the output written once. Before timing, main() checks that
// both give the same bits and exits with status 1 otherwise; when it finishes it prints the ratio
// of the medians of its own repetitions.
//
// Options (before Google Benchmark's own):
//   --blur_size=WIDTHxHEIGHT   the image size (default 6400x4800; env TESSERA_BLUR_SIZE)

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>

#include <benchmark/benchmark.h>
#include <tessera/tessera.h>

#include "blur.h"  // the ahead-of-time library
#include "blur_generator.h"

using namespace tessera;

namespace {

int width = 6400, height = 4800;

void parse_size(const char* text) {
    if (std::sscanf(text, "%dx%d", &width, &height) != 2 || width < 1 || height < 1) {
        std::fprintf(stderr, "bad --blur_size %s: give WIDTHxHEIGHT\n", text);
        std::exit(2);
    }
}

struct Images {
    Buffer<uint16_t> input, jit_output, aot_output;
    Pipeline jit;
    std::unique_ptr<BlurGenerator> generator;
    Images() : input(width, height), jit_output(width, height), aot_output(width, height) {
        std::mt19937 rng(7);
        input.for_each_value([&](uint16_t& v) { v = uint16_t(rng()); });
        generator = BlurGenerator::create(GeneratorContext(get_host_target()));
        jit = generator->build_pipeline();
        generator->input.set(input);
        jit.compile_jit();
    }
    void run_jit() { jit.realize(jit_output); }
    void run_aot() {
        if (blur(input.raw_buffer(), aot_output.raw_buffer()) != 0) throw RuntimeError("the AOT blur failed");
    }
};

Images& images() {
    static Images i;
    return i;
}

void set_rate(benchmark::State& state) {
    const double bytes = 2.0 * width * height * sizeof(uint16_t);
    state.counters["GBps"] =
        benchmark::Counter(bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void blur_jit(benchmark::State& state) {
    for (auto _ : state) images().run_jit();
    set_rate(state);
}

void blur_aot(benchmark::State& state) {
    for (auto _ : state) images().run_aot();
    set_rate(state);
}

// Collects each row's median so that main() can print their ratio.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    std::map<std::string, double> medians;
    void ReportRuns(const std::vector<Run>& runs) override {
        // Without repetitions there are no aggregates, and the one run stands for the median.
        for (const Run& r : runs) {
            if (r.aggregate_name == "median" || (r.aggregate_name.empty() && r.repetitions <= 1))
                medians[r.run_name.function_name] = r.GetAdjustedRealTime();
        }
        ConsoleReporter::ReportRuns(runs);
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (const char* size = std::getenv("TESSERA_BLUR_SIZE")) parse_size(size);
    for (int i = 1; i < argc; i++) {
        if (std::strncmp(argv[i], "--blur_size=", 12) == 0) {
            parse_size(argv[i] + 12);
            for (int j = i; j + 1 < argc; j++) argv[j] = argv[j + 1];
            argc--;
            break;
        }
    }
    Images& im = images();
    im.run_jit();
    im.run_aot();
    long long differences = 0;
    im.jit_output.for_each_element(
        [&](int x, int y) { differences += im.jit_output(x, y) != im.aot_output(x, y); });
    if (differences) {
        std::fprintf(stderr, "the AOT and JIT blurs differ in %lld pixels\n", differences);
        return 1;
    }

    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    const std::string jit_name = "blur_generator/tessera/" + size,
                      aot_name = "blur_generator/tessera_aot/" + size;
    benchmark::RegisterBenchmark(jit_name.c_str(), blur_jit)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(aot_name.c_str(), blur_aot)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::AddCustomContext("blur_generator/size", size);
    benchmark::Initialize(&argc, argv);
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    if (reporter.medians.count(jit_name) && reporter.medians.count(aot_name)) {
        std::printf("AOT / JIT time (medians): %.3f\n",
                    reporter.medians[aot_name] / reporter.medians[jit_name]);
    }
    benchmark::Shutdown();
    return 0;
}
