// Writing a Graph as an ONNX ModelProto.

#include <fstream>

#include "graph/element_types.h"
#include "graph/onnx/tensor_proto.h"
#include "tessera/onnx.h"
#include "util/error_stream.h"

namespace tessera::graph {
namespace {

void set_value_info(onnx::ValueInfoProto& info, const Value& v) {
    info.set_name(v.name);
    onnx::TypeProto::Tensor* tensor = info.mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx_data_type_of(v.type));
    if (!v.shape_known) return;
    onnx::TensorShapeProto* shape = tensor->mutable_shape();
    for (const Dim& d : v.shape) {
        if (d.is_known())
            shape->add_dim()->set_dim_value(d.size);
        else
            shape->add_dim()->set_dim_param(d.symbol);
    }
}

void set_attribute(onnx::AttributeProto& a, const std::string& name, const Attribute& value) {
    using A = onnx::AttributeProto;
    a.set_name(name);
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, int64_t>) {
                a.set_type(A::INT), a.set_i(v);
            } else if constexpr (std::is_same_v<T, float>) {
                a.set_type(A::FLOAT), a.set_f(v);
            } else if constexpr (std::is_same_v<T, std::string>) {
                a.set_type(A::STRING), a.set_s(v);
            } else if constexpr (std::is_same_v<T, Tensor>) {
                a.set_type(A::TENSOR), *a.mutable_t() = tensor_to_proto(v, name);
            } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
                a.set_type(A::INTS);
                for (int64_t x : v) a.add_ints(x);
            } else if constexpr (std::is_same_v<T, std::vector<float>>) {
                a.set_type(A::FLOATS);
                for (float x : v) a.add_floats(x);
            } else {
                a.set_type(A::STRINGS);
                for (const std::string& x : v) a.add_strings(x);
            }
        },
        value);
}

}  // namespace

void save_onnx(const Graph& g, const std::string& path) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("tessera");
    onnx::OperatorSetIdProto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(g.opset);
    onnx::GraphProto* graph = model.mutable_graph();
    graph->set_name("tessera_graph");
    for (int id : g.inputs) set_value_info(*graph->add_input(), g.values[id]);
    for (const Value& v : g.values)
        if (v.constant.defined()) *graph->add_initializer() = tensor_to_proto(v.constant, v.name);
    for (const Node& n : g.nodes) {
        onnx::NodeProto* node = graph->add_node();
        node->set_name(n.name);
        node->set_op_type(n.op);
        for (int id : n.inputs) node->add_input(id < 0 ? "" : g.values[id].name);
        for (int id : n.outputs) node->add_output(g.values[id].name);
        for (const auto& [name, a] : n.attributes.all()) set_attribute(*node->add_attribute(), name, a);
    }
    for (int id : g.outputs) set_value_info(*graph->add_output(), g.values[id]);
    std::ofstream out(path, std::ios::binary);
    TESSERA_USER_CHECK(out) << "cannot write the model file " << path << ".";
    TESSERA_USER_CHECK(model.SerializeToOstream(&out)) << "writing " << path << " failed.";
}

}  // namespace tessera::graph
