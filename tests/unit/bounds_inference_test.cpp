// Bounds inference: the regions it gives each Func and input, read from the lets it defines.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <map>

#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "lowering/bounds_inference.h"
#include "lowering/inline_functions.h"
#include "lowering/names.h"
#include "lowering/schedule_functions.h"

using namespace tessera;
using namespace tessera::lowering;

namespace {

// The lets bounds inference puts around the pipeline, each with the lets before it substituted
// in, so that every bound is in terms of the output buffer's fields.
std::map<std::string, std::string> inferred_bounds(const Func& output) {
    Environment env = build_environment({output.function()});
    inline_functions(env);
    ir::Stmt s = bounds_inference(schedule_functions(env), env);
    std::map<std::string, Expr> values;
    std::map<std::string, std::string> text;
    while (const ir::LetStmt* let = s.as<ir::LetStmt>()) {
        Expr v = ir::simplify(ir::substitute(values, let->value));
        values[let->name] = v;
        text[let->name] = ir::to_string(v);
        s = let->body;
    }
    return text;
}

}  // namespace

TEST_CASE("a producer at root is realized over the union of its consumer's reads") {
    Func producer("producer"), consumer("consumer");
    Var x("x"), y("y");
    producer(x, y) = x + y;
    consumer(x, y) = producer(x - 2, y) + producer(x + 3, y * 2);
    producer.compute_root();
    auto b = inferred_bounds(consumer);
    CHECK(b.at(realized_min("producer", 0)) == "(consumer.min.0 - 2)");
    CHECK(b.at(realized_extent("producer", 0)) == "(consumer.extent.0 + 5)");
    // y * 2 may lie below y when y is negative: the union keeps both ends.
    CHECK(b.at(realized_min("producer", 1)) == "min(consumer.min.1, (consumer.min.1 * 2))");
}

TEST_CASE("both values of a select are read wherever it is computed, whatever its condition") {
    // Code generation computes both values of a select: the producer read only where x < 5 is
    // still read at every x, and must be realized there.
    Func producer("producer"), consumer("consumer");
    Var x("x");
    producer(x) = x * 2;
    consumer(x) = select(x < 5, producer(x + 100), producer(x - 100));
    producer.compute_root();
    auto b = inferred_bounds(consumer);
    CHECK(b.at(realized_min("producer", 0)) == "(consumer.min.0 - 100)");
    CHECK(b.at(realized_extent("producer", 0)) == "(consumer.extent.0 + 200)");
}

TEST_CASE("an input's required region follows the stencil through an inlined stage") {
    ImageParam in(UInt(8), 1, "in");
    Func blur("blur"), out("out");
    Var x("x");
    blur(x) = in(x - 1) + in(x + 1);
    out(x) = blur(x) + blur(x + 4);
    auto b = inferred_bounds(out);
    CHECK(b.at(required_min("in", 0)) == "(out.min.0 - 1)");
    CHECK(b.at(required_max("in", 0)) == "((out.extent.0 + out.min.0) + 4)");
}

TEST_CASE("an update's writes at data-dependent sites widen the region to the index type's range") {
    ImageParam in(UInt(8), 1, "in");
    Func hist("hist"), out("out");
    Var x("x");
    RDom r(0, 100);
    hist(x) = 0;
    hist(in(r)) += 1;
    out(x) = hist(x);
    auto b = inferred_bounds(out);
    // The pure stage must cover what the update writes: every uint8 value.
    CHECK(b.at(loop_min("hist", 0, "x")) == "min(out.min.0, 0)");
    CHECK(b.at(loop_max("hist", 0, "x")) == "max(((out.extent.0 + out.min.0) - 1), 255)");
}

TEST_CASE("an RDom's bounds give an input's required region") {
    ImageParam in(Float(32), 2, "in");
    Func total("total");
    Var x("x");
    RDom r(0, 10, 3, 4);
    total(x) = 0.0f;
    total(x) += in(x + r.x, r.y);
    auto b = inferred_bounds(total);
    CHECK(b.at(required_min("in", 0)) == "total.min.0");
    CHECK(b.at(required_max("in", 0)) == "((total.extent.0 + total.min.0) + 8)");
    CHECK(b.at(required_min("in", 1)) == "3");
    CHECK(b.at(required_max("in", 1)) == "6");
}
