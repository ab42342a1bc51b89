#include "graph/define_node.h"

#include <sstream>

namespace tessera::graph {

const OperatorInfo& operator_of(const Node& node) {
    const OperatorInfo* info = find_operator(node.op);
    if (!info) {
        std::ostringstream list;
        for (const std::string& name : supported_operators()) list << " " << name;
        TESSERA_UNSUPPORTED << "node " << node.name << ": the operator " << node.op
                            << " is not supported. Supported operators:" << list.str();
    }
    const int n = int(node.inputs.size());
    if (n < info->min_inputs || n > info->max_inputs) {
        TESSERA_USER_ERROR << "node " << node.name << " (" << node.op << ") has " << n << " input"
                           << (n == 1 ? "" : "s") << "; it takes " << info->min_inputs
                           << (info->max_inputs == info->min_inputs
                                   ? std::string()
                                   : " to " + (info->max_inputs > 1000 ? std::string("any number")
                                                                       : std::to_string(info->max_inputs)))
                           << ".";
    }
    return *info;
}

namespace {

// Sizes, pads and strides of windows beyond this are a malformed model, not a large one: checked
// here once, so that no operator's arithmetic on them can overflow.
constexpr int64_t largest_geometry_value = int64_t(1) << 24;

void check_geometry_attributes(const Node& node) {
    for (const char* name :
         {"pads", "strides", "dilations", "kernel_shape", "output_padding", "output_shape"}) {
        for (int64_t v : node.attributes.get_ints(name)) {
            if (v < -largest_geometry_value || v > largest_geometry_value)
                TESSERA_USER_ERROR << "node " << node.name << " (" << node.op << "): the attribute " << name
                                   << " holds " << v << ", out of the range a tensor's dimensions can have.";
        }
    }
}

}  // namespace

OpResult define_node(const Graph& g, const Node& node, const std::vector<TensorFunc>& inputs,
                     const Target& target) {
    const OperatorInfo& info = operator_of(node);
    check_geometry_attributes(node);
    OpContext ctx{node, g.opset, inputs, {}, target};
    for (int id : node.inputs)
        ctx.constant_data.push_back(id >= 0 && g.values[id].constant.defined() ? &g.values[id].constant
                                                                               : nullptr);
    OpResult result = info.define(ctx);
    if (result.outputs.size() < node.outputs.size()) {
        TESSERA_GRAPH_ERROR(ctx) << "the node has " << node.outputs.size() << " outputs; the operator makes "
                                 << result.outputs.size() << ".";
    }
    return result;
}

std::vector<int64_t> static_shape(const Value& v) {
    TESSERA_INTERNAL_CHECK(v.shape_known) << "value " << v.name << " has no shape yet";
    std::vector<int64_t> shape;
    for (const Dim& d : v.shape) {
        TESSERA_INTERNAL_CHECK(d.is_known())
            << "value " << v.name << " has the symbolic dimension " << d.symbol;
        shape.push_back(d.size);
    }
    return shape;
}

ParamTensor param_tensor(const Value& v, const std::string& name) {
    const std::vector<int64_t> shape = static_shape(v);
    ImageParam param(v.type, int(shape.size()), name);
    return {param, TensorFunc{Func(param), v.type, shape}};
}

Buffer<> buffer_view(const Tensor& t, const std::string& name) {
    std::vector<int> sizes;
    for (auto it = t.shape().rbegin(); it != t.shape().rend(); ++it) sizes.push_back(int(*it));
    return Buffer<>(t.type(), const_cast<void*>(t.data()), sizes, name);
}

}  // namespace tessera::graph
