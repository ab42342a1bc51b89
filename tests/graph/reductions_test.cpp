// Reductions (Reduce*, ArgMax, ArgMin) and softmaxes (Softmax, LogSoftmax, Hardmax) built with
// graph::Builder, compiled and run, against plain C++ computed in double.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;
using graph_tests::same_bits;

namespace {

// Small whole numbers, so that many elements tie.
Tensor tied_tensor(std::vector<int64_t> shape, uint32_t seed) {
    Tensor t = random_tensor(std::move(shape), seed, -3.0f, 3.0f);
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.elements(); i++) p[i] = std::round(p[i]);
    return t;
}

std::vector<int64_t> kept_shape(const std::vector<int64_t>& shape, const std::vector<int>& axes,
                                bool keepdims) {
    std::vector<int64_t> out;
    for (int d = 0; d < int(shape.size()); d++) {
        const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
        if (!reduced)
            out.push_back(shape[d]);
        else if (keepdims)
            out.push_back(1);
    }
    return out;
}

// For each element of the reduced tensor (row-major), the input's elements it reduces, in the
// input's order.
std::vector<std::vector<double>> groups(const Tensor& x, const std::vector<int>& axes) {
    const std::vector<int64_t>& shape = x.shape();
    const std::vector<int64_t> out_shape = kept_shape(shape, axes, true);
    int64_t outputs = 1;
    for (int64_t d : out_shape) outputs *= d;
    std::vector<std::vector<double>> g(outputs);
    const std::vector<double> values = x.to_doubles();
    for (int64_t i = 0; i < x.elements(); i++) {
        int64_t rest = i, o = 0, stride = 1;
        for (int d = int(shape.size()) - 1; d >= 0; d--) {
            const int64_t c = rest % shape[d];
            rest /= shape[d];
            o += (out_shape[d] == 1 ? 0 : c) * stride;
            stride *= out_shape[d];
        }
        g[o].push_back(values[i]);
    }
    return g;
}

bool close(double actual, double expected) {
    if (std::isinf(expected)) return actual == expected;
    return std::abs(actual - expected) <= 1e-4 + 1e-3 * std::abs(expected);
}

void check_close(const Tensor& actual, const std::vector<double>& expected, const std::string& what) {
    REQUIRE_MESSAGE(actual.elements() == int64_t(expected.size()), what);
    const std::vector<double> a = actual.to_doubles();
    int wrong = 0;
    for (size_t i = 0; i < expected.size() && wrong < 5; i++) {
        if (close(a[i], expected[i])) continue;
        wrong++;
        CHECK_MESSAGE(false, what << " at " << i << ": " << a[i] << ", expected " << expected[i]);
    }
}

using Reference = std::function<double(const std::vector<double>&)>;

struct ReduceCase {
    const char* op;
    Reference reference;
};

double sum(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
}

double mapped_sum(const std::vector<double>& v, double (*f)(double)) {
    double s = 0;
    for (double x : v) s += f(x);
    return s;
}

const std::vector<ReduceCase> reduce_cases = {
    {"ReduceSum", [](const auto& v) { return sum(v); }},
    {"ReduceMean", [](const auto& v) { return sum(v) / double(v.size()); }},
    {"ReduceMax", [](const auto& v) { return *std::max_element(v.begin(), v.end()); }},
    {"ReduceMin", [](const auto& v) { return *std::min_element(v.begin(), v.end()); }},
    {"ReduceL1", [](const auto& v) { return mapped_sum(v, [](double x) { return std::abs(x); }); }},
    {"ReduceL2", [](const auto& v) { return std::sqrt(mapped_sum(v, [](double x) { return x * x; })); }},
    {"ReduceSumSquare", [](const auto& v) { return mapped_sum(v, [](double x) { return x * x; }); }},
    {"ReduceLogSumExp",
     [](const auto& v) { return std::log(mapped_sum(v, [](double x) { return std::exp(x); })); }},
};

// Runs op with the given attributes on x, one model per op, and compares with reference applied to
// each group of elements reduced.
void check_reduction(const char* op, const Reference& reference, const Tensor& x,
                     const std::vector<int>& axes, bool keepdims, Attributes attributes) {
    Builder b;
    int in = b.input("x", Float(32), Shape(x.shape().begin(), x.shape().end()));
    b.output(b.op1(op, {in}, attributes), "y");
    CompiledModel model = compile(b.build(), get_host_target());
    Tensor y = model.run({{"x", x}}).at("y");
    CHECK_MESSAGE(y.shape() == kept_shape(x.shape(), axes, keepdims), op);
    std::vector<double> expected;
    for (const auto& g : groups(x, axes)) expected.push_back(reference(g));
    check_close(y, expected, op);
}

Attributes axes_attributes(const std::vector<int64_t>& axes, bool keepdims) {
    Attributes a;
    a.set("axes", axes);
    a.set("keepdims", int64_t(keepdims));
    return a;
}

}  // namespace

TEST_CASE("each Reduce operator over a middle axis, kept, computes what plain C++ computes") {
    // Large enough to run in parallel; the kept innermost axis is not a multiple of a vector.
    const Tensor x = random_tensor({3, 37, 301}, 1);
    for (const ReduceCase& c : reduce_cases)
        check_reduction(c.op, c.reference, x, {1}, true, axes_attributes({1}, true));
    const Tensor near_one = random_tensor({3, 37, 301}, 2, 0.9f, 1.1f);
    check_reduction(
        "ReduceProd",
        [](const auto& v) {
            double p = 1;
            for (double e : v) p *= e;
            return p;
        },
        near_one, {1}, true, axes_attributes({1}, true));
    check_reduction(
        "ReduceLogSum", [](const auto& v) { return std::log(sum(v)); }, near_one, {1}, true,
        axes_attributes({1}, true));
}

TEST_CASE("reductions over the innermost axis, over separated axes and over all axes drop the axes reduced") {
    const Tensor x = random_tensor({3, 37, 301}, 3);
    const ReduceCase& mean = reduce_cases[1];
    const ReduceCase& max = reduce_cases[2];
    check_reduction(mean.op, mean.reference, x, {2}, false, axes_attributes({-1}, false));
    check_reduction(max.op, max.reference, x, {0, 2}, false, axes_attributes({2, 0}, false));
    Attributes drop_all;
    drop_all.set("keepdims", int64_t(0));
    check_reduction(mean.op, mean.reference, x, {0, 1, 2}, false, drop_all);
    check_reduction(max.op, max.reference, x, {0, 1, 2}, true, Attributes{});
}

TEST_CASE("reductions along rows of whole vectors, split into vectors of partial results, match plain C++") {
    // 208 is a multiple of every vector width, so the rows' reductions are vectorized along them.
    const Tensor x = random_tensor({3, 61, 208}, 10);
    const ReduceCase& sum_case = reduce_cases[0];
    const ReduceCase& max = reduce_cases[2];
    const ReduceCase& log_sum_exp = reduce_cases[7];
    check_reduction(sum_case.op, sum_case.reference, x, {2}, true, axes_attributes({2}, true));
    check_reduction(log_sum_exp.op, log_sum_exp.reference, x, {2}, false, axes_attributes({-1}, false));
    check_reduction(max.op, max.reference, x, {1, 2}, false, axes_attributes({1, 2}, false));
    check_reduction(sum_case.op, sum_case.reference, x, {0, 1, 2}, false, axes_attributes({0, 1, 2}, false));
}

TEST_CASE("ReduceSum reads its axes from a constant input, and noop_with_empty_axes keeps every element") {
    const Tensor x = random_tensor({5, 7, 3}, 4);
    const ReduceCase& sum_case = reduce_cases[0];
    Builder b;
    int in = b.input("x", Float(32), {5, 7, 3});
    int axes = b.constant(Tensor::from<int64_t>({2}, {0, -1}), "axes");
    int none = b.constant(Tensor(Int(64), {0}), "no_axes");
    Attributes noop;
    noop.set("noop_with_empty_axes", int64_t(1));
    b.output(b.op1("ReduceSum", {in, axes}), "sum");
    b.output(b.op1("ReduceSum", {in, none}, noop), "same");
    b.output(b.op1("ReduceSum", {in, none}), "all");
    CompiledModel model = compile(b.build(), get_host_target());
    auto out = model.run({{"x", x}});
    std::vector<double> expected;
    for (const auto& g : groups(x, {0, 2})) expected.push_back(sum_case.reference(g));
    CHECK(out.at("sum").shape() == std::vector<int64_t>{1, 7, 1});
    check_close(out.at("sum"), expected, "sum over axes 0 and 2");
    CHECK(out.at("same").shape() == x.shape());
    check_close(out.at("same"), x.to_doubles(), "noop");
    CHECK(out.at("all").shape() == std::vector<int64_t>{1, 1, 1});
    check_close(out.at("all"), {sum(x.to_doubles())}, "sum of all");
}

TEST_CASE(
    "axes that depend on the model's inputs are unsupported; axes out of range or repeated are errors") {
    Builder b;
    int in = b.input("x", Float(32), {5, 7});
    int axes = b.input("axes", Int(64), {1});
    b.output(b.op1("ReduceSum", {in, axes}), "y");
    CHECK_THROWS_WITH_AS(compile(b.build(), get_host_target()),
                         doctest::Contains("depend on the model's inputs"), UnsupportedError);

    for (std::vector<int64_t> bad : {std::vector<int64_t>{2}, std::vector<int64_t>{1, -1}}) {
        Builder c;
        int x = c.input("x", Float(32), {5, 7});
        c.output(c.op1("ReduceMax", {x}, axes_attributes(bad, true)), "y");
        CHECK_THROWS_WITH_AS(
            compile(c.build(), get_host_target()),
            doctest::Contains(bad.size() == 1 ? "axis 2 is out of range for a tensor of rank 2"
                                              : "axis -1 is given twice"),
            CompileError);
    }
}

TEST_CASE("integer reductions keep their type; ReduceMean of integers truncates") {
    Builder b;
    int in = b.input("x", Int(32), {4, 9});
    b.output(b.op1("ReduceSum", {in, b.constant(Tensor::from<int64_t>({1}, {1}))}), "sum");
    b.output(b.op1("ReduceMean", {in}, axes_attributes({1}, false)), "mean");
    CompiledModel model = compile(b.build(), get_host_target());
    std::vector<int32_t> values(36);
    for (int i = 0; i < 36; i++) values[i] = (i * 7919) % 23 - 11;
    auto out = model.run({{"x", Tensor::from<int32_t>({4, 9}, values)}});
    REQUIRE(out.at("sum").type() == Int(32));
    for (int r = 0; r < 4; r++) {
        int s = 0;
        for (int c = 0; c < 9; c++) s += values[r * 9 + c];
        CHECK_MESSAGE(out.at("sum").data<int32_t>()[r] == s, "row " << r);
        CHECK_MESSAGE(out.at("mean").data<int32_t>()[r] == s / 9, "row " << r);
    }
}

TEST_CASE("ArgMax and ArgMin give int64 positions, the first of ties or with select_last_index the last") {
    const Tensor x = tied_tensor({4, 33, 9}, 5);
    const std::vector<double> v = x.to_doubles();
    struct Case {
        const char* op;
        int64_t axis;
        bool keepdims, last;
    };
    for (Case c : {Case{"ArgMax", 1, true, false}, Case{"ArgMax", 1, false, true},
                   Case{"ArgMin", -1, false, true}, Case{"ArgMin", 0, true, false}}) {
        Builder b;
        int in = b.input("x", Float(32), {4, 33, 9});
        Attributes a;
        a.set("axis", c.axis);
        a.set("keepdims", int64_t(c.keepdims));
        a.set("select_last_index", int64_t(c.last));
        b.output(b.op1(c.op, {in}, a), "y");
        Tensor y = compile(b.build(), get_host_target()).run({{"x", x}}).at("y");
        const int axis = int(c.axis < 0 ? c.axis + 3 : c.axis);
        REQUIRE(y.type() == Int(64));
        REQUIRE(y.shape() == kept_shape({4, 33, 9}, {axis}, c.keepdims));
        const bool largest = std::string(c.op) == "ArgMax";
        const std::vector<std::vector<double>> g = groups(x, {axis});
        for (size_t o = 0; o < g.size(); o++) {
            int64_t best = 0;
            for (int64_t i = 1; i < int64_t(g[o].size()); i++) {
                const double a = g[o][i], b = g[o][best];
                if ((largest ? a > b : a < b) || (c.last && a == b)) best = i;
            }
            CHECK_MESSAGE(y.data<int64_t>()[o] == best, c.op << " axis " << c.axis << " at " << o);
        }
    }
}

namespace {

// Softmax of each group of values, or its logarithm.
std::vector<double> softmax_of(const std::vector<double>& v, bool logarithm) {
    const double m = *std::max_element(v.begin(), v.end());
    double s = 0;
    for (double x : v) s += std::exp(x - m);
    std::vector<double> out;
    for (double x : v) out.push_back(logarithm ? x - m - std::log(s) : std::exp(x - m) / s);
    return out;
}

std::vector<double> hardmax_of(const std::vector<double>& v, bool) {
    std::vector<double> out(v.size(), 0.0);
    out[std::max_element(v.begin(), v.end()) - v.begin()] = 1;
    return out;
}

// op over the axes (those softmax normalizes together) of x, compared with f applied to each group;
// the groups' elements come back to their places in the input's order.
void check_softmax(const char* op, int opset, int64_t axis, const Tensor& x, const std::vector<int>& axes,
                   std::vector<double> (*f)(const std::vector<double>&, bool)) {
    Builder b;
    int in = b.input("x", Float(32), Shape(x.shape().begin(), x.shape().end()));
    Attributes a;
    a.set("axis", axis);
    b.output(b.op1(op, {in}, a), "y");
    Graph g = b.build();
    g.opset = opset;
    Tensor y = compile(g, get_host_target()).run({{"x", x}}).at("y");
    REQUIRE(y.shape() == x.shape());
    // The positions of each group's elements, found as groups() finds the elements.
    Tensor positions(Float(32), x.shape());
    for (int64_t i = 0; i < x.elements(); i++) positions.data<float>()[i] = float(i);
    const auto value_groups = groups(x, axes);
    const auto position_groups = groups(positions, axes);
    std::vector<double> expected(x.elements());
    for (size_t k = 0; k < value_groups.size(); k++) {
        const std::vector<double> r = f(value_groups[k], std::string(op) == "LogSoftmax");
        for (size_t j = 0; j < r.size(); j++) expected[int64_t(position_groups[k][j])] = r[j];
    }
    check_close(y, expected,
                std::string(op) + " opset " + std::to_string(opset) + " axis " + std::to_string(axis));
}

}  // namespace

TEST_CASE(
    "Softmax and LogSoftmax along one axis (opset 13) match plain C++, with large inputs not overflowing") {
    const Tensor x = random_tensor({3, 37, 301}, 6, -40.0f, 40.0f);
    check_softmax("Softmax", 13, -1, x, {2}, softmax_of);
    check_softmax("Softmax", 13, 1, x, {1}, softmax_of);
    check_softmax("LogSoftmax", 13, 2, x, {2}, softmax_of);
    check_softmax("LogSoftmax", 13, 0, x, {0}, softmax_of);
}

TEST_CASE("before opset 13, Softmax, LogSoftmax and Hardmax normalize over every axis from axis on") {
    const Tensor x = random_tensor({4, 5, 19}, 7);
    check_softmax("Softmax", 11, 1, x, {1, 2}, softmax_of);
    check_softmax("LogSoftmax", 11, -1, x, {2}, softmax_of);
    check_softmax("Hardmax", 11, 0, tied_tensor({4, 5, 19}, 8), {0, 1, 2}, hardmax_of);
}

TEST_CASE("Softmax over rows of whole vectors, and with a single row, matches plain C++") {
    check_softmax("Softmax", 13, -1, random_tensor({5, 37, 208}, 11), {2}, softmax_of);
    check_softmax("LogSoftmax", 13, -1, random_tensor({5, 37, 208}, 12), {2}, softmax_of);
    check_softmax("Softmax", 13, 1, random_tensor({1, 53, 700}, 13), {1}, softmax_of);
}

TEST_CASE("Hardmax marks the first largest element along the axis") {
    const Tensor x = tied_tensor({3, 37, 301}, 9);
    check_softmax("Hardmax", 13, -1, x, {2}, hardmax_of);
    check_softmax("Hardmax", 13, 1, x, {1}, hardmax_of);
}
