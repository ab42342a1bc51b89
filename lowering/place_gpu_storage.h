#pragma once
// Decides where the storage of each Func computed inside a GPU kernel lives: stored at a block loop
// (outside the thread loops), in the block's shared memory; inside a thread loop, on the thread's
// stack (registers, or local memory). Run after storage flattening and simplification. Storage in
// GPU memory outside a kernel, heap storage inside one, a size not known when compiling, and more
// shared memory than a block may have (48 KiB) are CompileErrors naming the Funcs.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt place_gpu_storage(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
