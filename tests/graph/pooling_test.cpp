// Pooling (GlobalAveragePool, GlobalMaxPool, GlobalLpPool, AveragePool, MaxPool, LpPool) built
// with graph::Builder, compiled and run, against plain C++ that walks every window in double.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;
using graph_tests::same_bits;

namespace {

// A pooling node's attributes, as ONNX names them; empty lists take ONNX's defaults.
struct Pool {
    std::string op;
    std::vector<int64_t> kernel, strides, pads, dilations;
    std::string auto_pad = "NOTSET";
    bool ceil_mode = false, count_include_pad = false;
    int64_t p = 2;

    Attributes attributes() const {
        Attributes a;
        a.set("kernel_shape", kernel);
        if (!strides.empty()) a.set("strides", strides);
        if (!pads.empty()) a.set("pads", pads);
        if (!dilations.empty()) a.set("dilations", dilations);
        if (auto_pad != "NOTSET") a.set("auto_pad", auto_pad);
        if (ceil_mode) a.set("ceil_mode", int64_t(1));
        if (count_include_pad) a.set("count_include_pad", int64_t(1));
        if (op == "LpPool") a.set("p", p);
        return a;
    }
};

// The window of one spatial axis, resolved as ONNX says (PyTorch's rule for ceil_mode: no window
// starts in the trailing padding).
struct Axis {
    int64_t kernel, stride, dilation, pad_begin, pad_end, input, output;
};

std::vector<Axis> axes_of(const Pool& pool, const std::vector<int64_t>& shape) {
    std::vector<Axis> axes;
    const size_t n = pool.kernel.size();
    for (size_t i = 0; i < n; i++) {
        Axis a{pool.kernel[i],
               pool.strides.empty() ? 1 : pool.strides[i],
               pool.dilations.empty() ? 1 : pool.dilations[i],
               0,
               0,
               shape[2 + i],
               0};
        const int64_t span = (a.kernel - 1) * a.dilation + 1;
        if (pool.auto_pad == "SAME_UPPER" || pool.auto_pad == "SAME_LOWER") {
            a.output = (a.input + a.stride - 1) / a.stride;
            const int64_t total = std::max<int64_t>(0, (a.output - 1) * a.stride + span - a.input);
            a.pad_begin = pool.auto_pad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
            a.pad_end = total - a.pad_begin;
        } else {
            if (!pool.pads.empty() && pool.auto_pad == "NOTSET") {
                a.pad_begin = pool.pads[i];
                a.pad_end = pool.pads[n + i];
            }
            const double room = double(a.input + a.pad_begin + a.pad_end - span) / double(a.stride);
            a.output = int64_t(pool.ceil_mode ? std::ceil(room) : std::floor(room)) + 1;
            if (pool.ceil_mode && (a.output - 1) * a.stride >= a.input + a.pad_begin) a.output--;
        }
        axes.push_back(a);
    }
    return axes;
}

// Row-major strides of a shape.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (int d = int(shape.size()) - 2; d >= 0; d--) s[d] = s[d + 1] * shape[d + 1];
    return s;
}

// The pool in double, window element by window element.
std::vector<double> reference_pool(const Pool& pool, const Tensor& x, std::vector<int64_t>& out_shape) {
    const std::vector<int64_t>& shape = x.shape();
    const std::vector<Axis> axes = axes_of(pool, shape);
    out_shape = {shape[0], shape[1]};
    for (const Axis& a : axes) out_shape.push_back(a.output);
    const std::vector<double> in = x.to_doubles();
    const std::vector<int64_t> in_strides = strides_of(shape);
    int64_t outputs = 1, window = 1;
    for (int64_t d : out_shape) outputs *= d;
    for (const Axis& a : axes) window *= a.kernel;
    std::vector<double> out;
    for (int64_t o = 0; o < outputs; o++) {
        std::vector<int64_t> at(out_shape.size());
        for (int d = int(out_shape.size()) - 1, rest = int(o); d >= 0; d--) {
            at[d] = rest % out_shape[d];
            rest /= int(out_shape[d]);
        }
        double sum = 0, best = -std::numeric_limits<double>::infinity();
        int64_t inside = 0, padded = 0;
        for (int64_t k = 0; k < window; k++) {
            int64_t offset = at[0] * in_strides[0] + at[1] * in_strides[1], rest = k;
            bool in_input = true, in_padding = true;
            for (int i = int(axes.size()) - 1; i >= 0; i--) {
                const Axis& a = axes[i];
                const int64_t c = at[2 + i] * a.stride - a.pad_begin + (rest % a.kernel) * a.dilation;
                rest /= a.kernel;
                in_input = in_input && c >= 0 && c < a.input;
                in_padding = in_padding && c >= -a.pad_begin && c < a.input + a.pad_end;
                offset += c * in_strides[2 + i];
            }
            padded += in_padding;
            if (!in_input) continue;
            const double v = in[offset];
            inside++;
            sum += pool.op == "LpPool" ? std::pow(std::abs(v), double(pool.p)) : v;
            best = std::max(best, v);
        }
        if (pool.op == "MaxPool")
            out.push_back(best);
        else if (pool.op == "LpPool")
            out.push_back(std::pow(sum, 1.0 / double(pool.p)));
        else
            out.push_back(sum / double(pool.count_include_pad ? padded : inside));
    }
    return out;
}

std::vector<Tensor> run_node(const std::string& op, const Tensor& x, const Attributes& attributes,
                             int outputs = 1) {
    Builder b;
    int in = b.input("x", x.type(), Shape(x.shape().begin(), x.shape().end()));
    std::vector<int> out = b.op(op, {in}, attributes, outputs);
    for (int i = 0; i < outputs; i++) b.output(out[i], "y" + std::to_string(i));
    CompiledModel model = compile(b.build(), get_host_target());
    std::map<std::string, Tensor> results = model.run({{"x", x}});
    std::vector<Tensor> tensors;
    for (int i = 0; i < outputs; i++) tensors.push_back(results.at("y" + std::to_string(i)));
    return tensors;
}

void check_pool(const Pool& pool, const std::vector<int64_t>& shape, uint32_t seed) {
    const Tensor x = random_tensor(shape, seed);
    std::vector<int64_t> expected_shape;
    const std::vector<double> expected = reference_pool(pool, x, expected_shape);
    const Tensor y = run_node(pool.op, x, pool.attributes())[0];
    REQUIRE(y.shape() == expected_shape);
    const std::vector<double> got = y.to_doubles();
    int wrong = 0;
    for (size_t i = 0; i < got.size() && wrong < 5; i++) {
        const bool close = std::abs(got[i] - expected[i]) <= 1e-5 + 1e-5 * std::abs(expected[i]);
        wrong += !close;
        CHECK_MESSAGE(close, pool.op << " element " << i << ": " << got[i] << ", expected " << expected[i]);
    }
}

}  // namespace

TEST_CASE("MaxPool with pads, strides, dilations and ceil_mode matches a plain window walk") {
    const std::vector<int64_t> shape = {2, 3, 13, 37};
    check_pool({"MaxPool", {3, 3}, {2, 2}, {1, 1, 1, 1}}, shape, 1);
    check_pool({"MaxPool", {2, 3}, {1, 1}, {0, 2, 1, 0}}, shape, 2);
    check_pool({"MaxPool", {3, 2}, {2, 3}, {1, 0, 1, 1}, {2, 2}}, shape, 3);
    check_pool({"MaxPool", {3, 3}, {2, 2}, {}, {}, "NOTSET", true}, shape, 4);
    check_pool({"MaxPool", {5, 5}, {1, 1}, {}, {}, "SAME_LOWER"}, shape, 5);
    check_pool({"MaxPool", {7, 6}, {1, 1}, {3, 3, 3, 2}}, shape, 6);  // 42 elements: not unrolled
}

TEST_CASE(
    "AveragePool divides by the elements inside the input, or inside its padding with count_include_pad") {
    const std::vector<int64_t> shape = {1, 4, 11, 29};
    check_pool({"AveragePool", {2, 2}, {2, 2}}, shape, 10);
    check_pool({"AveragePool", {3, 3}, {1, 1}, {1, 1, 1, 1}}, shape, 11);
    Pool include{"AveragePool", {3, 3}, {1, 1}, {1, 1, 1, 1}};
    include.count_include_pad = true;
    check_pool(include, shape, 12);
    check_pool({"AveragePool", {3, 2}, {2, 2}, {}, {}, "SAME_UPPER"}, shape, 13);
    check_pool({"AveragePool", {2, 3}, {3, 2}, {}, {}, "SAME_LOWER"}, shape, 14);
    Pool ceil{"AveragePool", {3, 3}, {2, 2}, {1, 1, 0, 0}, {}, "NOTSET", true};
    ceil.count_include_pad = true;
    check_pool(ceil, shape, 15);
    check_pool({"AveragePool", {11, 29}}, shape, 16);  // the whole input: a global pool
}

TEST_CASE("pools over one and three spatial axes, and LpPool") {
    check_pool({"MaxPool", {4}, {3}, {2, 1}}, {2, 3, 41}, 20);
    check_pool({"AveragePool", {3}, {1}, {1, 1}}, {2, 3, 41}, 21);
    check_pool({"MaxPool", {2, 3, 2}, {1, 2, 2}, {0, 1, 1, 1, 0, 0}}, {1, 2, 5, 7, 19}, 22);
    check_pool({"AveragePool", {2, 2, 3}, {2, 1, 2}, {1, 0, 1, 0, 1, 1}}, {1, 2, 5, 7, 19}, 23);
    check_pool({"LpPool", {3, 3}, {2, 1}, {1, 1, 1, 1}}, {1, 3, 9, 21}, 24);
    Pool lp1{"LpPool", {2, 2}, {2, 2}};
    lp1.p = 1;
    check_pool(lp1, {1, 3, 9, 21}, 25);
}

TEST_CASE("global pools reduce every spatial axis, channels in parallel") {
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{2, 3, 45}, {2, 40, 23, 29}, {1, 5, 3, 7, 11}}) {
        const Tensor x = random_tensor(shape, 30);
        const std::vector<double> in = x.to_doubles();
        int64_t plane = 1;
        for (size_t d = 2; d < shape.size(); d++) plane *= shape[d];
        std::vector<int64_t> out_shape = {shape[0], shape[1]};
        out_shape.resize(shape.size(), 1);
        for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
            const Tensor y = run_node(op, x, {})[0];
            REQUIRE(y.shape() == out_shape);
            const std::vector<double> got = y.to_doubles();
            for (int64_t c = 0; c < shape[0] * shape[1]; c++) {
                double sum = 0, squares = 0, best = -INFINITY;
                for (int64_t i = 0; i < plane; i++) {
                    const double v = in[c * plane + i];
                    sum += v;
                    squares += v * v;
                    best = std::max(best, v);
                }
                const double expected = std::string(op) == "GlobalAveragePool" ? sum / double(plane)
                                        : std::string(op) == "GlobalMaxPool"   ? best
                                                                               : std::sqrt(squares);
                CHECK_MESSAGE(std::abs(got[c] - expected) <= 1e-4 * (1 + std::abs(expected)),
                              op << " of channel " << c << ": " << got[c] << ", expected " << expected);
            }
        }
    }
}

TEST_CASE("MaxPool's Indices are the first maximum's flat index, row- or column-major") {
    const std::vector<int64_t> shape = {2, 2, 7, 9};
    Tensor x = random_tensor(shape, 40);
    float* p = x.data<float>();
    for (int64_t i = 0; i < x.elements(); i++) p[i] = std::round(p[i]);  // ties: the first wins
    const std::vector<double> in = x.to_doubles();
    for (int64_t storage_order : {0, 1}) {
        Pool pool{"MaxPool", {3, 3}, {2, 2}, {1, 1, 1, 1}};
        Attributes a = pool.attributes();
        a.set("storage_order", storage_order);
        const std::vector<Tensor> y = run_node("MaxPool", x, a, 2);
        REQUIRE(y[1].shape() == std::vector<int64_t>{2, 2, 4, 5});
        const int64_t* indices = y[1].data<int64_t>();
        const float* values = y[0].data<float>();
        for (int64_t nc = 0; nc < 4; nc++)
            for (int64_t oh = 0; oh < 4; oh++)
                for (int64_t ow = 0; ow < 5; ow++) {
                    double best = -INFINITY;
                    int64_t at = -1;
                    for (int64_t kh = 0; kh < 3; kh++)
                        for (int64_t kw = 0; kw < 3; kw++) {
                            const int64_t h = oh * 2 - 1 + kh, w = ow * 2 - 1 + kw;
                            if (h < 0 || h >= 7 || w < 0 || w >= 9) continue;
                            const double v = in[(nc * 7 + h) * 9 + w];
                            if (v > best) {
                                best = v;
                                at = nc * 63 + (storage_order == 0 ? h * 9 + w : h + w * 7);
                            }
                        }
                    const int64_t o = (nc * 4 + oh) * 5 + ow;
                    CHECK(values[o] == best);
                    CHECK_MESSAGE(indices[o] == at, "at " << nc << "," << oh << "," << ow);
                }
    }
}

TEST_CASE("MaxPool of uint8 pads with the type's lowest value") {
    Tensor x(UInt(8), {1, 2, 6, 19});
    uint8_t* p = x.data<uint8_t>();
    for (int64_t i = 0; i < x.elements(); i++) p[i] = uint8_t((i * 37) % 251);
    const Tensor y = run_node("MaxPool", x, Pool{"MaxPool", {3, 3}, {1, 1}, {1, 1, 1, 1}}.attributes())[0];
    REQUIRE(y.shape() == std::vector<int64_t>{1, 2, 6, 19});
    for (int64_t c = 0; c < 2; c++)
        for (int64_t h = 0; h < 6; h++)
            for (int64_t w = 0; w < 19; w++) {
                uint8_t best = 0;
                for (int64_t i = std::max<int64_t>(h - 1, 0); i <= std::min<int64_t>(h + 1, 5); i++)
                    for (int64_t j = std::max<int64_t>(w - 1, 0); j <= std::min<int64_t>(w + 1, 18); j++)
                        best = std::max(best, p[(c * 6 + i) * 19 + j]);
                CHECK(y.data<uint8_t>()[(c * 6 + h) * 19 + w] == best);
            }
}

TEST_CASE("pooling attributes that do not fit the input are CompileErrors naming the node") {
    const Tensor x = random_tensor({1, 1, 4, 4}, 50);
    CHECK_THROWS_WITH_AS(run_node("MaxPool", x, Pool{"MaxPool", {5, 5}}.attributes()),
                         doctest::Contains("more than the input's 4 and its padding"), CompileError);
    CHECK_THROWS_WITH_AS(run_node("AveragePool", x, Pool{"AveragePool", {2, 2}, {1}}.attributes()),
                         doctest::Contains("strides has 1 values; the input has 2 spatial axes"),
                         CompileError);
    Attributes bad = Pool{"MaxPool", {2, 2}}.attributes();
    bad.set("auto_pad", std::string("SAME"));
    CHECK_THROWS_WITH_AS(run_node("MaxPool", x, bad), doctest::Contains("auto_pad is SAME"), CompileError);
    CHECK_THROWS_WITH_AS(run_node("MaxPool", x, {}), doctest::Contains("kernel_shape is required"),
                         CompileError);
    Tensor ints(Int(32), {1, 1, 4, 4});
    CHECK_THROWS_WITH_AS(run_node("AveragePool", ints, Pool{"AveragePool", {2, 2}}.attributes()),
                         doctest::Contains("takes floating-point tensors"), CompileError);
}
