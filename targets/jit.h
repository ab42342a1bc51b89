#pragma once
// Compiling a lowered pipeline to machine code in this process (LLVM's ORC LLJIT), and calling it.

#include <cstdint>
#include <memory>
#include <string>

#include "lowering/lowered_function.h"

namespace tessera {
struct Target;
}

namespace tessera::targets {

using lowering::LoweredArgument;
using lowering::LoweredFunction;

// One compiled pipeline. Its code stays loaded while the JITModule lives. Calls may come from any
// number of threads at once.
class JITModule {
public:
    using Entry = int32_t (*)(void** args);
    struct Resources;  // the pipeline's place in the JIT, defined in jit.cpp

    JITModule(Entry entry, std::string llvm_ir, double compile_seconds, std::unique_ptr<Resources> resources);
    ~JITModule();
    JITModule(const JITModule&) = delete;
    JITModule& operator=(const JITModule&) = delete;

    // Runs the pipeline with the calling convention of lowered_function.h: 0, or the code of the
    // first failed assertion, whose message went to the runtime's error handler.
    int32_t call(void** args) const { return entry_(args); }
    // The optimized LLVM IR of the pipeline when TESSERA_DUMP_LLVM=1 (it is also printed to
    // stderr then); empty otherwise.
    const std::string& llvm_ir() const { return llvm_ir_; }
    // Wall time of code generation, optimization and machine code generation.
    double compile_seconds() const { return compile_seconds_; }

private:
    Entry entry_;
    std::string llvm_ir_;
    double compile_seconds_;
    std::unique_ptr<Resources> resources_;
};

// Generates, optimizes (O3, for target's CPU, exactly as ahead-of-time code for target) and loads
// f. Throws CompileError when target asks for what this machine lacks. With the environment variable
// TESSERA_DUMP_LLVM=1, prints the optimized IR to stderr. Throws CompileError when the code calls
// an external function this process does not define, InternalError on a code generator bug.
std::shared_ptr<JITModule> jit_compile(const LoweredFunction& f, const Target& target);

}  // namespace tessera::targets
