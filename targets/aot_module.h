#pragma once
// The LLVM module of one ahead-of-time function (see aot.h), verified but not yet optimized.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "targets/aot.h"
#include "targets/cpu_target.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tessera::targets {

// f.body.name must differ from f.name and f.name + "_argv"; the body becomes internal. gpu_code:
// the PTX of f.body's kernels.
std::unique_ptr<llvm::Module> aot_module(const AotFunction& f, llvm::LLVMContext& context,
                                         const CpuTarget& target, const std::string& gpu_code);

// One target's code of a multi-target function: the entry points name and name + "_argv", which
// run when the CPU has every feature in the mask (bit i: Target::Feature i).
struct AotVariant {
    std::string name;
    uint64_t features = 0;
};

// Adds f's entry points to module, which holds every variant's: each tries the variants in order
// and calls the first whose features the CPU has; the last is called without asking. The
// variants' entry points become internal.
void add_dispatcher(llvm::Module& module, const AotFunction& f, const std::vector<AotVariant>& variants);

}  // namespace tessera::targets
