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

#include <array>
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

// An argument of a GPU kernel: a scalar passed by value, or a buffer's device memory (a pointer
// to its element 0 in the flattened indexing of the body, under the buffer's own name).
struct KernelArgument {
    std::string name;
    Type type;  // the scalar's type, or the buffer's element type
    bool is_buffer = false;
};

// A kernel outlined from the loop nest: the body of the loops over __block_id_* and
// __thread_id_* that it kept (their extents: the launch's, on the host), with those loops in place
// so that code generation binds their variables to the GPU's block and thread indices.
struct GpuKernel {
    std::string name;  // the entry point
    std::vector<KernelArgument> args;
    ir::Stmt body;  // a GPUBlock loop nest; GPUShared allocations inside have constant sizes
    std::array<int, 3> threads = {1, 1, 1};  // the threads of a block in x, y and z
    // Where the shared allocations take more than the 48 KiB a kernel may have statically, their
    // total: they then lie in dynamic shared memory, one after another from 16-byte boundaries,
    // and the launch asks for this much.
    int64_t dynamic_shared_bytes = 0;
};

struct LoweredFunction {
    std::string name;  // the C symbol name, e.g. "blur"
    std::vector<LoweredArgument> args;
    ir::Stmt body;  // flattened loop-nest IR: no Provide, Realize or Func calls left
    // C functions the body calls that the JIT finds at these addresses in this process (those of
    // tensor intrinsics); ahead-of-time code links to them by name.
    std::map<std::string, const void*> extern_symbols;
    // The GPU kernels that the body launches (gpu_launch calls them by name).
    std::vector<GpuKernel> kernels;
    // The allocations of the body that kernels use, each with whether host code uses it too: each
    // has a descriptor (symbol NAME.buffer) with device memory, and host memory only if so.
    std::map<std::string, bool> device_allocations;
};

}  // namespace tessera::lowering
