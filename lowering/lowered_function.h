#pragma once
// The contract between lowering and code generation: one pipeline, lowered to a flat loop nest,
// with the arguments its compiled function takes.
//
// The compiled function is `int32_t name(void** args)`. args[i] is a tessera_buffer_t* for a
// buffer argument and a pointer to the value for a scalar one. It returns 0, or the nonzero code
// of the first AssertStmt that failed (after reporting its message through the runtime).
//
// In the body, a buffer argument N is visible as the symbol N (its host pointer, read by Load and
// written by Store with name N) and as N.buffer (the tessera_buffer_t*, a Handle, for the Buffer*
// intrinsics). A scalar argument N is the symbol N.

#include <map>
#include <string>
#include <vector>

#include "ir/stmt.h"
#include "tessera/type.h"

namespace tessera::lowering {

struct LoweredArgument {
    std::string name;  // e.g. "input", "f" (an output), "alpha" (a scalar Param)
    bool is_buffer = false;
    Type type;           // the element type of a buffer, or the scalar's type
    int dimensions = 0;  // for buffers
};

struct LoweredFunction {
    std::string name;  // the C symbol name, e.g. "blur"
    std::vector<LoweredArgument> args;
    ir::Stmt body;  // flattened loop-nest IR: no Provide, Realize or Func calls left
    // C functions the body calls that the JIT finds at these addresses in this process (those of
    // tensor intrinsics); ahead-of-time code links to them by name.
    std::map<std::string, const void*> extern_symbols;
};

}  // namespace tessera::lowering
