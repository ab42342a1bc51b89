#include "tessera/target.h"

#include <cstdlib>

#include "util/error_stream.h"

namespace tessera {

Target::Target(const std::string& description) : description_(description) {
    TESSERA_USER_CHECK(description == "host" || description.rfind("host-", 0) == 0)
        << "unknown target \"" << description
        << "\". This version of Tessera compiles for the host CPU only: use "
        << "\"host\".";
}

std::string Target::to_string() const { return description_; }

Target get_host_target() { return Target("host"); }

Target get_target_from_environment() {
    const char* t = std::getenv("TESSERA_TARGET");
    return t && *t ? Target(t) : get_host_target();
}

Target get_jit_target_from_environment() {
    const char* t = std::getenv("TESSERA_JIT_TARGET");
    return t && *t ? Target(t) : get_host_target();
}

}  // namespace tessera
