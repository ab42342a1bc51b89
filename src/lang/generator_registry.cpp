// The registry of generators, filled by TESSERA_REGISTER_GENERATOR during static initialization.

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/generator.h"
#include "util/c_identifier.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

struct Registry {
    std::mutex mutex;
    std::map<std::string, GeneratorFactory> factories;
    // Registrations that failed while static objects were being constructed, where an exception
    // would end the program before main; reported by create() and by the driver.
    std::vector<std::string> errors;
};

// Constructed on first use, so that registrations from any translation unit find it.
Registry& registry() {
    static Registry r;
    return r;
}

std::string known_generators(const std::vector<std::string>& names) {
    if (names.empty()) return "this program registers no generators.";
    std::string s = "the registered generators are: ";
    for (size_t i = 0; i < names.size(); i++) s += (i ? ", " : "") + names[i];
    return s + ".";
}

}  // namespace

void GeneratorRegistry::register_factory(const std::string& name, GeneratorFactory factory) {
    TESSERA_USER_CHECK(util::is_c_identifier(name))
        << "cannot register generator '" << name << "': its name must be a C identifier.";
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    TESSERA_USER_CHECK(!r.factories.count(name))
        << "generator '" << name
        << "' is registered twice; each TESSERA_REGISTER_GENERATOR needs its own name.";
    r.factories.emplace(name, std::move(factory));
}

void GeneratorRegistry::unregister_factory(const std::string& name) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.factories.erase(name);
}

std::vector<std::string> GeneratorRegistry::enumerate() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    std::vector<std::string> names;
    for (const auto& entry : r.factories) names.push_back(entry.first);
    return names;
}

std::vector<std::string> GeneratorRegistry::registration_errors() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.errors;
}

std::unique_ptr<GeneratorBase> GeneratorRegistry::create(const std::string& name,
                                                         const GeneratorContext& context) {
    GeneratorFactory factory;
    {
        Registry& r = registry();
        std::lock_guard<std::mutex> lock(r.mutex);
        if (!r.errors.empty()) throw CompileError(r.errors.front());
        auto it = r.factories.find(name);
        if (it != r.factories.end()) factory = it->second;
    }
    TESSERA_USER_CHECK(factory) << "there is no generator '" << name
                                << "': " << known_generators(enumerate());
    std::unique_ptr<GeneratorBase> g = factory(context);
    g->generator_name_ = name;
    return g;
}

RegisterGenerator::RegisterGenerator(const char* name, GeneratorFactory factory) {
    try {
        GeneratorRegistry::register_factory(name, std::move(factory));
    } catch (const Error& e) {
        Registry& r = registry();
        std::lock_guard<std::mutex> lock(r.mutex);
        r.errors.push_back(e.what());
    }
}

}  // namespace tessera
