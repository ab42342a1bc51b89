#include "graph/attribute_text.h"

#include <sstream>

namespace tessera::graph {

std::string tensor_values_text(const Tensor& t) {
    std::ostringstream out;
    out.precision(17);
    if (t.type().is_float())
        for (double d : t.to_doubles()) out << d << ",";
    else
        for (int64_t i : t.to_int64s()) out << i << ",";
    return out.str();
}

std::string attribute_text(const Attribute& a, bool with_values) {
    std::ostringstream out;
    out.precision(with_values ? 9 : 6);
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, Tensor>) {
                out << describe(v);
                if (with_values) out << "{" << tensor_values_text(v) << "}";
            } else if constexpr (std::is_same_v<T, std::string>) {
                out << '"' << v << '"';
            } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, float>) {
                out << v;
            } else {
                out << "[";
                for (size_t i = 0; i < v.size(); i++) {
                    out << (i ? "," : "");
                    if constexpr (std::is_same_v<T, std::vector<std::string>>)
                        out << '"' << v[i] << '"';
                    else
                        out << v[i];
                }
                out << "]";
            }
        },
        a);
    return out.str();
}

std::string attributes_key(const Attributes& attributes) {
    std::string key;
    for (const auto& [name, a] : attributes.all()) key += name + "=" + attribute_text(a, true) + ";";
    return key;
}

}  // namespace tessera::graph
