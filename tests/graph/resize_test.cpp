// Resize and Upsample built with graph::Builder, compiled and run, against plain C++ that maps
// every output coordinate back as ONNX's reference implementation does, in double.

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

struct Spec {
    std::string mode = "nearest";
    std::string coordinates = "half_pixel";
    std::string nearest = "round_prefer_floor";
    double cubic_a = -0.75;
    bool exclude_outside = false;
    std::vector<double> roi;  // tf_crop_and_resize's, starts then ends
    double extrapolation = 0;
    int opset = 13;  // below 11: asymmetric, floor when growing and ceil when shrinking

    Attributes attributes() const {
        Attributes a;
        a.set("mode", mode);
        if (opset >= 11) {
            a.set("coordinate_transformation_mode", coordinates);
            a.set("nearest_mode", nearest);
            a.set("cubic_coeff_a", float(cubic_a));
            a.set("exclude_outside", int64_t(exclude_outside));
            a.set("extrapolation_value", float(extrapolation));
        }
        return a;
    }
};

struct Read {
    int64_t index;
    double weight;
};

// What output coordinate o of an axis reads: the input elements and their weights, or none where
// tf_crop_and_resize maps it outside the input.
std::vector<Read> reference_reads(const Spec& s, int64_t o, int64_t in, double scale, int axis, int rank) {
    const double resized = scale * double(in);
    double x = 0;
    const std::string c = s.opset < 11 ? "asymmetric" : s.coordinates;
    if (c == "half_pixel") x = (o + 0.5) / scale - 0.5;
    if (c == "asymmetric") x = o / scale;
    if (c == "align_corners") x = resized == 1 ? 0 : o * double(in - 1) / (resized - 1);
    if (c == "pytorch_half_pixel") x = resized > 1 ? (o + 0.5) / scale - 0.5 : 0;
    if (c == "tf_crop_and_resize") {
        const double start = s.roi[axis], end = s.roi[rank + axis];
        x = resized > 1 ? o * (end - start) * (in - 1) / (resized - 1) + start * (in - 1)
                        : 0.5 * (start + end) * (in - 1);
        if (x < 0 || x > double(in - 1)) return {};
    }
    auto edge = [&](int64_t i) { return std::min(std::max<int64_t>(i, 0), in - 1); };
    const double below = std::floor(x), fraction = x - below;
    if (s.mode == "nearest") {
        bool up = false;
        if (s.opset < 11)
            up = scale < 1 ? fraction > 0 : false;
        else if (s.nearest == "round_prefer_floor")
            up = fraction > 0.5;
        else if (s.nearest == "round_prefer_ceil")
            up = fraction >= 0.5;
        else if (s.nearest == "ceil")
            up = fraction > 0;
        return {{edge(int64_t(below) + up), 1.0}};
    }
    if (fraction == 0) return {{edge(int64_t(x)), 1.0}};
    if (s.mode == "linear")
        return {{edge(int64_t(below)), 1 - fraction}, {edge(int64_t(below) + 1), fraction}};
    // cubic: the four neighbours around x
    const double A = s.cubic_a;
    std::vector<Read> reads;
    double total = 0;
    for (int t = -1; t <= 2; t++) {
        const double d = std::abs(x - (below + t));
        double w = d <= 1 ? ((A + 2) * d - (A + 3)) * d * d + 1 : ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
        const int64_t i = int64_t(below) + t;
        if (s.exclude_outside && (i < 0 || i >= in)) w = 0;
        total += w;
        reads.push_back({edge(i), w});
    }
    if (s.exclude_outside)
        for (Read& r : reads) r.weight /= total;
    return reads;
}

// The resize of x to out_shape by scales, in double.
std::vector<double> reference_resize(const Spec& s, const Tensor& x, const std::vector<int64_t>& out_shape,
                                     const std::vector<double>& scales) {
    const std::vector<int64_t>& shape = x.shape();
    const int rank = int(shape.size());
    const std::vector<double> in = x.to_doubles();
    int64_t outputs = 1;
    for (int64_t d : out_shape) outputs *= d;
    std::vector<double> out;
    for (int64_t o = 0; o < outputs; o++) {
        std::vector<std::vector<Read>> reads(rank);
        bool outside = false;
        for (int d = rank - 1, rest = int(o); d >= 0; d--) {
            reads[d] = reference_reads(s, rest % out_shape[d], shape[d], scales[d], d, rank);
            outside = outside || reads[d].empty();
            rest /= int(out_shape[d]);
        }
        if (outside) {
            out.push_back(s.extrapolation);
            continue;
        }
        double value = 0;
        std::vector<size_t> pick(rank, 0);
        for (bool more = true; more;) {
            double w = 1;
            int64_t offset = 0;
            for (int d = 0; d < rank; d++) {
                w *= reads[d][pick[d]].weight;
                offset = offset * shape[d] + reads[d][pick[d]].index;
            }
            value += w * in[offset];
            int d = rank - 1;
            while (d >= 0 && ++pick[d] == reads[d].size()) pick[d--] = 0;
            more = d >= 0;
        }
        out.push_back(value);
    }
    return out;
}

void check_close(const Tensor& y, const std::vector<double>& expected, const std::string& what) {
    const std::vector<double> got = y.to_doubles();
    REQUIRE(got.size() == expected.size());
    int wrong = 0;
    for (size_t i = 0; i < got.size() && wrong < 5; i++) {
        const bool close = std::abs(got[i] - expected[i]) <= 1e-5 + 1e-5 * std::abs(expected[i]);
        wrong += !close;
        CHECK_MESSAGE(close, what << " element " << i << ": " << got[i] << ", expected " << expected[i]);
    }
}

Tensor run_graph(Graph g, int opset, const std::map<std::string, Tensor>& inputs) {
    g.opset = opset;
    return compile(g, get_host_target()).run(inputs).at("y");
}

int roi_input(Builder& b, const Spec& s) {
    if (s.roi.empty()) return -1;
    const std::vector<float> roi(s.roi.begin(), s.roi.end());
    return b.constant(Tensor::from<float>({int64_t(roi.size())}, roi));
}

// Resize of x by scales (when sizes is empty) or to sizes; checks against the reference.
void check_resize(const Spec& s, const std::vector<int64_t>& shape, std::vector<double> scales,
                  const std::vector<int64_t>& sizes, uint32_t seed) {
    const Tensor x = random_tensor(shape, seed);
    Builder b;
    const int in = b.input("x", Float(32), Shape(shape.begin(), shape.end()));
    std::vector<int64_t> out_shape;
    std::vector<int> inputs = {in};
    if (sizes.empty()) {
        std::vector<float> s32(scales.begin(), scales.end());
        for (size_t d = 0; d < shape.size(); d++) {
            scales[d] = s32[d];  // the reference maps with the float32 scale the model holds
            out_shape.push_back(int64_t(std::floor(double(shape[d]) * scales[d])));
        }
        if (s.opset >= 11) inputs.push_back(roi_input(b, s));
        inputs.push_back(b.constant(Tensor::from<float>({int64_t(s32.size())}, s32)));
    } else {
        out_shape = sizes;
        for (size_t d = 0; d < shape.size(); d++) scales.push_back(double(sizes[d]) / double(shape[d]));
        inputs.push_back(roi_input(b, s));
        inputs.push_back(-1);
        inputs.push_back(b.constant(Tensor::from<int64_t>({int64_t(sizes.size())}, sizes)));
    }
    b.output(b.op1("Resize", inputs, s.attributes()), "y");
    const Tensor y = run_graph(b.build(), s.opset, {{"x", x}});
    REQUIRE(y.shape() == out_shape);
    check_close(y, reference_resize(s, x, out_shape, scales), s.mode + " " + s.coordinates);
}

}  // namespace

TEST_CASE("nearest Resize matches the reference in every coordinate and rounding mode") {
    const std::vector<int64_t> shape = {1, 3, 20, 37};
    for (const char* coordinates : {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"}) {
        for (const char* rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})
            check_resize(Spec{"nearest", coordinates, rounding}, shape, {1, 1, 3, 0.5}, {}, 1);
        // No short pattern: coordinates computed per element.
        check_resize(Spec{"nearest", coordinates}, shape, {}, {1, 3, 29, 23}, 2);
    }
    // PaddleOCR's upsampling, exported both ways.
    check_resize(Spec{"nearest", "asymmetric", "floor"}, shape, {1, 1, 2, 2}, {}, 3);
    check_resize(Spec{"nearest", "half_pixel", "round_prefer_floor"}, shape, {1, 1, 2, 2}, {}, 4);
}

TEST_CASE("linear Resize interpolates over the axes whose scale is not 1") {
    const std::vector<int64_t> shape = {2, 3, 12, 21};
    for (const char* coordinates : {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"}) {
        Spec s{"linear", coordinates};
        check_resize(s, shape, {1, 1, 2, 2}, {}, 10);
        check_resize(s, shape, {1, 1, 0.5, 0.5}, {}, 11);
        check_resize(s, shape, {1, 1, 1.7, 1}, {}, 12);
        check_resize(s, shape, {}, {2, 3, 5, 40}, 13);
        check_resize(s, shape, {1, 2, 2, 1}, {}, 14);  // trilinear, over channels too
    }
}

TEST_CASE("cubic Resize, with exclude_outside and another coefficient") {
    Spec s{"cubic"};
    check_resize(s, {1, 2, 9, 19}, {1, 1, 2, 2}, {}, 20);
    check_resize(s, {1, 2, 9, 19}, {}, {1, 2, 4, 7}, 21);
    s.exclude_outside = true;
    s.cubic_a = -0.5;
    check_resize(s, {1, 2, 9, 19}, {1, 1, 1.5, 2.5}, {}, 22);
    s.coordinates = "align_corners";
    check_resize(s, {1, 2, 9, 19}, {1, 1, 0.6, 0.8}, {}, 23);
}

TEST_CASE("tf_crop_and_resize reads the extrapolation value outside the region of interest") {
    Spec s{"linear", "tf_crop_and_resize"};
    s.roi = {0, 0, 0.2, -0.1, 1, 1, 0.9, 1.3};
    s.extrapolation = 10;
    check_resize(s, {1, 2, 8, 9}, {}, {1, 2, 5, 11}, 30);
    s.mode = "nearest";
    check_resize(s, {1, 2, 8, 9}, {}, {1, 2, 5, 11}, 31);
}

TEST_CASE("opset 10's Resize and Upsample map asymmetrically, flooring up and ceiling down") {
    Spec s{"nearest"};
    s.opset = 10;
    check_resize(s, {1, 2, 7, 19}, {1, 1, 2, 3}, {}, 40);
    check_resize(s, {1, 2, 7, 19}, {1, 1, 0.5, 0.7}, {}, 41);
    s.mode = "linear";
    check_resize(s, {1, 2, 7, 19}, {1, 1, 2, 1.5}, {}, 42);

    const Tensor x = random_tensor({1, 2, 5, 17}, 43);
    for (int opset : {7, 9}) {
        Builder b;
        const int in = b.input("x", Float(32), {1, 2, 5, 17});
        Attributes a;
        a.set("mode", std::string("nearest"));
        std::vector<int> inputs = {in};
        if (opset == 7)
            a.set("scales", std::vector<float>{1, 1, 2, 3});
        else
            inputs.push_back(b.constant(Tensor::from<float>({4}, {1, 1, 2, 3})));
        b.output(b.op1("Upsample", inputs, a), "y");
        const Tensor y = run_graph(b.build(), opset, {{"x", x}});
        REQUIRE(y.shape() == std::vector<int64_t>{1, 2, 10, 51});
        Spec legacy{"nearest"};
        legacy.opset = 9;
        check_close(y, reference_resize(legacy, x, {1, 2, 10, 51}, {1, 1, 2, 3}), "Upsample");
    }
}

TEST_CASE("a nearest x2 Resize followed by an Add computes the sum, fused or not") {
    const std::vector<int64_t> small = {1, 5, 16, 35}, large = {1, 5, 32, 70};
    const Tensor x = random_tensor(small, 50), z = random_tensor(large, 51);
    Builder b;
    const int in = b.input("x", Float(32), {1, 5, 16, 35});
    const int other = b.input("z", Float(32), {1, 5, 32, 70});
    Attributes a;
    a.set("mode", std::string("nearest"));
    a.set("coordinate_transformation_mode", std::string("asymmetric"));
    a.set("nearest_mode", std::string("floor"));
    const int up = b.op1("Resize", {in, -1, b.constant(Tensor::from<float>({4}, {1, 1, 2, 2}))}, a);
    b.output(b.add(other, up), "y");
    Graph g = b.build();
    g.opset = 13;
    for (bool fuse : {true, false}) {
        CompileOptions options;
        options.fuse = fuse;
        const Tensor y = compile(g, get_host_target(), options).run({{"x", x}, {"z", z}}).at("y");
        REQUIRE(y.shape() == large);
        const float *xs = x.data<float>(), *zs = z.data<float>(), *ys = y.data<float>();
        for (int64_t c = 0; c < 5; c++)
            for (int64_t h = 0; h < 32; h++)
                for (int64_t w = 0; w < 70; w++) {
                    const int64_t o = (c * 32 + h) * 70 + w;
                    CHECK(ys[o] == zs[o] + xs[(c * 16 + h / 2) * 35 + w / 2]);
                }
    }
}

TEST_CASE("Resize's invalid and unsupported attributes name the node") {
    Builder b;
    const int in = b.input("x", Float(32), {1, 1, 4, 4});
    const int scales = b.constant(Tensor::from<float>({4}, {1, 1, 2, 2}));
    const int sizes = b.constant(Tensor::from<int64_t>({4}, {1, 1, 8, 8}));
    Attributes antialias_on;
    antialias_on.set("antialias", int64_t(1));
    Attributes bad_mode;
    bad_mode.set("mode", std::string("area"));
    b.output(b.op1("Resize", {in, -1, scales, sizes}), "both");
    Graph both = b.build();
    both.opset = 13;
    CHECK_THROWS_WITH_AS(compile(both, get_host_target()), doctest::Contains("either scales or sizes"),
                         CompileError);

    Builder c;
    const int x = c.input("x", Float(32), {1, 1, 4, 4});
    c.output(c.op1("Resize", {x, -1, c.constant(Tensor::from<float>({4}, {1, 1, 2, 2}))}, bad_mode), "y");
    Graph mode = c.build();
    mode.opset = 13;
    CHECK_THROWS_WITH_AS(compile(mode, get_host_target()),
                         doctest::Contains("mode is area; it must be one of"), CompileError);

    Builder d;
    const int x2 = d.input("x", Float(32), {1, 1, 4, 4});
    d.output(d.op1("Resize", {x2, -1, d.constant(Tensor::from<float>({4}, {1, 1, 2, 2}))}, antialias_on),
             "y");
    Graph antialias = d.build();
    antialias.opset = 18;
    CHECK_THROWS_WITH_AS(compile(antialias, get_host_target()),
                         doctest::Contains("antialias is not supported"), UnsupportedError);
}

TEST_CASE("opset 18's axes and keep_aspect_ratio_policy resize only the axes listed") {
    const Tensor x = random_tensor({1, 2, 5, 9}, 60);
    for (const char* policy : {"stretch", "not_larger", "not_smaller"}) {
        Builder b;
        const int in = b.input("x", Float(32), {1, 2, 5, 9});
        Spec s{"linear", "asymmetric"};
        Attributes a = s.attributes();
        a.set("axes", std::vector<int64_t>{2, -1});
        a.set("keep_aspect_ratio_policy", std::string(policy));
        const int sizes = b.constant(Tensor::from<int64_t>({2}, {7, 100}));
        b.output(b.op1("Resize", {in, -1, -1, sizes}, a), "y");
        const Tensor y = run_graph(b.build(), 18, {{"x", x}});
        // stretch: 7 and 100; not_larger: both by 7 / 5; not_smaller: both by 100 / 9.
        const double common = std::string(policy) == "not_larger" ? 7.0 / 5 : 100.0 / 9;
        const std::vector<int64_t> out_shape =
            std::string(policy) == "stretch" ? std::vector<int64_t>{1, 2, 7, 100}
                                             : std::vector<int64_t>{1, 2, int64_t(std::round(5 * common)),
                                                                    int64_t(std::round(9 * common))};
        const std::vector<double> scales = std::string(policy) == "stretch"
                                               ? std::vector<double>{1, 1, 7.0 / 5, 100.0 / 9}
                                               : std::vector<double>{1, 1, common, common};
        REQUIRE(y.shape() == out_shape);
        check_close(y, reference_resize(s, x, out_shape, scales), policy);
    }
}
