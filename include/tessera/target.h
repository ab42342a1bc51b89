#pragma once
// Target: what code is generated for. For now the host CPU, with the features LLVM reports.

#include <string>

namespace tessera {

class Target {
public:
    Target() = default;                               // the host
    explicit Target(const std::string& description);  // "host" or "host-<features>"
    std::string to_string() const;
    bool operator==(const Target& other) const { return description_ == other.description_; }

private:
    std::string description_ = "host";
};

Target get_host_target();
Target get_target_from_environment();
Target get_jit_target_from_environment();

}  // namespace tessera
