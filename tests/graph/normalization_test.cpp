// Normalizations (BatchNormalization, InstanceNormalization, LayerNormalization,
// MeanVarianceNormalization) built with graph::Builder, compiled and run, against plain C++
// computed in double.

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;
using graph_tests::same_bits;

namespace {

Shape dims(const std::vector<int64_t>& shape) { return Shape(shape.begin(), shape.end()); }

void check_close(const Tensor& actual, const std::vector<double>& expected, const std::string& what) {
    REQUIRE_MESSAGE(actual.elements() == int64_t(expected.size()), what);
    const std::vector<double> a = actual.to_doubles();
    int wrong = 0;
    for (size_t i = 0; i < expected.size() && wrong < 5; i++) {
        if (std::abs(a[i] - expected[i]) <= 1e-4 + 1e-3 * std::abs(expected[i])) continue;
        wrong++;
        CHECK_MESSAGE(false, what << " at " << i << ": " << a[i] << ", expected " << expected[i]);
    }
}

// x seen as [outer, middle, inner]: the statistics of each (outer, inner) over middle.
struct Stats {
    std::vector<double> mean, variance;  // [outer * inner]
};

Stats stats(const std::vector<double>& x, int64_t outer, int64_t middle, int64_t inner) {
    Stats s{std::vector<double>(outer * inner), std::vector<double>(outer * inner)};
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double sum = 0, squares = 0;
            for (int64_t m = 0; m < middle; m++) sum += x[(o * middle + m) * inner + i];
            const double mean = sum / double(middle);
            for (int64_t m = 0; m < middle; m++) {
                const double d = x[(o * middle + m) * inner + i] - mean;
                squares += d * d;
            }
            s.mean[o * inner + i] = mean;
            s.variance[o * inner + i] = squares / double(middle);
        }
    return s;
}

}  // namespace

TEST_CASE("BatchNormalization normalizes each channel with the statistics given, fused after a Conv's Add") {
    const std::vector<int64_t> shape{2, 5, 11, 13};
    const Tensor x = random_tensor(shape, 1);
    const Tensor scale = random_tensor({5}, 2), bias = random_tensor({5}, 3), mean = random_tensor({5}, 4);
    const Tensor var = random_tensor({5}, 5, 0.1f, 2.0f);
    Builder b;
    int in = b.input("x", Float(32), dims(shape));
    int shifted = b.add(in, b.constant(Tensor::scalar(0.5f)));
    b.output(
        b.batch_norm(shifted, b.constant(scale), b.constant(bias), b.constant(mean), b.constant(var), 1e-3f),
        "y");
    Tensor y = compile(b.build(), get_host_target()).run({{"x", x}}).at("y");
    std::vector<double> expected;
    const std::vector<double> v = x.to_doubles();
    for (int64_t i = 0; i < x.elements(); i++) {
        const int c = int(i / (11 * 13) % 5);
        const double k = scale.data<float>()[c] / std::sqrt(double(var.data<float>()[c]) + 1e-3);
        expected.push_back((v[i] + 0.5 - mean.data<float>()[c]) * k + bias.data<float>()[c]);
    }
    check_close(y, expected, "BatchNormalization");
}

TEST_CASE("BatchNormalization in training mode is unsupported") {
    Builder b;
    int in = b.input("x", Float(32), {2, 3, 4});
    std::vector<int> p;
    for (int i = 0; i < 4; i++) p.push_back(b.constant(random_tensor({3}, 10 + i, 0.5f, 1.0f)));
    Attributes a;
    a.set("training_mode", int64_t(1));
    b.output(b.op1("BatchNormalization", {in, p[0], p[1], p[2], p[3]}, a), "y");
    CHECK_THROWS_WITH_AS(compile(b.build(), get_host_target()), doctest::Contains("training mode"),
                         UnsupportedError);
}

TEST_CASE("InstanceNormalization normalizes each channel of each image over its pixels") {
    // Large enough to run rows in parallel; rows of whole vectors (48) and not (67).
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{2, 7, 61, 67}, std::vector<int64_t>{1, 7, 5, 48}}) {
        const Tensor x = random_tensor(shape, 6, -3.0f, 5.0f);
        const Tensor scale = random_tensor({7}, 7), bias = random_tensor({7}, 8);
        Builder b;
        int in = b.input("x", Float(32), dims(shape));
        Attributes a;
        a.set("epsilon", 0.01f);
        b.output(b.op1("InstanceNormalization", {in, b.constant(scale), b.constant(bias)}, a), "y");
        Tensor y = compile(b.build(), get_host_target()).run({{"x", x}}).at("y");
        const std::vector<double> v = x.to_doubles();
        const int64_t pixels = shape[2] * shape[3];
        const Stats s = stats(v, shape[0] * 7, pixels, 1);
        std::vector<double> expected;
        for (int64_t i = 0; i < x.elements(); i++) {
            const int64_t row = i / pixels;
            const int c = int(row % 7);
            expected.push_back((v[i] - s.mean[row]) / std::sqrt(s.variance[row] + 0.01) *
                                   scale.data<float>()[c] +
                               bias.data<float>()[c]);
        }
        check_close(y, expected, "InstanceNormalization");
    }
}

TEST_CASE("LayerNormalization normalizes over the axes from axis on, with its mean and inverse deviation") {
    const std::vector<int64_t> shape{3, 41, 267};
    const Tensor x = random_tensor(shape, 9, -1.0f, 3.0f);
    const std::vector<double> v = x.to_doubles();
    for (int64_t axis : {-1, 1}) {
        const int first = axis < 0 ? 2 : 1;
        const int64_t outer = first == 2 ? 3 * 41 : 3, normalized = x.elements() / outer;
        const std::vector<int64_t> parameter_shape =
            first == 2 ? std::vector<int64_t>{267} : std::vector<int64_t>{41, 267};
        const Tensor scale = random_tensor(parameter_shape, 10), bias = random_tensor(parameter_shape, 11);
        for (bool with_bias_and_statistics : {false, true}) {
            Builder b;
            int in = b.input("x", Float(32), dims(shape));
            Attributes a;
            a.set("axis", axis);
            std::vector<int> inputs{in, b.constant(scale)};
            if (with_bias_and_statistics) inputs.push_back(b.constant(bias));
            std::vector<int> outs = b.op("LayerNormalization", inputs, a, with_bias_and_statistics ? 3 : 1);
            b.output(outs[0], "y");
            if (with_bias_and_statistics) {
                b.output(outs[1], "mean");
                b.output(outs[2], "inverse_deviation");
            }
            auto out = compile(b.build(), get_host_target()).run({{"x", x}});
            const Stats s = stats(v, outer, normalized, 1);
            std::vector<double> expected, inverse;
            for (int64_t i = 0; i < x.elements(); i++) {
                const int64_t row = i / normalized, p = i % normalized;
                double y = (v[i] - s.mean[row]) / std::sqrt(s.variance[row] + 1e-5) * scale.data<float>()[p];
                if (with_bias_and_statistics) y += bias.data<float>()[p];
                expected.push_back(y);
            }
            check_close(out.at("y"), expected, "LayerNormalization axis " + std::to_string(axis));
            if (!with_bias_and_statistics) continue;
            for (double var : s.variance) inverse.push_back(1 / std::sqrt(var + 1e-5));
            std::vector<int64_t> statistics_shape{3, first == 2 ? 41 : 1, 1};
            CHECK(out.at("mean").shape() == statistics_shape);
            check_close(out.at("mean"), s.mean, "mean");
            check_close(out.at("inverse_deviation"), inverse, "inverse deviation");
        }
    }
}

TEST_CASE("LayerNormalization over rows of whole vectors computes its mean alone when only that is used") {
    const std::vector<int64_t> shape{2, 9, 208};
    const Tensor x = random_tensor(shape, 13, -1.0f, 3.0f);
    const Tensor scale = random_tensor({208}, 14);
    for (int used : {0, 1}) {
        Builder b;
        int in = b.input("x", Float(32), dims(shape));
        b.output(b.op("LayerNormalization", {in, b.constant(scale)}, {}, 3)[used], "out");
        Tensor out = compile(b.build(), get_host_target()).run({{"x", x}}).at("out");
        const std::vector<double> v = x.to_doubles();
        const Stats s = stats(v, 18, 208, 1);
        std::vector<double> expected;
        for (int64_t i = 0; i < (used == 0 ? x.elements() : 18); i++) {
            if (used == 1) {
                expected.push_back(s.mean[i]);
                continue;
            }
            expected.push_back((v[i] - s.mean[i / 208]) / std::sqrt(s.variance[i / 208] + 1e-5) *
                               scale.data<float>()[i % 208]);
        }
        check_close(out, expected, used == 0 ? "LayerNormalization" : "its mean");
    }
}

TEST_CASE("MeanVarianceNormalization normalizes over its axes, by default all but the channels") {
    const std::vector<int64_t> shape{3, 4, 9, 10};
    const Tensor x = random_tensor(shape, 12, 1.0f, 4.0f);
    const std::vector<double> v = x.to_doubles();
    Builder b;
    int in = b.input("x", Float(32), dims(shape));
    b.output(b.op1("MeanVarianceNormalization", {in}), "y");
    Tensor y = compile(b.build(), get_host_target()).run({{"x", x}}).at("y");
    std::vector<double> sum(4), squares(4);
    for (int64_t i = 0; i < x.elements(); i++) sum[i / 90 % 4] += v[i];
    for (int64_t i = 0; i < x.elements(); i++) {
        const double d = v[i] - sum[i / 90 % 4] / 270;
        squares[i / 90 % 4] += d * d;
    }
    std::vector<double> expected;
    for (int64_t i = 0; i < x.elements(); i++) {
        const int c = int(i / 90 % 4);
        expected.push_back((v[i] - sum[c] / 270) / (std::sqrt(squares[c] / 270) + 1e-9));
    }
    check_close(y, expected, "MeanVarianceNormalization");
}
