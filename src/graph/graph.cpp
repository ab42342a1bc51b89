#include <sstream>

#include "graph/attribute_text.h"
#include "tessera/graph.h"
#include "util/error_stream.h"

namespace tessera::graph {
namespace {}  // namespace

std::string shape_text(const Value& v) {
    if (!v.shape_known) return type_name(v.type) + "[?]";
    std::ostringstream out;
    out << type_name(v.type) << "[";
    for (size_t i = 0; i < v.shape.size(); i++) {
        out << (i ? "," : "");
        if (v.shape[i].is_known())
            out << v.shape[i].size;
        else
            out << v.shape[i].symbol;
    }
    out << "]";
    return out.str();
}

int Graph::add_value(Value v) {
    values.push_back(std::move(v));
    return int(values.size()) - 1;
}

int Graph::find_value(const std::string& name) const {
    for (size_t i = 0; i < values.size(); i++)
        if (values[i].name == name) return int(i);
    return -1;
}

std::string Graph::to_string() const {
    std::ostringstream out;
    for (int id : inputs) out << "input " << values[id].name << ": " << shape_text(values[id]) << "\n";
    for (const Value& v : values)
        if (v.constant.defined()) out << "constant " << v.name << ": " << shape_text(v) << "\n";
    for (const Node& n : nodes) {
        for (size_t i = 0; i < n.outputs.size(); i++)
            out << (i ? ", " : "") << values[n.outputs[i]].name << ": " << shape_text(values[n.outputs[i]]);
        out << " = " << n.op << "(";
        for (size_t i = 0; i < n.inputs.size(); i++)
            out << (i ? ", " : "") << (n.inputs[i] < 0 ? "_" : values[n.inputs[i]].name);
        out << ")";
        if (!n.attributes.all().empty()) {
            out << " {";
            bool first = true;
            for (const auto& [name, a] : n.attributes.all()) {
                out << (first ? "" : ", ") << name << "=" << attribute_text(a);
                first = false;
            }
            out << "}";
        }
        out << "\n";
    }
    for (int id : outputs) out << "output " << values[id].name << "\n";
    return out.str();
}

}  // namespace tessera::graph
