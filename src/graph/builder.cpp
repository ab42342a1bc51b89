#include "tessera/graph.h"
#include "util/error_stream.h"

namespace tessera::graph {

std::string Builder::fresh_name(const std::string& stem) {
    std::string name;
    do name = stem + std::to_string(next_name_++);
    while (graph_.find_value(name) >= 0);
    return name;
}

int Builder::input(const std::string& name, Type type, Shape shape) {
    TESSERA_USER_CHECK(graph_.find_value(name) < 0)
        << "graph::Builder: a value named " << name << " exists already.";
    int id = graph_.add_value(Value{name, type, std::move(shape), true, {}});
    graph_.inputs.push_back(id);
    return id;
}

int Builder::constant(const Tensor& value, const std::string& name) {
    TESSERA_USER_CHECK(value.defined()) << "graph::Builder::constant of an empty Tensor.";
    const std::string n = name.empty() ? fresh_name("c") : name;
    TESSERA_USER_CHECK(graph_.find_value(n) < 0)
        << "graph::Builder: a value named " << n << " exists already.";
    Shape shape(value.shape().begin(), value.shape().end());
    return graph_.add_value(Value{n, value.type(), shape, true, value});
}

std::vector<int> Builder::op(const std::string& op_type, const std::vector<int>& inputs,
                             Attributes attributes, int num_outputs, const std::string& node_name) {
    for (int id : inputs)
        TESSERA_USER_CHECK(id >= -1 && id < int(graph_.values.size()))
            << "graph::Builder::op(" << op_type << "): input " << id << " is not a value of this graph.";
    Node node;
    node.name = node_name.empty() ? fresh_name(op_type + "_") : node_name;
    node.op = op_type;
    node.inputs = inputs;
    node.attributes = std::move(attributes);
    for (int i = 0; i < num_outputs; i++)
        node.outputs.push_back(graph_.add_value(Value{fresh_name("t"), Float(32), {}, false, {}}));
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.back().outputs;
}

void Builder::output(int value, const std::string& name) {
    TESSERA_USER_CHECK(value >= 0 && value < int(graph_.values.size()))
        << "graph::Builder::output: " << value << " is not a value of this graph.";
    if (!name.empty()) {
        TESSERA_USER_CHECK(graph_.find_value(name) < 0 || graph_.find_value(name) == value)
            << "graph::Builder::output: a value named " << name << " exists already.";
        graph_.values[value].name = name;
    }
    graph_.outputs.push_back(value);
}

int Builder::conv(int x, int weights, int bias, const ConvOptions& options) {
    Attributes a;
    if (!options.strides.empty()) a.set("strides", options.strides);
    if (!options.pads.empty()) a.set("pads", options.pads);
    if (!options.dilations.empty()) a.set("dilations", options.dilations);
    if (options.group != 1) a.set("group", options.group);
    std::vector<int> inputs{x, weights};
    if (bias >= 0) inputs.push_back(bias);
    return op1("Conv", inputs, std::move(a));
}

int Builder::batch_norm(int x, int scale, int bias, int mean, int var, float epsilon) {
    Attributes a;
    a.set("epsilon", epsilon);
    return op1("BatchNormalization", {x, scale, bias, mean, var}, std::move(a));
}

}  // namespace tessera::graph
