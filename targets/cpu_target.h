#pragma once
// The CPU that code is generated for: its LLVM triple, CPU name and feature list, and the LLVM
// machinery (TargetMachine, optimization pipeline) configured for it.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace tessera {
struct Target;
}

namespace tessera::targets {

class CpuTarget {
public:
    // features are LLVM's names with a sign each: "+avx2", "-avx512f".
    CpuTarget(std::string triple, std::string cpu, std::vector<std::string> features);

    const std::string& triple() const { return triple_; }
    const std::string& cpu() const { return cpu_; }
    // The features as LLVM's comma-separated attribute string.
    const std::string& feature_string() const { return feature_string_; }
    // The module data layout of code for this target.
    const std::string& data_layout() const { return data_layout_; }
    bool has_feature(std::string_view name) const;
    // The width of the widest SIMD registers the CPU has for both integers and floats: 512 with
    // AVX-512, 256 with AVX2, 128 otherwise.
    int natural_vector_bits() const;

    // A TargetMachine for this CPU, generating code at the highest optimization level.
    std::unique_ptr<llvm::TargetMachine> create_target_machine() const;
    // Runs LLVM's O3 module pipeline (with loop and SLP vectorization) on module, tuned by machine.
    static void optimize(llvm::Module& module, llvm::TargetMachine& machine);

private:
    std::string triple_, cpu_, feature_string_, data_layout_;
    std::vector<std::string> features_;
};

// The CPU this process runs on, as LLVM's host query reports it; features the CPU lacks are
// explicitly disabled. Computed once.
const CpuTarget& host_cpu_target();

// The CPU that code for `target` is generated for. The host target (with any switches such as
// no_runtime) is host_cpu_target() itself, so that ahead-of-time code for it is the JIT's code.
// Other targets get a generic CPU of their architecture with exactly their features. Throws
// CompileError when this build of LLVM cannot generate code for the target.
CpuTarget cpu_target_for(const Target& target);

// The LLVM triple of target, e.g. "x86_64-unknown-linux-gnu".
std::string llvm_triple(const Target& target);

// Registers LLVM's native target, assembly printer and parser. Thread-safe; idempotent.
void initialize_llvm_native_target();
// Registers every target this build of LLVM has (for cross-compilation). Thread-safe; idempotent.
void initialize_llvm_all_targets();

}  // namespace tessera::targets
