// Tuning a model's fused groups (tune_model) and compiling with the records: the tuned groups run
// the recorded schedules and compute the operators' values; a second tune resumes from the records.

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "../scratch_files.h"
#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;

namespace {

// A convolution with its ReLU, then a matrix product: two groups of different kinds.
Graph conv_then_matmul() {
    Builder b;
    int x = b.input("x", Float(32), {1, 8, 13, 21});
    Attributes pads;
    pads.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    int conv = b.op("Conv",
                    {x, b.constant(random_tensor({6, 8, 3, 3}, 1, -1, 1), "w"),
                     b.constant(random_tensor({6}, 2, -1, 1), "b")},
                    pads, 1, "conv")[0];
    int act = b.op("Relu", {conv}, {}, 1, "act")[0];
    int product =
        b.op("MatMul", {act, b.constant(random_tensor({21, 17}, 3, -1, 1), "m")}, {}, 1, "product")[0];
    b.output(product, "y");
    return b.build();
}

bool close(const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape()) return false;
    const float* x = a.data<float>();
    const float* y = b.data<float>();
    for (size_t i = 0; i < size_t(a.elements()); i++)
        if (!(std::fabs(x[i] - y[i]) <= 1e-4f * std::max(1.0f, std::fabs(y[i])))) return false;
    return true;
}

}  // namespace

TEST_CASE("tuned groups run their recorded schedules with the operators' values, and tuning resumes") {
    const auto dir = scratch_files::fresh_dir("graph_tuning");
    const std::string records = (dir / "records.jsonl").string();
    TuneOptions tuning;
    tuning.trials = 3;
    tuning.batch_size = 3;
    tuning.repetitions = 2;
    tuning.records_file = records;
    tuning.progress = false;
    tuning.machine_params = MachineParams(2, 8 << 20, 40);
    const Graph g = conv_then_matmul();
    const std::vector<GroupTuning> first = tune_model(g, get_host_target(), {}, tuning);
    REQUIRE(first.size() == 2);
    for (const GroupTuning& r : first) {
        CHECK(r.status == "tuned");
        CHECK(r.trials == 3);
        CHECK(r.best_ms > 0);
    }
    // The records hold three trials of each group already: nothing more to measure.
    const std::vector<GroupTuning> again = tune_model(g, get_host_target(), {}, tuning);
    REQUIRE(again.size() == 2);
    for (const GroupTuning& r : again) {
        CHECK(r.status == "already tuned");
        CHECK(r.trials == 0);
    }

    // Each group's operators' schedule was measured too, as the baseline.
    std::vector<std::string> lines, tuned_only;
    {
        std::ifstream in(records);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
    }
    for (const std::string& line : lines)
        if (line.find("\"schedule\":\"operator\"") == std::string::npos) tuned_only.push_back(line);
    CHECK(lines.size() - tuned_only.size() == 2);
    CHECK(tuned_only.size() == 2 * (3 + 3));  // three trials per group, each measured again
    const std::string without_baselines = (dir / "tuned_only.jsonl").string();
    {
        std::ofstream out(without_baselines);
        for (const std::string& line : tuned_only) out << line << "\n";
    }

    CompiledModel plain = compile(g, get_host_target());
    const Tensor x = random_tensor({1, 8, 13, 21}, 4, -1, 1);
    const Tensor expected = plain.run({{"x", x}}).at("y");
    CHECK(plain.groups_text().find("(tuned schedule)") == std::string::npos);
    // With the baselines, each group runs whichever was faster; without, the tuned schedules.
    for (const std::string& file : {records, without_baselines}) {
        CompileOptions with_records;
        with_records.tuning_records = file;
        CompiledModel tuned = compile(g, get_host_target(), with_records);
        CHECK(close(tuned.run({{"x", x}}).at("y"), expected));
        if (file == without_baselines)
            CHECK(tuned.groups_text().find("(tuned schedule)") != std::string::npos);
    }
}

TEST_CASE("tune_model needs a records file") {
    CHECK_THROWS_AS(tune_model(conv_then_matmul(), get_host_target(), {}, TuneOptions{}), CompileError);
}
