#include "tessera/graph.h"
#include "util/error_stream.h"

namespace tessera::graph {
namespace {

template <typename T>
const T& attribute_of_kind(const Attributes& a, const std::string& name, const char* kind) {
    const Attribute* value = a.find(name);
    const T* typed = std::get_if<T>(value);
    TESSERA_USER_CHECK(typed) << a.owner << ": attribute " << name << " should be " << kind << ".";
    return *typed;
}

}  // namespace

const Attribute* Attributes::find(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
}

int64_t Attributes::get_int(const std::string& name, int64_t fallback) const {
    return has(name) ? attribute_of_kind<int64_t>(*this, name, "an integer") : fallback;
}

float Attributes::get_float(const std::string& name, float fallback) const {
    if (!has(name)) return fallback;
    // Exporters sometimes write an integer where a float is meant.
    if (const int64_t* i = std::get_if<int64_t>(find(name))) return float(*i);
    return attribute_of_kind<float>(*this, name, "a float");
}

std::string Attributes::get_string(const std::string& name, const std::string& fallback) const {
    return has(name) ? attribute_of_kind<std::string>(*this, name, "a string") : fallback;
}

std::vector<int64_t> Attributes::get_ints(const std::string& name,
                                          const std::vector<int64_t>& fallback) const {
    return has(name) ? attribute_of_kind<std::vector<int64_t>>(*this, name, "a list of integers") : fallback;
}

std::vector<float> Attributes::get_floats(const std::string& name, const std::vector<float>& fallback) const {
    return has(name) ? attribute_of_kind<std::vector<float>>(*this, name, "a list of floats") : fallback;
}

}  // namespace tessera::graph
