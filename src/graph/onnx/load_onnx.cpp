// Reading an ONNX ModelProto into a Graph, checking that it is consistent.

#include <algorithm>
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

constexpr int64_t min_opset = 1, max_opset = 18;

// Before opset 6 many operators meant something else (BatchNormalization's spatial attribute, Cast
// naming its type by a string, Pad's paddings, Concat's optional axis). Models of those opsets load
// where every node is one whose first definition computes what its current one does; their legacy
// attribute consumed_inputs was a hint to the runtimes of the day, without effect on values.
constexpr int64_t first_opset_of_current_definitions = 6;
bool same_since_opset_1(const std::string& op) {
    static const std::set<std::string> ops = {
        "Abs",           "Ceil",       "Constant",  "Exp",     "Floor",    "GlobalAveragePool",
        "GlobalMaxPool", "Identity",   "LeakyRelu", "Log",     "MatMul",   "Neg",
        "Not",           "Reciprocal", "Relu",      "Sigmoid", "Softplus", "Softsign",
        "Sqrt",          "Tanh",       "Transpose"};
    return ops.count(op) > 0;
}

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

class Importer {
public:
    explicit Importer(std::string source) : source_(std::move(source)) {}

    Graph import(const onnx::ModelProto& model) {
        read_opset(model);
        const onnx::GraphProto& graph = model.graph();
        for (const onnx::TensorProto& init : graph.initializer()) add_initializer(init);
        for (int i = 0; i < graph.input_size(); i++) {
            const onnx::ValueInfoProto& input = graph.input(i);
            TESSERA_USER_CHECK(!input.name().empty())
                << source_ << ": the graph's input " << i << " has no name.";
            // Models of IR version 3 and older list their initializers among the inputs too.
            if (g_.find_value(input.name()) < 0) add_input(input);
        }
        std::vector<int> order = topological_order(graph);
        for (int i : order) add_node(graph.node(i), i);
        for (int i = 0; i < graph.output_size(); i++) {
            const onnx::ValueInfoProto& output = graph.output(i);
            TESSERA_USER_CHECK(!output.name().empty())
                << source_ << ": the graph's output " << i << " has no name.";
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
        std::vector<int64_t> known;
        std::string declared = type_name(*type) + "[";
        for (const onnx::TensorShapeProto::Dimension& d : tensor.shape().dim()) {
            v.shape.push_back(d.has_dim_value() ? Dim(d.dim_value()) : Dim(d.dim_param()));
            if (d.has_dim_value()) known.push_back(d.dim_value());
            declared += (v.shape.size() > 1 ? "," : "") +
                        (d.has_dim_value() ? std::to_string(d.dim_value()) : d.dim_param());
        }
        // Compiling allocates the known dimensions as they are declared.
        checked_elements(known, where + ", declared " + declared + "],");
        g_.inputs.push_back(g_.add_value(std::move(v)));
    }

    // ONNX asks for nodes in topological order; some exporters do not quite keep it.
    std::vector<int> topological_order(const onnx::GraphProto& graph) {
        for (int i = 0; i < graph.node_size(); i++) {
            TESSERA_USER_CHECK(!graph.node(i).op_type().empty())
                << source_ << ": node " << node_name(graph.node(i), i) << " has no op_type.";
            for (const std::string& out : graph.node(i).output()) {
                if (out.empty()) continue;
                check_single_producer(graph, i, out);
                producer_[out] = i;
            }
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
                auto it = producer_.find(in);
                if (it == producer_.end()) {
                    TESSERA_USER_CHECK(g_.find_value(in) >= 0)
                        << source_ << ": " << describe_node(graph, i) << " reads " << in
                        << ", which no node produces and which is no input or initializer.";
                    continue;
                }
                const int p = it->second;
                if (state[p] == 1) report_cycle(graph, stack, p);
                if (state[p] == 0) {
                    state[p] = 1;
                    stack.push_back({p, 0});
                }
            }
        }
        return order;
    }

    // A value has one producer: one node, or the graph (an input or an initializer).
    void check_single_producer(const onnx::GraphProto& graph, int node, const std::string& value) {
        auto it = producer_.find(value);
        TESSERA_USER_CHECK(it == producer_.end())
            << source_ << ": " << value << " is produced by two nodes, " << describe_node(graph, it->second)
            << " and " << describe_node(graph, node) << ".";
        const int id = g_.find_value(value);
        TESSERA_USER_CHECK(id < 0) << source_ << ": " << describe_node(graph, node) << " produces " << value
                                   << ", which is already the graph's "
                                   << (g_.values[id].constant.defined() ? "initializer" : "input") << " "
                                   << value << ".";
    }

    // stack is the path of the depth-first search, each node with the next input it will look at;
    // its last node reads a value that p, on the path, produces.
    void report_cycle(const onnx::GraphProto& graph, const std::vector<std::pair<int, int>>& stack, int p) {
        auto from =
            std::find_if(stack.begin(), stack.end(), [&](const auto& entry) { return entry.first == p; });
        std::ostringstream cycle;
        for (auto e = from; e != stack.end(); ++e) {
            const int read_from = e + 1 == stack.end() ? p : (e + 1)->first;
            cycle << (e == from ? describe_node(graph, e->first) : ", which") << " reads "
                  << graph.node(e->first).input(e->second - 1) << " from " << describe_node(graph, read_from);
        }
        TESSERA_USER_ERROR << source_ << ": the graph has a cycle: " << cycle.str() << ".";
    }

    static std::string describe_node(const onnx::GraphProto& graph, int index) {
        const onnx::NodeProto& n = graph.node(index);
        return "node " + node_name(n, index) + " (" + n.op_type() + ")";
    }

    // The node's name, or for a node without one its op and its index among the nodes.
    static std::string node_name(const onnx::NodeProto& n, int index) {
        if (!n.name().empty()) return n.name();
        return (n.op_type().empty() ? "node" : n.op_type()) + "_" + std::to_string(index);
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
        if (g_.opset < first_opset_of_current_definitions && !same_since_opset_1(node.op))
            TESSERA_UNSUPPORTED << where << ": " << node.op << " of opset " << g_.opset
                                << " is not supported (its definition before opset "
                                << first_opset_of_current_definitions
                                << " differs); export the model at opset 6 or later.";
        node.attributes.owner = "node " + node.name + " (" + node.op + ")";
        for (const onnx::AttributeProto& a : n.attribute()) {
            TESSERA_USER_CHECK(!a.name().empty()) << where << " has an attribute with no name.";
            node.attributes.set(a.name(), attribute(a, where + ", attribute " + a.name()));
        }
        for (const std::string& in : n.input()) node.inputs.push_back(in.empty() ? -1 : g_.find_value(in));
        for (int i = 0; i < n.output_size(); i++) {
            std::string name = n.output(i);
            if (name.empty()) {
                // An output left out still needs a value; its name must not be one the model uses.
                name = node.name + "_unused_output" + std::to_string(i);
                while (g_.find_value(name) >= 0 || producer_.count(name)) name += "_";
            }
            node.outputs.push_back(g_.add_value(Value{name, Float(32), {}, false, {}}));
        }
        TESSERA_USER_CHECK(!node.outputs.empty()) << where << " has no outputs.";
        g_.nodes.push_back(std::move(node));
    }

    std::string source_;
    Graph g_;
    std::map<std::string, int> producer_;  // the node producing each value that a node produces
};

}  // namespace

Graph load_onnx_from_bytes(const std::string& bytes, const std::string& source) {
    TESSERA_USER_CHECK(!bytes.empty()) << source << " is empty (0 bytes), not an ONNX model.";
    onnx::ModelProto model;
    TESSERA_USER_CHECK(model.ParseFromString(bytes))
        << source << " is not an ONNX model (its " << bytes.size()
        << " bytes do not parse as a ModelProto; the file may be truncated).";
    TESSERA_USER_CHECK(model.has_graph()) << source << " holds no graph.";
    return Importer(source).import(model);
}

Graph load_onnx(const std::string& path) { return load_onnx_from_bytes(read_onnx_file(path, "model"), path); }

}  // namespace tessera::graph
