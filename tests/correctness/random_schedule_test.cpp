// Random pipelines under random schedules: each generated pipeline (pointwise stages, stencils,
// reductions, scans and updates at fixed points, over an input read through a boundary condition,
// realized over odd sizes) is built twice from the same seed, once left with the default schedule
// and once given a random legal schedule, and the two outputs must agree bit for bit with each
// other and with a plain C++ evaluation of the pipeline. The scheduled pipeline runs twice, the
// second time with the target feature check_bounds, under which a load or store outside its
// storage is an error: a wrong index cannot hide behind a lucky value.
//
// ctest runs a fixed number of cases from fixed seeds. For a longer run:
//   TESSERA_RANDOM_SCHEDULES=300 [TESSERA_RANDOM_SCHEDULE_SEED=1] ./correctness_random_schedule_test
// runs 300 cases of each test case from seed 1 on. A failure prints its seed and the C++ of the
// pipeline and of the schedule; TESSERA_RANDOM_SCHEDULES=1 TESSERA_RANDOM_SCHEDULE_SEED=<seed>
// with -tc="<test case>" reruns just that case. TESSERA_RANDOM_SCHEDULE_PRINT=1 prints every case,
// TESSERA_RANDOM_SCHEDULE_STATS=1 counts the primitives the schedules used, and
// TESSERA_RANDOM_SCHEDULE_NEST_COST=<n> changes ScheduleOptions::max_nest_cost, and
// TESSERA_RANDOM_SCHEDULE_PROGRESS=1 names each case on stderr as it starts, with its pipeline and
// schedule before they compile.

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "random_schedule/pipeline_builder.h"
#include "random_schedule/pipeline_reference.h"
#include "random_schedule/random_gpu_schedule.h"
#include "random_schedule/random_pipeline.h"
#include "random_schedule/random_schedule.h"
#include "tests/gpu/gpu_test_support.h"

using namespace random_schedule;

namespace {

struct CaseCount {
    uint32_t first_seed;
    int count;
};

CaseCount case_count(uint32_t default_seed, int default_count) {
    const char* n = std::getenv("TESSERA_RANDOM_SCHEDULES");
    const char* s = std::getenv("TESSERA_RANDOM_SCHEDULE_SEED");
    return {s ? uint32_t(std::strtoul(s, nullptr, 10)) : default_seed, n ? std::atoi(n) : default_count};
}

// Realizes both pipelines over the output's region, the scheduled one also in the checked mode (every
// access checked against its storage: an access outside throws, naming it), and counts the points
// where they differ from each other or from the reference, describing the first few.
template <typename T>
int compare_outputs(const PipelineDef& p, Func plain, Func scheduled, const Target& target,
                    const Reference& reference, std::string& differences) {
    const int w = p.output_extent[0], h = p.output_extent[1];
    Buffer<T> expected(w, h), actual(w, h), checked(w, h);
    expected.set_min(p.output_min[0], p.output_min[1]);
    actual.set_min(p.output_min[0], p.output_min[1]);
    checked.set_min(p.output_min[0], p.output_min[1]);
    plain.realize(expected);
    scheduled.realize(actual, target);
    scheduled.realize(checked, target.with_feature(Target::CheckBounds));
    int mismatches = 0;
    std::ostringstream out;
    for (int y = p.output_min[1]; y < p.output_min[1] + h; y++) {
        for (int x = p.output_min[0]; x < p.output_min[0] + w; x++) {
            const T want = T(reference.output(x, y));
            if (actual(x, y) == want && expected(x, y) == want && checked(x, y) == want) continue;
            if (mismatches++ < 8) {
                out << "  at (" << x << ", " << y << "): scheduled " << int64_t(actual(x, y))
                    << " (checked mode " << int64_t(checked(x, y)) << "), default schedule "
                    << int64_t(expected(x, y)) << ", plain C++ " << int64_t(want) << "\n";
            }
        }
    }
    differences = out.str();
    return mismatches;
}

// How often each primitive appears in the schedules of a run, for TESSERA_RANDOM_SCHEDULE_STATS=1.
std::map<std::string, int>& primitive_counts() {
    static std::map<std::string, int> counts;
    return counts;
}

void count_primitives(const std::string& schedule) {
    static const char* primitives[] = {".split(",          ".tile(",         ".fuse(",
                                       ".reorder(",        ".rename(",       ".vectorize(",
                                       ".unroll(",         ".parallel(",     ".compute_at(",
                                       ".store_at(",       ".compute_root(", ".store_root(",
                                       ".compute_inline(", ".bound(",        ".reorder_storage(",
                                       ".update(",         "LoopLevel(",     "RoundUp",
                                       "GuardWithIf",      "ShiftInwards",   "TailStrategy::Auto",
                                       "cache_read(",      "cache_write("};
    for (const char* p : primitives) {
        for (size_t at = schedule.find(p); at != std::string::npos; at = schedule.find(p, at + 1))
            primitive_counts()[p]++;
    }
}

// The automatic scheduler's schedule, for estimates that are the output's region or, one time in
// three, a much larger one (so that tiles larger than the region occur too).
std::string autoschedule(const PipelineDef& p, BuiltPipeline& b) {
    const int scale = p.output_extent[0] % 3 == 0 ? 64 : 1;
    Func out = b.output();
    out.set_estimate(b.x, p.output_min[0], p.output_extent[0] * scale);
    out.set_estimate(b.y, p.output_min[1], p.output_extent[1] * scale);
    return Pipeline(out)
        .auto_schedule("Tessera", get_host_target(), MachineParams(4, 8 << 20, 40))
        .schedule_source;
}

struct CaseResult {
    bool passed;
    std::string report;  // the pipeline, the schedule, what went wrong and how to rerun the case
};

CaseResult run_case(uint32_t seed, const GeneratorOptions& g, const ScheduleOptions& s) {
    std::mt19937 rng(seed);
    const PipelineDef p = random_pipeline(rng, g);
    std::string schedule, differences, pipeline = PipelinePrinter(p).print();
    int mismatches = 0;
    try {
        Buffer<> input = make_input(p);
        Reference reference(p);
        BuiltPipeline plain = build_pipeline(p, input);
        BuiltPipeline scheduled = build_pipeline(p, input);
        schedule = s.autoschedule ? autoschedule(p, scheduled)
                   : s.gpu        ? GPUScheduleGenerator(rng, p, scheduled).run()
                                  : ScheduleGenerator(rng, p, scheduled, s, reference.stage_regions()).run();
        // GPU schedules run in emulation, or on the GPU in a device run (gpu_test_support.h).
        const Target target = !s.gpu                   ? get_host_target()
                              : gpu_test::device_run() ? Target("host-cuda")
                                                       : get_host_target().with_feature(Target::GPUEmulation);
        count_primitives(schedule);
        if (std::getenv("TESSERA_RANDOM_SCHEDULE_PROGRESS"))
            std::fprintf(stderr, "---- pipeline\n%s---- schedule\n%s", pipeline.c_str(), schedule.c_str());
        switch (p.stages.back().type) {
            case ValueType::UInt8:
                mismatches = compare_outputs<uint8_t>(p, plain.output(), scheduled.output(), target,
                                                      reference, differences);
                break;
            case ValueType::UInt16:
                mismatches = compare_outputs<uint16_t>(p, plain.output(), scheduled.output(), target,
                                                       reference, differences);
                break;
            default:
                mismatches = compare_outputs<int32_t>(p, plain.output(), scheduled.output(), target,
                                                      reference, differences);
                break;
        }
    } catch (const std::exception& e) {
        differences = std::string("  threw: ") + e.what() + "\n";
        mismatches = -1;
    }
    std::ostringstream report;
    report << "seed " << seed << ": ";
    if (mismatches > 0) report << mismatches << " points differ\n";
    if (mismatches == 0) report << "passed\n";
    report << differences << "---- pipeline\n"
           << pipeline << "---- schedule\n"
           << schedule << "---- rerun with TESSERA_RANDOM_SCHEDULES=1 TESSERA_RANDOM_SCHEDULE_SEED=" << seed
           << "\n";
    return {mismatches == 0, report.str()};
}

void run_cases(uint32_t default_seed, int default_count, const GeneratorOptions& g, ScheduleOptions s) {
    const CaseCount cases = case_count(default_seed, default_count);
    if (const char* cost = std::getenv("TESSERA_RANDOM_SCHEDULE_NEST_COST"))
        s.max_nest_cost = std::atoi(cost);
    const bool print_all = std::getenv("TESSERA_RANDOM_SCHEDULE_PRINT") != nullptr;
    const bool progress = std::getenv("TESSERA_RANDOM_SCHEDULE_PROGRESS") != nullptr;
    int failures = 0;
    for (int i = 0; i < cases.count; i++) {
        const uint32_t seed = cases.first_seed + uint32_t(i);
        // On stderr, unbuffered: a case that never finishes is the last one named.
        if (progress) std::fprintf(stderr, "starting seed %u\n", seed);
        const CaseResult result = run_case(seed, g, s);
        if (result.passed) {
            if (print_all) MESSAGE(result.report);
            continue;
        }
        failures++;
        FAIL_CHECK(result.report);
    }
    if (std::getenv("TESSERA_RANDOM_SCHEDULE_STATS")) {
        std::ostringstream stats;
        for (const auto& [primitive, count] : primitive_counts())
            stats << "  " << primitive << " " << count << "\n";
        MESSAGE("calls in the schedules so far:\n" << stats.str());
    }
    MESSAGE((cases.count - failures) << " of " << cases.count << " cases from seed " << cases.first_seed
                                     << " passed");
    CHECK(failures == 0);
}

}  // namespace

TEST_CASE("random stencil pipelines give the same bits under random loop schedules and placements") {
    GeneratorOptions g;
    g.reductions = false;
    run_cases(1000, 5, g, ScheduleOptions());
}

TEST_CASE("random pipelines with reductions give the same bits under random schedules") {
    run_cases(2000, 5, GeneratorOptions(), ScheduleOptions());
}

TEST_CASE("random pipelines over tiny regions give the same bits under random schedules") {
    GeneratorOptions g;
    g.max_size = 5;
    g.max_input_size = 4;
    run_cases(3000, 6, g, ScheduleOptions());
}

TEST_CASE("random pipelines with every Func placed inside its consumers give the same bits") {
    ScheduleOptions s;
    s.inline_probability = 0.15;
    s.root_probability = 0.05;
    // Fewer splits per Func leave room for deeper nests (see max_nest_cost).
    s.max_loop_steps = 2;
    s.max_root_splits = 2;
    GeneratorOptions g;
    g.previous_stage_bias = 0.7;
    g.update_probability = 0.2;
    run_cases(4000, 6, g, s);
}

TEST_CASE("random pipelines under tiled schedules, with Funcs placed at every level of the tiles") {
    // Stencils over the input at the pipeline's edges, each consumer reading the input directly as
    // well, tiles of every tail strategy, fused and parallel, and Funcs computed inside them.
    ScheduleOptions s;
    s.tile_pure_loops = true;
    s.inline_probability = 0.25;
    s.root_probability = 0.1;
    s.max_loop_steps = 1;
    s.loop_primitive_probability = 0.5;
    s.input_inline_probability = 0.9;
    GeneratorOptions g;
    g.previous_stage_bias = 0.5;
    g.input_read_probability = 0.7;
    g.update_probability = 0.1;
    g.small_size_probability = 0.1;
    run_cases(5000, 5, g, s);
}

TEST_CASE("random pipelines scheduled by the automatic scheduler give the same bits") {
    ScheduleOptions s;
    s.autoschedule = true;
    // Chains, so that the output reads most stages and there is something to group.
    GeneratorOptions g;
    g.min_stages = 3;
    g.previous_stage_bias = 0.9;
    g.update_probability = 0.2;
    run_cases(7000, 6, g, s);
}

TEST_CASE("random pipelines under random GPU schedules give the same bits in emulation") {
    // (On the GPU itself with TESSERA_GPU_DEVICE_TESTS=1.) Blocks and threads in tiles of every tail
    // strategy, stages staged in shared memory per block or computed per thread, kernels of their own at the
    // root, updates on threads or on one thread.
    ScheduleOptions s;
    s.gpu = true;
    GeneratorOptions g;
    g.previous_stage_bias = 0.5;
    g.input_read_probability = 0.5;
    g.update_probability = 0.25;
    run_cases(6000, 5, g, s);
}
