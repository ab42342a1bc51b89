// Lesson 16: schedules without an expert.
//
// Every earlier lesson wrote its schedule by hand. Here the compiler writes it:
//
//   1. estimates: the sizes a pipeline typically runs at (Func::set_estimates for the output,
//      ImageParam::set_estimates for the input), which is all an automatic scheduler needs;
//   2. Pipeline::auto_schedule("Tessera", target, MachineParams): a schedule for every Func,
//      applied at once and returned as C++ source;
//   3. that source, pasted in place of the call: the same schedule from code a person can read
//      and edit (here it is run through a second build of the pipeline, which must compute the
//      same bits);
//   4. tessera::autotune: a search that measures variations of that schedule on this machine,
//      guided by a learned cost model, writing each measurement to a records file;
//   5. Pipeline::apply_tuning_records: the fastest recorded schedule applied to a new build of the
//      pipeline with no search at all, as an application would at its start.

#include <tessera/tessera.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

using namespace tessera;

namespace {

// Unsharp masking: a separable blur subtracted from the image, sharpening its edges.
struct Unsharp {
    ImageParam input{Float(32), 2, "input"};
    Func blur_x{"blur_x"}, blur_y{"blur_y"}, sharpened{"sharpened"};
    Var x{"x"}, y{"y"};
    Pipeline pipeline;

    Unsharp() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = (clamped(x - 2, y) + 4 * clamped(x - 1, y) + 6 * clamped(x, y) +
                        4 * clamped(x + 1, y) + clamped(x + 2, y)) /
                       16;
        blur_y(x, y) = (blur_x(x, y - 2) + 4 * blur_x(x, y - 1) + 6 * blur_x(x, y) + 4 * blur_x(x, y + 1) +
                        blur_x(x, y + 2)) /
                       16;
        sharpened(x, y) = 2 * clamped(x, y) - blur_y(x, y);
        // 1. The sizes a run typically has. They change no code: they tell the scheduler what to
        // optimize for, and any size still runs correctly.
        input.set_estimates({{0, 1024}, {0, 768}});
        sharpened.set_estimates({{0, 1024}, {0, 768}});
        pipeline = Pipeline(sharpened);
    }

    Buffer<float> run(const Buffer<float>& image) {
        input.set(image);
        Buffer<float> out(image.width(), image.height());
        pipeline.realize(out);
        return out;
    }
};

bool same_bits(const Buffer<float>& a, const Buffer<float>& b) {
    for (int y = 0; y < a.height(); y++)
        for (int x = 0; x < a.width(); x++)
            if (std::memcmp(&a(x, y), &b(x, y), sizeof(float)) != 0) return false;
    return true;
}

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "lesson 16: %s\n", what);
        std::exit(1);
    }
}

// Step 3 by hand: the schedule that auto_schedule printed in step 2 (for an AVX-512 machine with
// these MachineParams), pasted here and run on a fresh build of the pipeline. On another machine
// the scheduler may print another schedule; this one still computes the same bits everywhere.
void pasted_schedule(Pipeline& pipeline) {
    Func blur_x = pipeline.get_func(2);
    Func blur_y = pipeline.get_func(3);
    Func sharpened = pipeline.get_func(4);
    Var x("x"), x_i("x_i"), x_o("x_o"), x_o_y_o("x_o_y_o"), y("y"), y_i("y_i"), y_o("y_o");
    blur_x.compute_at(sharpened, x_o_y_o).vectorize(x, 16, TailStrategy::GuardWithIf);
    blur_y.compute_inline();
    sharpened.split(x, x_o, x_i, 256, TailStrategy::GuardWithIf)
        .split(y, y_o, y_i, 256, TailStrategy::GuardWithIf)
        .reorder(x_i, y_i, x_o, y_o)
        .vectorize(x_i, 16, TailStrategy::GuardWithIf)
        .fuse(x_o, y_o, x_o_y_o)
        .parallel(x_o_y_o);
}

}  // namespace

int main() {
    Buffer<float> image(397, 211);  // not the estimated size: the schedules work at any size
    std::mt19937 rng(16);
    std::uniform_real_distribution<float> value(0, 1);
    for (int y = 0; y < image.height(); y++)
        for (int x = 0; x < image.width(); x++) image(x, y) = value(rng);
    const Buffer<float> expected = Unsharp().run(image);  // the default schedule: everything inline

    // 2. The automatic scheduler, for this machine.
    Unsharp automatic;
    const AutoSchedulerResults results =
        automatic.pipeline.auto_schedule("Tessera", get_host_target(), MachineParams(4, 16 << 20, 40));
    std::printf("The schedule Tessera chose:\n%s\n", results.schedule_source.c_str());
    check(same_bits(automatic.run(image), expected), "the automatic schedule changed the values");

    // 3. A schedule it printed, pasted as code.
    Unsharp pasted;
    pasted_schedule(pasted.pipeline);
    check(same_bits(pasted.run(image), expected), "the pasted schedule changed the values");

    // 4. Tuning: a few trials here (a real run would spend hundreds, or minutes of time_budget).
    const char* dir = std::getenv("TESSERA_OUTPUT_DIR");
    const std::filesystem::path out_dir = dir ? dir : std::filesystem::temp_directory_path().string();
    const std::string records = (out_dir / "lesson_16_records.jsonl").string();
    std::filesystem::remove(records);
    Unsharp tuned;
    TuneOptions options;
    options.trials = 4;
    options.batch_size = 4;
    options.repetitions = 3;
    options.records_file = records;
    options.curve_file = (out_dir / "lesson_16_curve.csv").string();
    options.machine_params = MachineParams(4, 16 << 20, 40);
    const TuneResult tuning = autotune(tuned.pipeline, options);
    std::printf("Tuned: %d trials, %d failed, best %.3f ms (trial %d), %.1f s of tuning.\n", tuning.trials,
                tuning.failed, tuning.best_ms, tuning.best_trial, tuning.seconds);
    check(tuning.trials == 4 && tuning.best_ms > 0, "tuning measured nothing");
    check(same_bits(tuned.run(image), expected), "the tuned schedule changed the values");

    // 5. The records, applied to a new build of the same pipeline: no search.
    Unsharp deployed;
    check(deployed.pipeline.apply_tuning_records(records), "the records did not apply");
    check(same_bits(deployed.run(image), expected), "the recorded schedule changed the values");
    std::printf("The fastest recorded schedule, applied from %s, computes the same bits.\n", records.c_str());
    return 0;
}
