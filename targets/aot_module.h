#pragma once
// The LLVM module of one ahead-of-time function (see aot.h), verified but not yet optimized.

#include <memory>

#include "targets/aot.h"
#include "targets/cpu_target.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tessera::targets {

// f.body.name must differ from f.name and f.name + "_argv"; the body becomes internal.
std::unique_ptr<llvm::Module> aot_module(const AotFunction& f, llvm::LLVMContext& context, const CpuTarget& target);

}  // namespace tessera::targets
