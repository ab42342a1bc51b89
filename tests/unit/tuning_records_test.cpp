// The pieces of autotuning's bookkeeping: the JSON reader, plans as JSON and back, records lines,
// and the features the cost model reads off a loop nest.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <algorithm>
#include <cmath>

#include "lowering/lower.h"
#include "schedule/auto/learned_cost_model.h"
#include "schedule/auto/loop_nest_features.h"
#include "schedule/auto/pipeline_analysis.h"
#include "schedule/auto/tessera_autoscheduler.h"
#include "tune/plan_json.h"
#include "tune/tuning_records.h"
#include "util/json.h"

using namespace tessera;

namespace {

float feature(const std::vector<float>& f, const std::string& name) {
    const auto& names = autoschedule::loop_nest_feature_names();
    return f[size_t(std::find(names.begin(), names.end(), name) - names.begin())];
}

}  // namespace

TEST_CASE("the JSON reader reads values and says where text is not one") {
    auto v = json::parse(R"({"a": [1, -2.5e1, true, false, null], "b": {"c": "x\"y\n\u00e9"}})");
    REQUIRE(v);
    REQUIRE(v->find("a"));
    CHECK(v->find("a")->array.size() == 5);
    CHECK(v->find("a")->array[1].number == -25);
    CHECK(v->find("a")->array[2].boolean);
    CHECK(v->find("b")->find("c")->string == "x\"y\n\xc3\xa9");
    CHECK(json::parse(json::quote("tab\there \"quoted\" \x01"))->string == "tab\there \"quoted\" \x01");
    std::string why;
    CHECK_FALSE(json::parse(R"({"a": [1, 2)", &why));
    CHECK(why.find("offset") != std::string::npos);
    CHECK_FALSE(json::parse("{} extra"));
    CHECK_FALSE(json::parse("\"unterminated"));
    CHECK_FALSE(json::parse(std::string(100, '[') + std::string(100, ']')));  // deeper than any record
}

TEST_CASE("a plan survives JSON, and JSON that is not a plan of this pipeline is refused with a reason") {
    ImageParam input(Float(32), 2, "input");
    Func blur("blur"), out("out");
    Var x("x"), y("y");
    blur(x, y) = input(x, y) + input(x + 1, y);
    out(x, y) = blur(x, y) + blur(x, y + 1);
    input.set_estimates({{0, 300}, {0, 200}});
    out.set_estimates({{0, 299}, {0, 199}});
    const std::vector<std::shared_ptr<lang::FunctionContents>> outputs{out.function()};
    const autoschedule::SchedulePlan plan =
        autoschedule::tessera_autoschedule(outputs, get_host_target(), MachineParams(4, 8 << 20, 40));
    const std::string text = tune::plan_to_json(plan);
    const auto funcs = autoschedule::pipeline_funcs(outputs);
    std::string why;
    auto back = tune::plan_from_json(*json::parse(text), funcs, &why);
    REQUIRE(back);
    CHECK(tune::plan_to_json(*back) == text);
    CHECK(autoschedule::plan_source(*back) == autoschedule::plan_source(plan));

    CHECK_FALSE(
        tune::plan_from_json(*json::parse(R"([{"index": 99, "name": "x", "directives": []}])"), funcs, &why));
    CHECK(why.find("does not have") != std::string::npos);
    CHECK_FALSE(tune::plan_from_json(
        *json::parse(
            R"([{"index": 0, "name": "x", "directives": [{"kind": "twist", "stage": 0, "loops": []}]}])"),
        funcs, &why));
    CHECK(why.find("twist") != std::string::npos);
    CHECK_FALSE(tune::plan_from_json(
        *json::parse(
            R"([{"index": 0, "name": "x", "directives": [{"kind": "split", "stage": 0, "loops": [["x", false]]}]}])"),
        funcs, &why));
    CHECK(why.find("wrong number of loops") != std::string::npos);
    // Numbers no index can be: refused, never cast out of range.
    CHECK_FALSE(tune::plan_from_json(*json::parse(R"([{"index": 1e300, "name": "x", "directives": []}])"),
                                     funcs, &why));
    CHECK_FALSE(tune::plan_from_json(
        *json::parse(
            R"([{"index": 0, "name": "x", "directives": [{"kind": "compute_root", "stage": 1e300, "loops": []}]}])"),
        funcs, &why));
    CHECK_FALSE(tune::plan_from_json(
        *json::parse(
            R"([{"index": 0, "name": "x", "directives": [{"kind": "vectorize", "stage": 0, "loops": [["x", false]], "factor": 2.5, "tail": "Auto"}]}])"),
        funcs, &why));
}

TEST_CASE("a record line reads back as the record") {
    tune::TuningRecord r;
    r.signature = "0123456789abcdef";
    r.target = "x86-64-linux-avx2";
    r.trial = 7;
    r.status = "ok";
    r.median_ms = 1.5;
    r.times_ms = {1.5, 1.25, 2};
    r.schedule_json = "[]";
    auto v = json::parse(tune::record_line(r));
    REQUIRE(v);
    CHECK(v->find("signature")->string == r.signature);
    CHECK(v->find("median_ms")->number == 1.5);
    CHECK(v->find("times_ms")->array.size() == 3);
}

TEST_CASE("features see vectors, parallel loops and recomputation in the loop nest") {
    Func producer("producer"), consumer("consumer");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    producer(x, y) = sqrt(cast<float>(x + y));
    consumer(x, y) = producer(x, y) + producer(x + 1, y) + producer(x, y + 1);
    const std::vector<std::shared_ptr<lang::FunctionContents>> outputs{consumer.function()};
    const auto values = autoschedule::buffer_field_values({{"consumer", {{0, 256}, {0, 128}}}});
    const autoschedule::FeatureMachine machine{4, 8, 256 * 1024};
    auto features = [&] {
        return autoschedule::loop_nest_features(lowering::lower_loop_nest(outputs), values, machine);
    };

    const std::vector<float> inline_serial = features();  // producer inlined: three evaluations per point
    CHECK(feature(inline_serial, "vector_fraction") == 0);
    CHECK(feature(inline_serial, "parallel_fraction") == 0);
    CHECK(feature(inline_serial, "log_points") == doctest::Approx(std::log2(1 + 256.0 * 128)));

    producer.compute_root();
    consumer.vectorize(x, 8).parallel(y);
    const std::vector<float> root_vector_parallel = features();
    CHECK(feature(root_vector_parallel, "vector_fraction") > 0.4f);  // the consumer's work
    CHECK(feature(root_vector_parallel, "parallel_fraction") > 0.4f);
    CHECK(feature(root_vector_parallel, "log_allocated_bytes") > 10);
    CHECK(feature(root_vector_parallel, "log_transcendental") < feature(inline_serial, "log_transcendental"));
}
