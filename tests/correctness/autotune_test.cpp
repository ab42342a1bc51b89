// tessera::autotune and Pipeline::apply_tuning_records: a search whose best schedule computes the
// default schedule's bits, records that a second build of the same pipeline applies with no
// search, records that do not fit (truncated, another target, another pipeline) passed over, and
// workers that crash or hang losing their trial and nothing else.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "../scratch_files.h"
#include "../tuning_pipelines.h"
#include "lowering/lower.h"
#include "schedule/auto/schedule_space.h"
#include "tune/tuning_records.h"
#include "util/json.h"

using namespace tessera;
using namespace tuning_tests;

namespace {

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

TuneOptions quick_options(const std::string& records, int trials) {
    TuneOptions o;
    o.trials = trials;
    o.batch_size = 3;
    o.repetitions = 2;
    o.records_file = records;
    o.progress = false;
    o.parallel_compiles = 2;
    o.machine_params = MachineParams(2, 8 * 1024 * 1024, 40);
    return o;
}

// A loop nest without the "$12" that make the names of Funcs made by a schedule unique.
std::string without_unique_suffixes(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); i++) {
        if (text[i] == '$' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
            while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) i++;
            continue;
        }
        out += text[i];
    }
    return out;
}

std::string count_status(const std::vector<std::string>& lines, const std::string& status) {
    int n = 0;
    for (const std::string& l : lines) n += l.find("\"status\":\"" + status + "\"") != std::string::npos;
    return std::to_string(n);
}

}  // namespace

TEST_CASE("autotune measures its trials, records each, and applies a schedule with the default's bits") {
    const auto dir = scratch_files::fresh_dir("autotune_search");
    const std::string records = (dir / "records.jsonl").string();
    const Buffer<float> image = random_image(Sharpen::width, Sharpen::height, 1);
    const Buffer<float> expected = Sharpen().run(image);

    Sharpen tuned;
    TuneOptions options = quick_options(records, 6);
    options.curve_file = (dir / "curve.csv").string();
    const TuneResult result = autotune(tuned.pipeline, options);
    CHECK(result.trials == 6);
    CHECK(result.failed == 0);
    CHECK(result.best_ms > 0);
    CHECK(result.best_ms_after_trial.size() == 6);
    CHECK(result.schedule_source.find("pipeline.get_func(") != std::string::npos);
    CHECK(same_bits(tuned.run(image), expected));
    // A line per trial, and one more for each of the three fastest, measured again.
    const auto lines = lines_of(records);
    CHECK(lines.size() == 6 + 3);
    CHECK(count_status(lines, "ok") == "9");
    CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
              return l.find("\"remeasured\":true") != std::string::npos;
          }) == 3);
    CHECK(lines_of(options.curve_file).size() == 7);  // the header and one line per trial

    // Another build of the same pipeline applies the best record, with no search.
    Sharpen again;
    const std::string unscheduled = again.pipeline.loop_nest();
    CHECK(again.pipeline.apply_tuning_records(records));
    CHECK(again.pipeline.loop_nest() != unscheduled);
    CHECK(same_bits(again.run(image), expected));
    CHECK(pipeline_signature(again.pipeline) == pipeline_signature(tuned.pipeline));
}

TEST_CASE("tuning records of schedules that make Funcs apply to another build, with the default's bits") {
    const auto dir = scratch_files::fresh_dir("autotune_made_funcs");
    const std::string records = (dir / "records.jsonl").string();
    const Buffer<float> A = random_image(MatrixProduct::depth, MatrixProduct::height, 11);
    const Buffer<float> B = random_image(MatrixProduct::width, MatrixProduct::depth, 12);
    const Buffer<float> expected = MatrixProduct().run(A, B);

    MatrixProduct tuned;
    const TuneResult result = autotune(tuned.pipeline, quick_options(records, 3));
    CHECK(result.failed == 0);
    CHECK_MESSAGE(result.schedule_source.find("cache_write(c") != std::string::npos, result.schedule_source);
    CHECK(same_bits(tuned.run(A, B), expected));
    CHECK(lines_of(records).front().find("\"made\"") != std::string::npos);

    // Every record, each alone, applies to another build (its specialization included).
    const auto all = lines_of(records);
    CHECK(std::any_of(all.begin(), all.end(),
                      [](const std::string& l) { return l.find("\"specialize\"") != std::string::npos; }));
    for (const std::string& record : lines_of(records)) {
        const std::string one = (dir / "one.jsonl").string();
        std::ofstream(one) << record << "\n";
        MatrixProduct again;
        CHECK(again.pipeline.apply_tuning_records(one));
        CHECK(same_bits(again.run(A, B), expected));
    }

    // Schedules whose made Funcs or specializations do not fit: passed over, the pipeline untouched.
    const std::string line = lines_of(records).front();
    const size_t at = line.find("\"schedule\":");
    REQUIRE(at != std::string::npos);
    const std::string copy_of_unread_image =
        "[{\"index\":0,\"name\":\"c\",\"directives\":[]},{\"made\":{\"how\":\"cache_read_image\","
        "\"source\":\"nothing\",\"consumer\":\"c\",\"memory\":\"Auto\"},\"name\":\"p\",\"directives\":[]}]";
    const std::string unmade_specialization =
        "[{\"index\":0,\"name\":\"c\",\"directives\":[{\"kind\":\"parallel\",\"stage\":0,"
        "\"loops\":[[\"y\",false]],\"specialization\":1}]}]";
    const std::string specialized_on_no_var =
        "[{\"index\":0,\"name\":\"c\",\"directives\":[{\"kind\":\"specialize\",\"stage\":0,"
        "\"loops\":[[\"z\",false]],\"at_least\":[8]}]}]";
    for (const std::string& schedule : {copy_of_unread_image, unmade_specialization, specialized_on_no_var}) {
        CAPTURE(schedule);
        const std::string wrong = (dir / "wrong.jsonl").string();
        std::ofstream(wrong) << line.substr(0, at) << "\"schedule\":" << schedule << "}\n";
        MatrixProduct untouched;
        const std::string before = untouched.pipeline.loop_nest();
        CHECK_FALSE(untouched.pipeline.apply_tuning_records(wrong));
        CHECK(untouched.pipeline.loop_nest() == before);
        CHECK(same_bits(untouched.run(A, B), expected));
    }
}

TEST_CASE("the model-guided search measures the automatic scheduler's schedule first") {
    // The shipped cost model ranks the first batch; the scheduler's own point must be in it however
    // the model ranks it, so that tuning never ends slower than auto_schedule.
    const auto dir = scratch_files::fresh_dir("autotune_first_trial");
    const std::string records = (dir / "records.jsonl").string();
    MatrixProduct tuned;
    TuneOptions options = quick_options(records, 3);
    options.search = TuneOptions::Search::ModelGuided;
    autotune(tuned.pipeline, options);
    const auto lines = lines_of(records);
    const auto first = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
        return l.find("\"trial\":0,") != std::string::npos;
    });
    REQUIRE(first != lines.end());
    const std::string one = (dir / "one.jsonl").string();
    std::ofstream(one) << *first << "\n";
    MatrixProduct from_record, from_scheduler;
    REQUIRE(from_record.pipeline.apply_tuning_records(one));
    from_scheduler.pipeline.auto_schedule("Tessera", get_host_target(), options.machine_params);
    // Funcs made by the schedule (cache_write, cache_read) take a unique suffix per build.
    CHECK(without_unique_suffixes(from_record.pipeline.loop_nest()) ==
          without_unique_suffixes(from_scheduler.pipeline.loop_nest()));
}

TEST_CASE("a search told not to start from the automatic scheduler never measures its schedule") {
    // A record's schedule is the text after "schedule": (loop nests do not show split factors).
    auto schedule_of = [](const std::string& line) { return line.substr(line.find("\"schedule\":")); };
    const auto dir = scratch_files::fresh_dir("autotune_random_start");
    const std::string from_scheduler = (dir / "scheduler.jsonl").string();
    MatrixProduct first;
    autotune(first.pipeline, quick_options(from_scheduler, 1));
    const auto scheduler_lines = lines_of(from_scheduler);
    REQUIRE(!scheduler_lines.empty());
    const std::string scheduler_schedule = schedule_of(scheduler_lines[0]);

    const std::string records = (dir / "records.jsonl").string();
    MatrixProduct tuned;
    TuneOptions options = quick_options(records, 12);
    options.search = TuneOptions::Search::Random;
    options.start_from_auto_schedule = false;
    autotune(tuned.pipeline, options);
    int measured = 0;
    for (const std::string& line : lines_of(records)) {
        measured++;
        CHECK_MESSAGE(schedule_of(line) != scheduler_schedule, line);
    }
    CHECK(measured >= 12);
}

TEST_CASE("records of other pipelines, other targets, or lines cut short are passed over") {
    const auto dir = scratch_files::fresh_dir("autotune_records");
    const std::string records = (dir / "records.jsonl").string();
    Sharpen tuned;
    autotune(tuned.pipeline, quick_options(records, 3));
    const auto good = lines_of(records);
    REQUIRE(good.size() == 3 + 3);

    // A pipeline with other estimates has another signature: nothing applies.
    Sharpen other(Sharpen::width * 2);
    CHECK(pipeline_signature(other.pipeline) != pipeline_signature(tuned.pipeline));
    CHECK_FALSE(other.pipeline.apply_tuning_records(records));
    // Another target: nothing applies.
    Sharpen elsewhere;
    CHECK_FALSE(elsewhere.pipeline.apply_tuning_records(records, Target("arm-64-linux")));

    // A truncated last line and a line of garbage: warnings, and the good lines still apply.
    const std::string damaged = (dir / "damaged.jsonl").string();
    {
        std::ofstream out(damaged);
        out << "not json at all\n";
        for (const std::string& l : good) out << l << "\n";
        out << good[0].substr(0, good[0].size() / 2);
    }
    Sharpen reader;
    CHECK(reader.pipeline.apply_tuning_records(damaged));
    const Buffer<float> image = random_image(64, 48, 2);
    CHECK(same_bits(reader.run(image), Sharpen().run(image)));
    // A record whose schedule names a loop the pipeline lacks: passed over, the pipeline untouched.
    const std::string wrong = (dir / "wrong.jsonl").string();
    {
        std::string line = good[0];
        const size_t at = line.find("\"schedule\":");
        REQUIRE(at != std::string::npos);
        line = line.substr(0, at) +
               "\"schedule\":[{\"index\":3,\"name\":\"output\",\"directives\":[{\"kind\":\"parallel\","
               "\"stage\":0,"
               "\"loops\":[[\"no_such_loop\",false]]}]}]}";
        std::ofstream(wrong) << line << "\n";
    }
    Sharpen untouched;
    const std::string before = untouched.pipeline.loop_nest();
    CHECK_FALSE(untouched.pipeline.apply_tuning_records(wrong));
    CHECK(untouched.pipeline.loop_nest() == before);
    CHECK_FALSE(Sharpen().pipeline.apply_tuning_records((dir / "missing.jsonl").string()));
}

TEST_CASE("a schedule measured again is ranked by all its runs, not by its luckiest measurement") {
    const auto dir = scratch_files::fresh_dir("autotune_remeasured");
    const std::string tuned_records = (dir / "tuned.jsonl").string();
    Sharpen tuned;
    autotune(tuned.pipeline, quick_options(tuned_records, 3));
    std::vector<tune::TuningRecord> first;
    for (tune::TuningRecord r : tune::read_records(tuned_records)) {
        if (r.remeasured || !r.ok()) continue;
        r.schedule_json = json::text(r.schedule);
        first.push_back(r);
    }
    REQUIRE(first.size() >= 2);
    // Trial a measured 1 ms once and 3 ms when measured again; trial b 2 ms.
    tune::TuningRecord a = first[0], b = first[1], a_again = first[0];
    REQUIRE(a.schedule_json != b.schedule_json);
    a.median_ms = 1, a.times_ms = {1, 1, 1};
    a_again.median_ms = 3, a_again.times_ms = {3, 3, 3, 3}, a_again.remeasured = true;
    b.median_ms = 2, b.times_ms = {2, 2, 2};
    const std::string records = (dir / "records.jsonl").string(), b_alone = (dir / "b.jsonl").string();
    for (const tune::TuningRecord& r : {a, b, a_again}) tune::append_record(records, r);
    tune::append_record(b_alone, b);

    Sharpen chosen, expected;
    REQUIRE(chosen.pipeline.apply_tuning_records(records));
    REQUIRE(expected.pipeline.apply_tuning_records(b_alone));
    CHECK(without_unique_suffixes(chosen.pipeline.loop_nest()) ==
          without_unique_suffixes(expected.pipeline.loop_nest()));
    const std::vector<tune::TuningRecord> ranked =
        tune::ranked_schedules(tune::read_records(records), a.signature, a.target);
    REQUIRE(ranked.size() == 2);
    CHECK(ranked[0].median_ms == 2);
    CHECK(ranked[1].median_ms == 3);  // the upper median of 1, 1, 1, 3, 3, 3, 3
    CHECK(ranked[1].times_ms.size() == 7);

    // A schedule that ran fastest once and crashed when measured again is left out.
    REQUIRE(first.size() >= 3);
    tune::TuningRecord c = first[2], c_again = first[2];
    REQUIRE(c.schedule_json != a.schedule_json);
    REQUIRE(c.schedule_json != b.schedule_json);
    c.median_ms = 0.5, c.times_ms = {0.5, 0.5, 0.5};
    c_again.status = "crashed", c_again.median_ms = 0, c_again.times_ms = {}, c_again.remeasured = true;
    for (const tune::TuningRecord& r : {c, c_again}) tune::append_record(records, r);
    Sharpen without_crashed;
    REQUIRE(without_crashed.pipeline.apply_tuning_records(records));
    CHECK(without_unique_suffixes(without_crashed.pipeline.loop_nest()) ==
          without_unique_suffixes(expected.pipeline.loop_nest()));
    CHECK(tune::ranked_schedules(tune::read_records(records), a.signature, a.target).size() == 2);
}

TEST_CASE("workers that crash or hang lose their trial and nothing else") {
    const auto dir = scratch_files::fresh_dir("autotune_failures");
    const std::string records = (dir / "records.jsonl").string();
    Sharpen tuned;
    TuneOptions options = quick_options(records, 6);
    options.compile_timeout_seconds = 5;
    options.run_timeout_seconds = 5;
    options.worker_hook = [](int trial) {
        if (trial == 1) std::abort();
        if (trial == 4) std::this_thread::sleep_for(std::chrono::seconds(600));
    };
    const TuneResult result = autotune(tuned.pipeline, options);
    CHECK(result.trials == 6);
    CHECK(result.failed == 2);
    const auto lines = lines_of(records);
    CHECK(count_status(lines, "crashed") == "1");
    CHECK(count_status(lines, "timeout") == "1");
    CHECK(count_status(lines, "ok") == "7");  // four trials, the fastest three measured again
    const Buffer<float> image = random_image(Sharpen::width, Sharpen::height, 3);
    CHECK(same_bits(tuned.run(image), Sharpen().run(image)));
}

TEST_CASE("autotune needs estimates and positive options") {
    ImageParam input(Float(32), 2, "input");
    Func f("unestimated");
    Var x("x"), y("y");
    f(x, y) = input(x, y) * 2;
    Pipeline p(f);
    TuneOptions options = quick_options("", 2);
    CHECK_THROWS_AS(autotune(p, options), CompileError);
    options.trials = 0;
    CHECK_THROWS_AS(autotune(p, options), CompileError);
}

TEST_CASE("the tuner varies a register tile's shape within the vector registers") {
    const int n = 300;
    Func c("c");
    Var x("x"), y("y");
    RDom k(0, n, "k");
    Buffer<float> a(n, n), b(n, n);
    c(x, y) = 0.0f;
    c(x, y) += a(k, y) * b(x, k);
    c.set_estimates({{0, n}, {0, n}});
    const Target target = get_host_target();
    const autoschedule::ScheduleSpace space({c.function()}, target, MachineParams(4, 8 << 20, 40));
    const int lanes = target.natural_vector_size(Float(32));
    const int registers = target.has_feature(Target::AVX512) ? 32 : 16;
    std::mt19937_64 rng(3);
    std::set<std::vector<int64_t>> shapes;
    for (int walk = 0; walk < 40; walk++) {
        autoschedule::SchedulePoint p = space.initial();
        for (int step = 0; step < 6; step++) {
            p = space.mutate(p, rng);
            for (const autoschedule::Group& g : p.groups) {
                if (!g.register_tile) continue;
                shapes.insert(g.tile);
                CAPTURE(p.key());
                CHECK((g.tile[0] + lanes - 1) / lanes * g.tile[1] <= registers - 4);
            }
        }
    }
    CHECK(shapes.size() >= 3);  // the shape does vary
}

TEST_CASE("a register tile's rows grow along one dimension in one step, the others shrinking to fit") {
    // A convolution with two vectors of channels innermost: the scheduler's tile already fills the
    // registers, so more pixels along x need fewer rows of y in the same step.
    const Target target = get_host_target();
    const int lanes = target.natural_vector_size(Float(32));
    const int registers = target.has_feature(Target::AVX512) ? 32 : 16;
    ImageParam input(Float(32), 3, "input"), weights(Float(32), 3, "weights");
    Func conv("conv"), relu("relu");
    Var c("c"), x("x"), y("y");
    RDom r(0, 8, 0, 3, "r");
    conv(c, x, y) = 0.0f;
    conv(c, x, y) += weights(c, r.x, r.y) * input(r.x, x + r.y, y);
    relu(c, x, y) = max(conv(c, x, y), 0.0f);
    relu.set_estimates({{0, 2 * lanes}, {0, 56}, {0, 56}});
    input.set_estimates({{0, 8}, {0, 58}, {0, 56}});
    weights.set_estimates({{0, 2 * lanes}, {0, 8}, {0, 3}});
    const autoschedule::ScheduleSpace space({relu.function()}, target, MachineParams(4, 8 << 20, 40));
    auto tile_of = [](const autoschedule::SchedulePoint& p) {
        for (const autoschedule::Group& g : p.groups)
            if (g.register_tile) return g.tile;
        return std::vector<int64_t>();
    };
    const std::vector<int64_t> initial = tile_of(space.initial());
    REQUIRE(initial.size() == 3);
    std::mt19937_64 rng(4);
    bool wider_rows = false;
    for (int trial = 0; trial < 300; trial++) {
        const std::vector<int64_t> tile = tile_of(space.mutate(space.initial(), rng));
        if (tile.size() != 3) continue;
        CHECK((tile[0] + lanes - 1) / lanes * tile[1] * tile[2] <= registers - 4);
        wider_rows = wider_rows || (tile[0] == initial[0] && tile[1] > initial[1] && tile[2] < initial[2]);
    }
    CHECK(wider_rows);
}

TEST_CASE("points of the tuner's space, many mutations from the scheduler's, compute the default's bits") {
    const Buffer<float> image = random_image(Sharpen::width, Sharpen::height, 4);
    const Buffer<float> expected = Sharpen().run(image);
    // A matrix product too, whose update has register tiles to vary.
    const int n = 37;
    Buffer<float> a = random_image(n, n, 5), b = random_image(n, n, 6);
    auto matmul = [&] {
        Func c("c");
        Var x("x"), y("y");
        RDom k(0, n, "k");
        c(x, y) = 0.0f;
        c(x, y) += a(k, y) * b(x, k);
        c.set_estimates({{0, n}, {0, n}});
        return c;
    };
    const Buffer<float> product = matmul().realize({n, n});
    std::mt19937_64 rng(9);
    for (int trial = 0; trial < 6; trial++) {
        Sharpen s;
        const std::vector<std::shared_ptr<lang::FunctionContents>> outputs{s.output.function()};
        const autoschedule::ScheduleSpace space(outputs, get_host_target(), MachineParams(4, 8 << 20, 40));
        autoschedule::SchedulePoint p = space.initial();
        for (int step = 0; step < 4 * (trial + 1); step++) p = space.mutate(p, rng);
        autoschedule::apply_plan(space.plan(p));
        CAPTURE(p.key());
        CHECK(same_bits(s.run(image), expected));

        Func c = matmul();
        const autoschedule::ScheduleSpace matmul_space({c.function()}, get_host_target(),
                                                       MachineParams(4, 8 << 20, 40));
        autoschedule::SchedulePoint q = matmul_space.initial();
        for (int step = 0; step < 4 * (trial + 1); step++) q = matmul_space.mutate(q, rng);
        autoschedule::apply_plan(matmul_space.plan(q));
        CAPTURE(q.key());
        const Buffer<float> got = c.realize({n, n});
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) REQUIRE(got(x, y) == product(x, y));
    }
}

TEST_CASE("points of the tuner's space around a scan make plans that the schedule's checks accept") {
    // in -> doubled -> scan (a running sum along x) -> output: joined into the output's group and
    // split out again, the scan must not take the Func it reads as a member, computed at a loop of
    // its pure definition, which its update does not run inside.
    const int width = 45, height = 30;
    const Buffer<float> input = random_image(width, height, 7);
    auto pipeline = [&] {
        Func doubled("doubled"), scan("scan"), output("output");
        Var x("x"), y("y");
        RDom r(1, width - 1, "r");
        doubled(x, y) = sqrt(input(x, y)) * exp(input(x, y));  // costly: computed once, not inlined
        scan(x, y) = doubled(x, y) + doubled(x, min(y + 1, height - 1));
        scan(r, y) += scan(r - 1, y);
        output(x, y) = scan(x, y) + scan(x, min(y + 1, height - 1));
        output.set_estimates({{0, width}, {0, height}});
        return output;
    };
    const Buffer<float> expected = pipeline().realize({width, height});
    std::mt19937_64 rng(11);
    for (int walk = 0; walk < 40; walk++) {
        Func output = pipeline();
        const autoschedule::ScheduleSpace space({output.function()}, get_host_target(),
                                                MachineParams(4, 8 << 20, 40));
        autoschedule::SchedulePoint p = space.initial();
        for (int step = 0; step < 8; step++) p = space.mutate(p, rng);
        const autoschedule::SchedulePlan plan = space.plan(p);
        CAPTURE(p.key());
        CAPTURE(autoschedule::plan_source(plan));
        REQUIRE_NOTHROW(autoschedule::apply_plan(plan));
        REQUIRE_NOTHROW(lowering::lower_loop_nest({output.function()}));
        if (walk % 8 != 0) continue;  // compiling every point would take long; lowering checks each
        CHECK(same_bits(output.realize({width, height}), expected));
    }
}
