#include "graph/passes/bind_input_shapes.h"

#include <algorithm>
#include <sstream>

#include "util/error_stream.h"

namespace tessera::graph {
namespace {

std::string shape_text(const Shape& shape) {
    std::ostringstream out;
    for (size_t i = 0; i < shape.size(); i++) {
        out << (i ? "x" : "");
        if (shape[i].is_known())
            out << shape[i].size;
        else
            out << shape[i].symbol;
    }
    return out.str();
}

// Tessera's buffers index with 32-bit integers: an input must have fewer than 2^31 elements, and no
// negative dimension (a size given for a symbolic one may be anything).
void check_size(const Value& v) {
    constexpr int64_t limit = int64_t(1) << 31;
    int64_t elements = 1;
    for (const Dim& d : v.shape) {
        TESSERA_USER_CHECK(d.size >= 0 && d.size < limit)
            << "input " << v.name << " is given the dimension " << d.size << "; sizes are 0 to 2^31 - 1.";
        elements = std::min(elements * d.size, limit);  // each factor is below 2^31: no overflow
    }
    TESSERA_USER_CHECK(elements < limit) << "input " << v.name << " of shape " << shape_text(v.shape)
                                         << " has 2^31 elements or more, more than a Tessera buffer holds.";
}

void bind_whole_shape(Value& v, const std::vector<int64_t>& given) {
    if (!v.shape_known) v.shape = Shape(given.size(), Dim("?"));
    std::ostringstream text;
    for (size_t i = 0; i < given.size(); i++) text << (i ? "x" : "") << given[i];
    TESSERA_USER_CHECK(given.size() == v.shape.size())
        << "input " << v.name << " has shape " << shape_text(v.shape) << " (rank " << v.shape.size()
        << "); the shape given, " << text.str() << ", has rank " << given.size() << ".";
    for (size_t i = 0; i < given.size(); i++) {
        TESSERA_USER_CHECK(!v.shape[i].is_known() || v.shape[i].size == given[i])
            << "input " << v.name << " has shape " << shape_text(v.shape) << "; the shape given, "
            << text.str() << ", differs in dimension " << i << ".";
        v.shape[i] = Dim(given[i]);
    }
    v.shape_known = true;
}

}  // namespace

Graph bind_input_shapes(const Graph& g, const std::map<std::string, std::vector<int64_t>>& shapes) {
    Graph out = g;
    for (int id : out.inputs) {
        Value& v = out.values[id];
        if (auto it = shapes.find(v.name); it != shapes.end()) {
            bind_whole_shape(v, it->second);
            check_size(v);
            continue;
        }
        TESSERA_USER_CHECK(v.shape_known) << "input " << v.name << " has no shape in the model; give it one ("
                                          << "--shape " << v.name << "=2x3x... with tessera-onnx).";
        for (size_t i = 0; i < v.shape.size(); i++) {
            Dim& d = v.shape[i];
            if (d.is_known()) continue;
            auto it = shapes.find(d.symbol);
            TESSERA_USER_CHECK(it != shapes.end() && it->second.size() == 1)
                << "input " << v.name << " has shape " << shape_text(v.shape) << ", whose dimension " << i
                << " (" << (d.symbol.empty() ? "unnamed" : d.symbol)
                << ") is not known; give the whole shape ("
                << "--shape " << v.name << "=1x3x640x640 with tessera-onnx, or input_shapes[\"" << v.name
                << "\"] in CompileOptions)" << (d.symbol.empty() ? "." : " or the size of " + d.symbol + ".");
            d = Dim(it->second[0]);
        }
        check_size(v);
    }
    return out;
}

Graph bind_input_values(const Graph& g, const std::map<std::string, Tensor>& values) {
    Graph out = g;
    for (const auto& [name, t] : values) {
        auto it = std::find_if(out.inputs.begin(), out.inputs.end(),
                               [&](int id) { return out.values[id].name == name; });
        TESSERA_USER_CHECK(it != out.inputs.end())
            << "a value is given for " << name << ", which is no input of the model.";
        Value& v = out.values[*it];
        TESSERA_USER_CHECK(t.defined() && t.type() == v.type)
            << "the value given for input " << name << " is " << (t.defined() ? describe(t) : "empty")
            << "; the input is " << type_name(v.type) << ".";
        v.constant = t;
        v.shape.assign(t.shape().begin(), t.shape().end());
        v.shape_known = true;
        out.inputs.erase(it);
    }
    return out;
}

}  // namespace tessera::graph
