#pragma once
// Ahead-of-time compilation: a lowered pipeline behind a C signature, written as an object file,
// assembly, LLVM IR or bitcode, or a static library that also holds the runtime.
//
// The C function is `int name(<args>)`, one tessera_buffer_t* per buffer argument and scalars by
// value, in the caller's order. A second entry point `int name_argv(void** args)` takes the same
// arguments as an array (a buffer's tessera_buffer_t*, or the address of a scalar). Both return 0
// or the error code of the first failed check, whose message went to the runtime's error handler.

#include <string>
#include <vector>

#include "lowering/lowered_function.h"
#include "tessera/runtime.h"

namespace tessera {
struct Target;
}

namespace tessera::targets {

using lowering::LoweredArgument;
using lowering::LoweredFunction;

// One argument of the C function.
struct AotArgument {
    std::string name;  // a C identifier
    bool is_buffer = false;
    Type type;
    int dimensions = 0;
};

// What one argument of the lowered function receives: an argument of the C function, or a buffer
// compiled into the code (an input Buffer the caller does not pass).
struct AotBinding {
    int argument = -1;                           // index into AotFunction::args, or -1
    const tessera_buffer_t* constant = nullptr;  // its contents are copied into the code
};

struct AotFunction {
    std::string name;                  // the C symbol
    std::vector<AotArgument> args;     // the caller's order: inputs, then outputs
    LoweredFunction body;              // its arguments in lowering's order
    std::vector<AotBinding> bindings;  // one per body.args
};

// Files to write; an empty path is not written.
struct AotFiles {
    std::string object, assembly, llvm_assembly, bitcode, static_library;
};

// Generates and optimizes the code of f for each target, then writes the requested files; for
// targets with a GPU, the assembly comes with the kernels' PTX, in ptx_path(files.assembly) (it
// is also embedded in the code). With
// several targets (all of one architecture and OS), f's entry points run the code of the first
// target whose instruction-set features the running CPU has; the last is the fallback and is taken
// without asking. A static library holds the code and, unless the targets have no_runtime, the
// runtime. Throws CompileError when a file cannot be written, the targets disagree on the machine,
// or the runtime does not exist for it.
void compile_ahead_of_time(const AotFunction& f, const std::vector<Target>& targets, const AotFiles& files);

// Where the PTX of a GPU target's kernels is written beside the assembly: its path with the
// extension .ptx ("blur.s" -> "blur.ptx").
std::string ptx_path(const std::string& assembly_path);

// The C header declaring f: includes <tessera/runtime.h> and is usable from C and C++.
std::string c_header(const AotFunction& f);

// The C spelling of a scalar type ("float", "uint16_t", "bool"), for headers.
std::string c_type_name(Type t);

}  // namespace tessera::targets
