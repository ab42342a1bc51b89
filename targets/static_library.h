#pragma once
// Static libraries of ahead-of-time code: the pipeline's object and the runtime's.

#include <string>
#include <string_view>

namespace tessera {
struct Target;
}

namespace tessera::targets {

// Writes an archive at path holding `object` (as member object_name) and, unless target has
// no_runtime, every object of the runtime. Throws CompileError when the runtime is needed but was
// built for another machine than target's, or the file cannot be written.
void write_static_library(const std::string& path, const std::string& object_name, const std::string& object,
                          const Target& target);

// The bytes of the runtime's static library as it was built with this library of Tessera.
std::string_view embedded_runtime_archive();

}  // namespace tessera::targets
