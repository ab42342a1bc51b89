#pragma once
// LLVM IR for a lowered pipeline on the CPU.

#include <memory>
#include <string>

#include "lowering/lowered_function.h"
#include "targets/cpu_target.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tessera::targets {

using lowering::LoweredArgument;
using lowering::LoweredFunction;

// A module, for target's triple and data layout, defining the external function
// `int32_t f.name(void** args)` that runs f.body with the calling convention of
// lowered_function.h, launching f.kernels from gpu_code, their PTX (see codegen_ptx.h), embedded
// in the module. The module is verified but not yet optimized (see CpuTarget::optimize).
// Throws InternalError when f.body is not flattened, loop-nest IR.
std::unique_ptr<llvm::Module> codegen_llvm(const LoweredFunction& f, llvm::LLVMContext& context,
                                           const CpuTarget& target, const std::string& gpu_code = "");

}  // namespace tessera::targets
