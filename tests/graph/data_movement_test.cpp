// Shape and data-movement operators built with graph::Builder, compared element by element with
// plain C++ on random inputs whose sizes are not multiples of vector widths.

#include <doctest/doctest.h>

#include <functional>
#include <limits>
#include <random>

#include "tessera/graph.h"
#include "test_tensors.h"

using namespace tessera;
using namespace tessera::graph;
using graph_tests::random_tensor;
using graph_tests::same_bits;

namespace {

using Index = std::vector<int64_t>;

Tensor ints(const std::vector<int64_t>& values) {
    return Tensor::from<int64_t>({int64_t(values.size())}, values);
}

Attributes attributes(std::initializer_list<std::pair<const char*, Attribute>> values) {
    Attributes a;
    for (const auto& [name, value] : values) a.set(name, value);
    return a;
}

int64_t ravel(const Index& index, const std::vector<int64_t>& shape) {
    int64_t flat = 0;
    for (size_t i = 0; i < shape.size(); i++) flat = flat * shape[i] + index[i];
    return flat;
}

Index unravel(int64_t flat, const std::vector<int64_t>& shape) {
    Index index(shape.size());
    for (size_t i = shape.size(); i-- > 0;) {
        index[i] = flat % shape[i];
        flat /= shape[i];
    }
    return index;
}

float element(const Tensor& t, const Index& index) { return t.data<float>()[ravel(index, t.shape())]; }

std::string text(const Index& index) {
    std::string s;
    for (size_t i = 0; i < index.size(); i++) s += (i ? "," : "") + std::to_string(index[i]);
    return s;
}

// Every element of out, of the given shape, against expected(index).
void check_elements(const Tensor& out, const std::vector<int64_t>& shape,
                    const std::function<double(const Index&)>& expected) {
    REQUIRE(out.shape() == shape);
    const std::vector<double> values = out.to_doubles();
    for (int64_t i = 0; i < out.elements(); i++) {
        const Index index = unravel(i, shape);
        CHECK_MESSAGE(values[i] == doctest::Approx(expected(index)).epsilon(1e-6), "at " << text(index));
    }
}

std::map<std::string, Tensor> run(const Graph& g, const std::map<std::string, Tensor>& inputs,
                                  bool fuse = true) {
    CompileOptions options;
    for (const auto& [name, t] : inputs) options.input_shapes[name] = t.shape();
    options.fuse = fuse;
    return compile(g, get_host_target(), options).run(inputs);
}

}  // namespace

TEST_CASE(
    "Reshape, Flatten, Squeeze and Unsqueeze of a tensor computed in the same group read the element "
    "of the same row-major position") {
    Builder b;
    int x = b.input("x", Float(32), {3, 5, 7});
    int r = b.op1("Reshape", {b.relu(x), b.constant(ints({7, 0, -1}))});  // [7, 5, 3]
    int f = b.op1("Flatten", {r}, attributes({{"axis", int64_t(2)}}));    // [35, 3]
    int u = b.op1("Unsqueeze", {f, b.constant(ints({0, -2}))});           // [1, 35, 1, 3]
    int s = b.op1("Squeeze", {u, b.constant(ints({0}))});                 // [35, 1, 3]
    b.output(b.op1("Neg", {s}), "y");
    const Tensor in = random_tensor({3, 5, 7}, 1);
    for (bool fuse : {false, true}) {
        CompileOptions options;
        options.fuse = fuse;
        CompiledModel model = compile(b.build(), get_host_target(), options);
        if (fuse) CHECK(model.groups() == 1);
        const Tensor out = model.run({{"x", in}}).at("y");
        check_elements(out, {35, 1, 3}, [&](const Index& i) {
            return -std::max(0.0f, in.data<float>()[ravel(i, {35, 1, 3})]);
        });
    }
}

TEST_CASE("a Reshape that splits and merges dimensions inside a group follows the row-major order") {
    Builder b;
    int x = b.input("x", Float(32), {6, 35});
    int t = b.op1("Transpose", {x}, attributes({{"perm", std::vector<int64_t>{1, 0}}}));  // [35, 6]
    int r = b.op1("Reshape", {t, b.constant(ints({5, 7, 2, 3}))});
    b.output(b.op1("Reshape", {b.relu(r), b.constant(ints({10, 21}))}), "y");
    const Tensor in = random_tensor({6, 35}, 2);
    const Tensor out = run(b.build(), {{"x", in}}).at("y");
    check_elements(out, {10, 21}, [&](const Index& i) {
        const Index at = unravel(ravel(i, {10, 21}), {35, 6});  // in the transposed tensor
        return std::max(0.0f, element(in, {at[1], at[0]}));
    });
}

TEST_CASE("Transpose and Concat along an inner axis place every input's elements") {
    Builder b;
    int x = b.input("x", Float(32), {3, 5, 7});
    int t = b.op1("Transpose", {x}, attributes({{"perm", std::vector<int64_t>{2, 0, 1}}}));  // [7, 3, 5]
    const Tensor c = random_tensor({7, 3, 2}, 3);
    int y = b.op1("Concat", {t, b.constant(c), b.relu(t)}, attributes({{"axis", int64_t(-1)}}));
    b.output(y, "y");
    const Tensor in = random_tensor({3, 5, 7}, 4);
    for (bool fuse : {false, true}) {
        const Tensor out = run(b.build(), {{"x", in}}, fuse).at("y");
        check_elements(out, {7, 3, 12}, [&](const Index& i) {
            const float v = i[2] < 5   ? element(in, {i[1], i[2], i[0]})
                            : i[2] < 7 ? element(c, {i[0], i[1], i[2] - 5})
                                       : std::max(0.0f, element(in, {i[1], i[2] - 7, i[0]}));
            return double(v);
        });
    }
}

TEST_CASE("Slice clamps starts and ends and takes negative steps; Split cuts uneven parts") {
    Builder b;
    int x = b.input("x", Float(32), {6, 11});
    const int64_t lowest = std::numeric_limits<int64_t>::min();
    int s = b.op1("Slice", {x, b.constant(ints({-1, 1})), b.constant(ints({lowest, 1000})),
                            b.constant(ints({0, -1})), b.constant(ints({-2, 3}))});
    b.output(s, "s");
    std::vector<int> parts =
        b.op("Split", {b.relu(x), b.constant(ints({4, 0, 7}))}, attributes({{"axis", int64_t(1)}}), 3);
    b.output(parts[0], "a");
    b.output(parts[2], "c");
    const Tensor in = random_tensor({6, 11}, 5);
    std::map<std::string, Tensor> out = run(b.build(), {{"x", in}});
    // Rows 5, 3, 1 and columns 1, 4, 7, 10.
    check_elements(out.at("s"), {3, 4}, [&](const Index& i) {
        return element(in, {5 - 2 * i[0], 1 + 3 * i[1]});
    });
    check_elements(out.at("a"), {6, 4}, [&](const Index& i) { return std::max(0.0f, element(in, i)); });
    check_elements(out.at("c"), {6, 7}, [&](const Index& i) {
        return std::max(0.0f, element(in, {i[0], i[1] + 4}));
    });
}

TEST_CASE("Slice in the attribute form of opsets before 10") {
    Builder b;
    int x = b.input("x", Float(32), {4, 9});
    b.output(b.op1("Slice", {x},
                   attributes({{"starts", std::vector<int64_t>{2}},
                               {"ends", std::vector<int64_t>{-1}},
                               {"axes", std::vector<int64_t>{1}}})),
             "y");
    Graph g = b.build();
    g.opset = 9;
    const Tensor in = random_tensor({4, 9}, 6);
    check_elements(run(g, {{"x", in}}).at("y"), {4, 6}, [&](const Index& i) {
        return element(in, {i[0], i[1] + 2});
    });
}

TEST_CASE("Gather and GatherElements count negative indices from the end") {
    Builder b;
    int x = b.input("x", Float(32), {5, 7});
    const Tensor indices = Tensor::from<int64_t>({2, 3}, {-1, 0, 6, 2, -7, 3});
    b.output(b.op1("Gather", {x, b.constant(indices)}, attributes({{"axis", int64_t(1)}})), "g");
    int e = b.input("e", Int(32), {3, 7});
    b.output(b.op1("GatherElements", {x, e}, attributes({{"axis", int64_t(0)}})), "ge");
    const Tensor in = random_tensor({5, 7}, 7);
    Tensor element_indices(Int(32), {3, 7});
    for (int i = 0; i < 21; i++) element_indices.data<int32_t>()[i] = (i * 3) % 10 - 5;  // in [-5, 4]
    std::map<std::string, Tensor> out = run(b.build(), {{"x", in}, {"e", element_indices}});
    check_elements(out.at("g"), {5, 2, 3}, [&](const Index& i) {
        const int64_t k = indices.data<int64_t>()[i[1] * 3 + i[2]];
        return element(in, {i[0], k < 0 ? k + 7 : k});
    });
    check_elements(out.at("ge"), {3, 7}, [&](const Index& i) {
        const int64_t k = element_indices.data<int32_t>()[i[0] * 7 + i[1]];
        return element(in, {k < 0 ? k + 5 : k, i[1]});
    });
}

TEST_CASE(
    "Gather clamps an index read from data that lies outside the axis instead of reading out of bounds") {
    Builder b;
    int x = b.input("x", Float(32), {4, 3});
    int indices = b.input("i", Int(64), {3});
    b.output(b.op1("Gather", {x, indices}), "y");
    const Tensor in = random_tensor({4, 3}, 8);
    const Tensor out = run(b.build(), {{"x", in}, {"i", ints({100, -100, 2})}}).at("y");
    const int64_t rows[] = {3, 0, 2};
    check_elements(out, {3, 3}, [&](const Index& i) { return element(in, {rows[i[0]], i[1]}); });
}

TEST_CASE("Pad in constant, reflect, edge and wrap modes, with pads from an input or an attribute") {
    const Tensor in = random_tensor({4, 5}, 9);
    // Reflection without repeating the edge, as numpy's pad does.
    auto reflect = [](int64_t i, int64_t n) {
        const int64_t period = 2 * (n - 1);
        int64_t j = ((i % period) + period) % period;
        return j < n ? j : period - j;
    };
    struct Case {
        std::string mode;
        std::vector<int64_t> pads;
        bool attribute_form;
    };
    for (const Case& c : {Case{"reflect", {2, 3, 3, 4}, false}, Case{"edge", {1, 6, 3, 2}, false},
                          Case{"constant", {-1, 2, 1, -2}, false}, Case{"constant", {1, 0, 2, 3}, true},
                          Case{"wrap", {5, 1, 2, 11}, false}}) {
        CAPTURE(c.mode);
        Builder b;
        int x = b.input("x", Float(32), {4, 5});
        int y;
        if (c.attribute_form) {
            y = b.op1("Pad", {b.relu(x)}, attributes({{"mode", c.mode}, {"pads", c.pads}, {"value", 1.5f}}));
        } else {
            y = b.op1("Pad", {b.relu(x), b.constant(ints(c.pads)), b.constant(Tensor::scalar<float>(1.5f))},
                      attributes({{"mode", c.mode}}));
        }
        b.output(y, "y");
        Graph g = b.build();
        if (c.attribute_form) g.opset = 10;
        const std::vector<int64_t> shape = {4 + c.pads[0] + c.pads[2], 5 + c.pads[1] + c.pads[3]};
        check_elements(run(g, {{"x", in}}).at("y"), shape, [&](const Index& i) {
            int64_t r = i[0] - c.pads[0], k = i[1] - c.pads[1];
            if (c.mode == "constant" && (r < 0 || r >= 4 || k < 0 || k >= 5)) return 1.5;
            if (c.mode == "reflect") r = reflect(r, 4), k = reflect(k, 5);
            if (c.mode == "edge") r = std::clamp<int64_t>(r, 0, 3), k = std::clamp<int64_t>(k, 0, 4);
            if (c.mode == "wrap") r = (r % 4 + 4) % 4, k = (k % 5 + 5) % 5;
            return double(std::max(0.0f, element(in, {r, k})));
        });
    }
}

TEST_CASE("Expand broadcasts both ways and Tile repeats") {
    Builder b;
    int x = b.input("x", Float(32), {3, 1, 5});
    b.output(b.op1("Expand", {x, b.constant(ints({2, 1, 4, 1}))}), "e");
    b.output(b.op1("Tile", {b.relu(x), b.constant(ints({2, 3, 1}))}), "t");
    const Tensor in = random_tensor({3, 1, 5}, 10);
    std::map<std::string, Tensor> out = run(b.build(), {{"x", in}});
    check_elements(out.at("e"), {2, 3, 4, 5}, [&](const Index& i) { return element(in, {i[1], 0, i[3]}); });
    check_elements(out.at("t"), {6, 3, 5}, [&](const Index& i) {
        return std::max(0.0f, element(in, {i[0] % 3, 0, i[2]}));
    });
}

TEST_CASE("DepthToSpace in DCR and CRD modes, and SpaceToDepth") {
    const Tensor in = random_tensor({2, 8, 3, 5}, 11);
    for (const std::string mode : {"DCR", "CRD"}) {
        CAPTURE(mode);
        Builder b;
        int x = b.input("x", Float(32), {2, 8, 3, 5});
        b.output(b.op1("DepthToSpace", {x}, attributes({{"blocksize", int64_t(2)}, {"mode", mode}})), "y");
        check_elements(run(b.build(), {{"x", in}}).at("y"), {2, 2, 6, 10}, [&](const Index& i) {
            const int64_t bi = i[2] % 2, bj = i[3] % 2;
            const int64_t c = mode == "DCR" ? (bi * 2 + bj) * 2 + i[1] : i[1] * 4 + bi * 2 + bj;
            return element(in, {i[0], c, i[2] / 2, i[3] / 2});
        });
    }
    const Tensor image = random_tensor({2, 3, 6, 9}, 12);
    Builder b;
    int x = b.input("x", Float(32), {2, 3, 6, 9});
    b.output(b.op1("SpaceToDepth", {x}, attributes({{"blocksize", int64_t(3)}})), "y");
    check_elements(run(b.build(), {{"x", image}}).at("y"), {2, 27, 2, 3}, [&](const Index& i) {
        const int64_t block = i[1] / 3, c = i[1] % 3;
        return element(image, {i[0], c, i[2] * 3 + block / 3, i[3] * 3 + block % 3});
    });
}

TEST_CASE("Shape, Size, Constant, ConstantOfShape and Range are computed at compile time") {
    Builder b;
    int x = b.input("x", Float(32), {"N", 6});
    int rows = b.op1("Shape", {x}, attributes({{"end", int64_t(1)}}));
    int shape = b.op1(
        "Concat", {rows, b.op1("Constant", {}, attributes({{"value_ints", std::vector<int64_t>{3, -1}}}))},
        attributes({{"axis", int64_t(0)}}));
    int r = b.op1("Reshape", {x, shape});  // [N, 3, 2]
    int halves = b.op1("ConstantOfShape", {b.constant(ints({2}))},
                       attributes({{"value", Tensor::from<float>({1}, {0.5f})}}));
    int steps = b.op1("Range", {b.constant(Tensor::scalar<float>(0)), b.constant(Tensor::scalar<float>(2)),
                                b.constant(Tensor::scalar<float>(1))});
    int size = b.op1("Cast", {b.op1("Size", {x})}, attributes({{"to", int64_t(1)}}));
    b.output(b.add(b.add(b.add(r, halves), steps), size), "y");
    CompileOptions options;
    options.input_shapes = {{"N", {5}}};
    CompiledModel model = compile(b.build(), get_host_target(), options);
    CHECK(model.optimized_graph().to_string().find("Shape(") == std::string::npos);
    const Tensor in = random_tensor({5, 6}, 13);
    check_elements(model.run({{"x", in}}).at("y"), {5, 3, 2}, [&](const Index& i) {
        return double(in.data<float>()[ravel(i, {5, 3, 2})]) + 0.5 + double(i[2]) + 30;
    });
}

TEST_CASE("Trilu, EyeLike and Dropout") {
    Builder b;
    int x = b.input("x", Float(32), {3, 4, 5});
    b.output(
        b.op1("Trilu", {x, b.constant(Tensor::scalar<int64_t>(-1))}, attributes({{"upper", int64_t(0)}})),
        "lower");
    b.output(b.op1("Trilu", {b.relu(x)}), "upper");
    int m = b.input("m", Float(32), {4, 5});
    b.output(b.add(m, b.op1("EyeLike", {m}, attributes({{"k", int64_t(1)}}))), "eye");
    std::vector<int> dropped = b.op("Dropout", {m, b.constant(Tensor::scalar<float>(0.3f))}, {}, 2);
    b.output(dropped[0], "dropped");
    b.output(dropped[1], "mask");
    const Tensor in = random_tensor({3, 4, 5}, 14), matrix = random_tensor({4, 5}, 15);
    std::map<std::string, Tensor> out = run(b.build(), {{"x", in}, {"m", matrix}});
    check_elements(out.at("lower"), {3, 4, 5},
                   [&](const Index& i) { return i[2] - i[1] <= -1 ? element(in, i) : 0.0f; });
    check_elements(out.at("upper"), {3, 4, 5},
                   [&](const Index& i) { return i[2] - i[1] >= 0 ? std::max(0.0f, element(in, i)) : 0.0f; });
    check_elements(out.at("eye"), {4, 5},
                   [&](const Index& i) { return element(matrix, i) + (i[1] - i[0] == 1); });
    check_elements(out.at("dropped"), {4, 5}, [&](const Index& i) { return element(matrix, i); });
    CHECK(out.at("mask").type() == Bool());
    check_elements(out.at("mask"), {4, 5}, [](const Index&) { return 1.0; });
}

TEST_CASE(
    "a shape that does not fit is a CompileError and an unknown Pad mode is unsupported, both naming the "
    "node") {
    Builder b;
    int x = b.input("x", Float(32), {4, 5});
    b.output(b.op("Reshape", {x, b.constant(ints({3, -1}))}, {}, 1, "squash")[0], "y");
    CHECK_THROWS_WITH_AS(compile(b.build(), get_host_target()),
                         doctest::Contains("node squash (Reshape): cannot reshape [4,5] to [3,-1]"),
                         CompileError);
    Builder p;
    int z = p.input("x", Float(32), {4, 5});
    p.output(p.op("Pad", {z, p.constant(ints({1, 1, 1, 1}))}, attributes({{"mode", std::string("mirror")}}),
                  1, "pad")[0],
             "y");
    CHECK_THROWS_WITH_AS(compile(p.build(), get_host_target()),
                         doctest::Contains("node pad (Pad): mode mirror is not supported"), UnsupportedError);
}
