// ONNX files that are broken or ask for what is not supported: each is an error whose message names
// the file, the node or the value that is wrong, never a crash.

#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <random>

#include "tessera/graph.h"
#include "tessera/onnx.h"
#include "tests/scratch_files.h"

using namespace tessera;
using namespace tessera::graph;
namespace fs = std::filesystem;

namespace {

void add_tensor_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* values,
                      const std::string& name, int elem_type, const std::vector<int64_t>& dims) {
    onnx::ValueInfoProto* v = values->Add();
    v->set_name(name);
    onnx::TypeProto::Tensor* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& name, const std::string& op,
                          const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
    onnx::NodeProto* n = g.add_node();
    n->set_name(name);
    n->set_op_type(op);
    for (const std::string& in : inputs) n->add_input(in);
    for (const std::string& out : outputs) n->add_output(out);
    return n;
}

// y = Relu(x + bias), x: float32[2,3], bias = {1, -2, 3}: the valid model each case breaks.
onnx::ModelProto add_relu_model() {
    onnx::ModelProto m;
    m.set_ir_version(8);
    onnx::OperatorSetIdProto* opset = m.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    onnx::GraphProto& g = *m.mutable_graph();
    g.set_name("add_relu");
    add_tensor_value(g.mutable_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
    onnx::TensorProto* bias = g.add_initializer();
    bias->set_name("bias");
    bias->set_data_type(onnx::TensorProto::FLOAT);
    bias->add_dims(3);
    for (float v : {1.0f, -2.0f, 3.0f}) bias->add_float_data(v);
    add_node(g, "add", "Add", {"x", "bias"}, {"sum"});
    add_node(g, "relu", "Relu", {"sum"}, {"y"});
    add_tensor_value(g.mutable_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
    return m;
}

Graph load(const onnx::ModelProto& m) { return load_onnx_from_bytes(m.SerializeAsString(), "model.onnx"); }

void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

// doctest::Contains of a message built at run time (it takes doctest's own String).
doctest::Contains contains(const std::string& text) { return doctest::Contains(text.c_str()); }

onnx::TensorProto& bias_of(onnx::ModelProto& m) { return *m.mutable_graph()->mutable_initializer(0); }

}  // namespace

TEST_CASE("the model the error cases break loads, compiles and computes Relu(x + bias)") {
    CompiledModel model = compile(load(add_relu_model()), get_host_target());
    const Tensor y = model.run({{"x", Tensor::from<float>({2, 3}, {0, 0, 0, -2, 3, -4})}}).at("y");
    const float expected[] = {1, 0, 3, 0, 1, 0};
    for (int i = 0; i < 6; i++) CHECK_MESSAGE(y.data<float>()[i] == expected[i], "at " << i);
}

TEST_CASE("a model file cut in half is a CompileError naming the file and saying it may be truncated") {
    const fs::path dir = scratch_files::fresh_dir("onnx_errors_truncated");
    const std::string bytes = add_relu_model().SerializeAsString();
    const std::string path = (dir / "half.onnx").string();
    write_file(path, bytes.substr(0, bytes.size() / 2));
    CHECK_THROWS_WITH_AS(load_onnx(path),
                         contains(path + " is not an ONNX model (its " + std::to_string(bytes.size() / 2) +
                                  " bytes do not parse as a ModelProto; the file may be truncated)"),
                         CompileError);
}

TEST_CASE("random bytes are a CompileError saying they are not an ONNX model") {
    std::mt19937 rng(20240611);
    std::string bytes(512, '\0');
    for (char& c : bytes) c = char(rng());
    CHECK_THROWS_WITH_AS(load_onnx_from_bytes(bytes, "noise.onnx"),
                         doctest::Contains("noise.onnx is not an ONNX model"), CompileError);
}

TEST_CASE("an empty model file is a CompileError saying it is empty") {
    const fs::path dir = scratch_files::fresh_dir("onnx_errors_empty");
    const std::string path = (dir / "empty.onnx").string();
    write_file(path, "");
    CHECK_THROWS_WITH_AS(load_onnx(path), contains(path + " is empty (0 bytes), not an ONNX model"),
                         CompileError);
}

TEST_CASE("a missing model file, or a directory, is a CompileError naming the path and the reason") {
    const fs::path dir = scratch_files::fresh_dir("onnx_errors_missing");
    const std::string path = (dir / "absent.onnx").string();
    CHECK_THROWS_WITH_AS(load_onnx(path),
                         contains("cannot open the model file " + path + ": No such file or directory"),
                         CompileError);
    CHECK_THROWS_WITH_AS(load_onnx(dir.string()),
                         contains("the model file " + dir.string() + " is a directory"), CompileError);
}

TEST_CASE("an unknown operator loads, and compiling it is an UnsupportedError naming the node and the op") {
    onnx::ModelProto m = add_relu_model();
    m.mutable_graph()->mutable_node(1)->set_op_type("Frobnicate");
    const Graph g = load(m);
    CHECK_THROWS_WITH_AS(compile(g, get_host_target()),
                         doctest::Contains("node relu: the operator Frobnicate is not supported"),
                         UnsupportedError);
}

TEST_CASE("an initializer whose data does not fill its dims is a CompileError naming it and the sizes") {
    SUBCASE("raw data of 8 bytes for float32[3]") {
        onnx::ModelProto m = add_relu_model();
        bias_of(m).clear_float_data();
        bias_of(m).set_raw_data(std::string(8, '\0'));
        CHECK_THROWS_WITH_AS(
            load(m),
            doctest::Contains(
                "model.onnx: initializer bias: float32[3] needs 12 bytes of data, the file holds 8."),
            CompileError);
    }
    SUBCASE("two float values for float32[3]") {
        onnx::ModelProto m = add_relu_model();
        bias_of(m).mutable_float_data()->RemoveLast();
        CHECK_THROWS_WITH_AS(
            load(m),
            doctest::Contains("model.onnx: initializer bias: float32[3] needs 3 values, the file "
                              "holds 2 (in float_data, and no raw_data)."),
            CompileError);
    }
    SUBCASE("dims of 2^30 elements with three values, reported before anything is allocated") {
        onnx::ModelProto m = add_relu_model();
        bias_of(m).set_dims(0, int64_t(1) << 30);
        CHECK_THROWS_WITH_AS(
            load(m),
            doctest::Contains(
                "initializer bias: float32[1073741824] needs 1073741824 values, the file holds 3"),
            CompileError);
    }
    SUBCASE("dims whose product overflows 64 bits") {
        onnx::ModelProto m = add_relu_model();
        bias_of(m).set_dims(0, int64_t(1) << 39);
        bias_of(m).add_dims(int64_t(1) << 39);
        CHECK_THROWS_WITH_AS(
            load(m),
            doctest::Contains("initializer bias: float32[549755813888,549755813888] has more than "
                              "2^31 - 1 elements, the most a Tessera buffer holds."),
            CompileError);
    }
    SUBCASE("a negative dimension") {
        onnx::ModelProto m = add_relu_model();
        bias_of(m).set_dims(0, -3);
        CHECK_THROWS_WITH_AS(load(m),
                             doctest::Contains("initializer bias: float32[-3] has a negative dimension."),
                             CompileError);
    }
}

TEST_CASE("an initializer of an unsupported data type is an UnsupportedError naming it and the type") {
    for (auto [data_type, name] :
         {std::pair{onnx::TensorProto::STRING, "STRING"}, std::pair{onnx::TensorProto::FLOAT16, "FLOAT16"},
          std::pair{onnx::TensorProto::BFLOAT16, "BFLOAT16"}}) {
        CAPTURE(name);
        onnx::ModelProto m = add_relu_model();
        bias_of(m).set_data_type(data_type);
        CHECK_THROWS_WITH_AS(
            load(m), contains(std::string("initializer bias: tensors of ") + name + " are not supported"),
            UnsupportedError);
    }
}

TEST_CASE("an input of an unsupported element type or a negative dimension is an error naming the input") {
    onnx::ModelProto m = add_relu_model();
    onnx::TypeProto::Tensor* x = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type();
    x->set_elem_type(onnx::TensorProto::FLOAT16);
    CHECK_THROWS_WITH_AS(load(m),
                         doctest::Contains("model.onnx: input x holds FLOAT16, which is not supported"),
                         UnsupportedError);
    x->set_elem_type(onnx::TensorProto::FLOAT);
    x->mutable_shape()->mutable_dim(1)->set_dim_value(-3);
    CHECK_THROWS_WITH_AS(
        load(m), doctest::Contains("model.onnx: input x, declared float32[2,-3], has a negative dimension."),
        CompileError);
}

TEST_CASE("a node reading a value nothing provides is a CompileError naming the node and the value") {
    onnx::ModelProto m = add_relu_model();
    m.mutable_graph()->mutable_node(0)->set_input(1, "ghost");
    CHECK_THROWS_WITH_AS(
        load(m),
        doctest::Contains("model.onnx: node add (Add) reads ghost, which no node produces and which "
                          "is no input or initializer."),
        CompileError);
}

TEST_CASE("a graph output that nothing produces is a CompileError naming the output") {
    onnx::ModelProto m = add_relu_model();
    add_tensor_value(m.mutable_graph()->mutable_output(), "z", onnx::TensorProto::FLOAT, {2, 3});
    CHECK_THROWS_WITH_AS(
        load(m),
        doctest::Contains("model.onnx: the graph's output z is produced by no node and is no input "
                          "or initializer."),
        CompileError);
}

TEST_CASE("a cycle is a CompileError naming each node on it and the value it reads") {
    SUBCASE("through two nodes") {
        onnx::ModelProto m = add_relu_model();
        // add reads y, which relu makes from sum, which add makes.
        m.mutable_graph()->mutable_node(0)->set_input(1, "y");
        CHECK_THROWS_WITH_AS(
            load(m),
            doctest::Contains("model.onnx: the graph has a cycle: node add (Add) reads y from node "
                              "relu (Relu), which reads sum from node add (Add)."),
            CompileError);
    }
    SUBCASE("a node reading its own output") {
        onnx::ModelProto m = add_relu_model();
        m.mutable_graph()->mutable_node(1)->set_input(0, "y");
        CHECK_THROWS_WITH_AS(
            load(m),
            doctest::Contains("the graph has a cycle: node relu (Relu) reads y from node relu (Relu)."),
            CompileError);
    }
}

TEST_CASE("two producers of one value are a CompileError naming the value and both producers") {
    SUBCASE("two nodes") {
        onnx::ModelProto m = add_relu_model();
        add_node(*m.mutable_graph(), "twin", "Relu", {"x"}, {"sum"});
        CHECK_THROWS_WITH_AS(
            load(m),
            doctest::Contains(
                "model.onnx: sum is produced by two nodes, node add (Add) and node twin (Relu)."),
            CompileError);
    }
    SUBCASE("a node and an initializer") {
        onnx::ModelProto m = add_relu_model();
        m.mutable_graph()->mutable_node(1)->set_output(0, "bias");
        CHECK_THROWS_WITH_AS(
            load(m),
            doctest::Contains(
                "model.onnx: node relu (Relu) produces bias, which is already the graph's initializer"),
            CompileError);
    }
}

TEST_CASE("a node without an op_type, or a graph input or output without a name, is a CompileError") {
    onnx::ModelProto m = add_relu_model();
    m.mutable_graph()->mutable_node(1)->clear_op_type();
    CHECK_THROWS_WITH_AS(load(m), doctest::Contains("model.onnx: node relu has no op_type."), CompileError);
    m = add_relu_model();
    m.mutable_graph()->mutable_output(0)->clear_name();
    CHECK_THROWS_WITH_AS(load(m), doctest::Contains("model.onnx: the graph's output 0 has no name."),
                         CompileError);
    m = add_relu_model();
    m.mutable_graph()->mutable_input(0)->clear_name();
    CHECK_THROWS_WITH_AS(load(m), doctest::Contains("model.onnx: the graph's input 0 has no name."),
                         CompileError);
}

TEST_CASE("a node of another domain is an UnsupportedError naming the node and the domain") {
    onnx::ModelProto m = add_relu_model();
    m.mutable_graph()->mutable_node(1)->set_domain("com.example");
    CHECK_THROWS_WITH_AS(
        load(m),
        doctest::Contains("model.onnx: node relu (Relu) is of the domain com.example; only the "
                          "default ONNX domain is supported."),
        UnsupportedError);
}

TEST_CASE("a loaded model run with an input of the wrong element type is a RuntimeError naming the input") {
    CompiledModel model = compile(load(add_relu_model()), get_host_target());
    CHECK_THROWS_WITH_AS(model.run({{"x", Tensor(Int(32), {2, 3})}}),
                         doctest::Contains("input x is int32[2,3]; the model was compiled for float32[2,3]."),
                         RuntimeError);
}

TEST_CASE("a tensor file that is truncated, empty or missing is a CompileError naming the file") {
    const fs::path dir = scratch_files::fresh_dir("onnx_errors_tensor_file");
    const std::string whole = (dir / "whole.pb").string(), half = (dir / "half.pb").string(),
                      empty = (dir / "empty.pb").string(), absent = (dir / "absent.pb").string();
    write_tensor_proto(Tensor::from<float>({4, 4}, std::vector<float>(16, 1.5f)), "t", whole);
    const std::string bytes = scratch_files::read_file(whole);
    write_file(half, bytes.substr(0, bytes.size() / 2));
    write_file(empty, "");
    CHECK(read_tensor_proto(whole).shape() == std::vector<int64_t>{4, 4});
    CHECK_THROWS_WITH_AS(
        read_tensor_proto(half),
        contains(half + " is not a serialized TensorProto (its " + std::to_string(bytes.size() / 2) +
                 " bytes do not parse as one; the file may be truncated)."),
        CompileError);
    CHECK_THROWS_WITH_AS(read_tensor_proto(empty),
                         contains(empty + " is empty (0 bytes), not a serialized TensorProto."),
                         CompileError);
    CHECK_THROWS_WITH_AS(read_tensor_proto(absent),
                         contains("cannot open the tensor file " + absent + ": No such file or directory."),
                         CompileError);
}

TEST_CASE(
    "a model of opset 1 to 5 loads where its operators mean what they mean today, else names the node") {
    // Relu alone, at opset 1: its first definition is today's.
    onnx::ModelProto relu = add_relu_model();
    relu.mutable_opset_import(0)->set_version(1);
    relu.mutable_graph()->mutable_node(1)->set_input(0, "x");
    relu.mutable_graph()->mutable_node()->DeleteSubrange(0, 1);
    CompiledModel model = compile(load(relu), get_host_target());
    const Tensor y = model.run({{"x", Tensor::from<float>({2, 3}, {1, -1, 2, -2, 0, 3})}}).at("y");
    const float expected[] = {1, 0, 2, 0, 0, 3};
    for (int i = 0; i < 6; i++) CHECK_MESSAGE(y.data<float>()[i] == expected[i], "at " << i);
    // Add at opset 5 broadcast only where asked to, by attributes of its own.
    onnx::ModelProto add = add_relu_model();
    add.mutable_opset_import(0)->set_version(5);
    CHECK_THROWS_WITH_AS(load(add),
                         doctest::Contains("node add (Add): Add of opset 5 is not supported (its definition "
                                           "before opset 6 differs); export the model at opset 6 or later."),
                         UnsupportedError);
}
