// Reading an ONNX ModelProto into a Graph, checking that it is consistent.

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "graph/element_types.h"
#include "graph/onnx/tensor_proto.h"
#include "graph/ops/operator.h"
#include "tessera/onnx.h"
#include "util/error_stream.h"

namespace tessera::graph {
namespace {

constexpr int64_t min_opset = 6, max_opset = 18;

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

class Importer {
public:
    explicit Importer(std::string source) : source_(std::move(source)) {}

    Graph import(const onnx::ModelProto& model) {
        read_opset(model);
        const onnx::GraphProto& graph = model.graph();
        for (const onnx::TensorProto& init : graph.initializer()) add_initializer(init);
        for (const onnx::ValueInfoProto& input : graph.input())
            if (g_.find_value(input.name()) < 0) add_input(input);
        std::vector<int> order = topological_order(graph);
        for (int i : order) add_node(graph.node(i), i);
        for (const onnx::ValueInfoProto& output : graph.output()) {
            const int id = g_.find_value(output.name());
            TESSERA_USER_CHECK(id >= 0) << source_ << ": the graph's output " << output.name()
                                        << " is produced by no node and is no input or initializer.";
            g_.outputs.push_back(id);
        }
        TESSERA_USER_CHECK(!g_.outputs.empty()) << source_ << ": the graph has no outputs.";
        return g_;
    }

private:
    void read_opset(const onnx::ModelProto& model) {
        bool found = false;
        for (const onnx::OperatorSetIdProto& op_set : model.opset_import()) {
            if (!is_default_domain(op_set.domain())) continue;
            found = true;
            g_.opset = int(op_set.version());
        }
        if (!found)
            TESSERA_UNSUPPORTED << source_ << ": the model imports no opset of the default ONNX domain.";
        if (g_.opset < min_opset || g_.opset > max_opset)
            TESSERA_UNSUPPORTED << source_ << ": opset " << g_.opset << " is not supported (" << min_opset
                                << " to " << max_opset << " are).";
    }

    void add_initializer(const onnx::TensorProto& init) {
        TESSERA_USER_CHECK(!init.name().empty()) << source_ << ": an initializer has no name.";
        TESSERA_USER_CHECK(g_.find_value(init.name()) < 0)
            << source_ << ": two initializers are named " << init.name() << ".";
        Tensor t = tensor_from_proto(init, source_ + ": initializer " + init.name());
        g_.add_value(Value{init.name(), t.type(), Shape(t.shape().begin(), t.shape().end()), true, t});
    }

    void add_input(const onnx::ValueInfoProto& input) {
        const std::string where = source_ + ": input " + input.name();
        if (!input.type().has_tensor_type())
            TESSERA_UNSUPPORTED << where << " is not a tensor (sequences and maps are not supported).";
        const onnx::TypeProto::Tensor& tensor = input.type().tensor_type();
        std::optional<Type> type = type_of_onnx_data_type(tensor.elem_type());
        if (!type)
            TESSERA_UNSUPPORTED
                << where << " holds " << onnx_data_type_name(tensor.elem_type())
                << ", which is not supported (float32, float64, the integer types and bool are).";
        Value v{input.name(), *type, {}, tensor.has_shape(), {}};
        for (const onnx::TensorShapeProto::Dimension& d : tensor.shape().dim())
            v.shape.push_back(d.has_dim_value() ? Dim(d.dim_value()) : Dim(d.dim_param()));
        g_.inputs.push_back(g_.add_value(std::move(v)));
    }

    // ONNX asks for nodes in topological order; some exporters do not quite keep it.
    std::vector<int> topological_order(const onnx::GraphProto& graph) {
        std::map<std::string, int> producer;
        for (int i = 0; i < graph.node_size(); i++)
            for (const std::string& out : graph.node(i).output()) {
                if (out.empty()) continue;
                TESSERA_USER_CHECK(!producer.count(out) && g_.find_value(out) < 0)
                    << source_ << ": " << out << " is produced twice (by node " << node_name(graph.node(i), i)
                    << ").";
                producer[out] = i;
            }
        // Depth first, with a stack of its own: a long chain of nodes must not overflow the C++ stack.
        std::vector<int> state(graph.node_size(), 0), order;  // 0 unvisited, 1 on the stack, 2 done
        for (int root = 0; root < graph.node_size(); root++) {
            std::vector<std::pair<int, int>> stack;  // node, next input to look at
            if (state[root] == 0) stack.push_back({root, 0});
            state[root] = std::max(state[root], 1);
            while (!stack.empty()) {
                auto& [i, next] = stack.back();
                const onnx::NodeProto& node = graph.node(i);
                if (next == node.input_size()) {
                    state[i] = 2;
                    order.push_back(i);
                    stack.pop_back();
                    continue;
                }
                const std::string& in = node.input(next++);
                if (in.empty()) continue;
                auto it = producer.find(in);
                if (it == producer.end()) {
                    TESSERA_USER_CHECK(g_.find_value(in) >= 0)
                        << source_ << ": node " << node_name(node, i) << " (" << node.op_type() << ") reads "
                        << in << ", which no node produces and which is no input or initializer.";
                    continue;
                }
                const int p = it->second;
                TESSERA_USER_CHECK(state[p] != 1) << source_ << ": the graph has a cycle through node "
                                                  << node_name(graph.node(p), p) << ".";
                if (state[p] == 0) {
                    state[p] = 1;
                    stack.push_back({p, 0});
                }
            }
        }
        return order;
    }

    static std::string node_name(const onnx::NodeProto& n, int index) {
        return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    }

    Attribute attribute(const onnx::AttributeProto& a, const std::string& where) {
        using A = onnx::AttributeProto;
        switch (a.type()) {
            case A::FLOAT: return a.f();
            case A::INT: return int64_t(a.i());
            case A::STRING: return a.s();
            case A::TENSOR: return tensor_from_proto(a.t(), where);
            case A::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
            case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
            case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
            default: break;
        }
        TESSERA_UNSUPPORTED << where << " is a " << A::AttributeType_Name(a.type())
                            << " attribute, which is not supported (subgraphs and sparse tensors are not).";
        return {};
    }

    void add_node(const onnx::NodeProto& n, int index) {
        Node node;
        node.name = node_name(n, index);
        node.op = n.op_type();
        const std::string where = source_ + ": node " + node.name + " (" + node.op + ")";
        if (!is_default_domain(n.domain()))
            TESSERA_UNSUPPORTED << where << " is of the domain " << n.domain()
                                << "; only the default ONNX domain is supported.";
        node.attributes.owner = "node " + node.name + " (" + node.op + ")";
        for (const onnx::AttributeProto& a : n.attribute())
            node.attributes.set(a.name(), attribute(a, where + ", attribute " + a.name()));
        for (const std::string& in : n.input()) node.inputs.push_back(in.empty() ? -1 : g_.find_value(in));
        for (int i = 0; i < n.output_size(); i++) {
            const std::string name =
                n.output(i).empty() ? node.name + "_unused_output" + std::to_string(i) : n.output(i);
            node.outputs.push_back(g_.add_value(Value{name, Float(32), {}, false, {}}));
        }
        TESSERA_USER_CHECK(!node.outputs.empty()) << where << " has no outputs.";
        g_.nodes.push_back(std::move(node));
    }

    std::string source_;
    Graph g_;
};

}  // namespace

Graph load_onnx_from_bytes(const std::string& bytes, const std::string& source) {
    onnx::ModelProto model;
    TESSERA_USER_CHECK(model.ParseFromString(bytes))
        << source
        << " is not an ONNX model (the bytes do not parse as a ModelProto; the file may be truncated).";
    TESSERA_USER_CHECK(model.has_graph()) << source << " holds no graph.";
    return Importer(source).import(model);
}

Graph load_onnx(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    TESSERA_USER_CHECK(in) << "cannot open the model file " << path << ".";
    std::stringstream bytes;
    bytes << in.rdbuf();
    return load_onnx_from_bytes(bytes.str(), path);
}

}  // namespace tessera::graph
