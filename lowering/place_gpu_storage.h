#pragma once
// Decides where the storage of each Func computed inside a GPU kernel lives: stored at a block loop
// (outside the thread loops), or computed by the block's threads together (cooperative_regions.h),
// in the block's shared memory; inside a thread loop, on the thread's stack (registers, or local
// memory). Run after storage flattening and simplification. Storage in GPU memory outside a
// kernel, heap storage inside one, a size not known when compiling, and more shared memory than a
// block may have on the target's GPU are CompileErrors naming the Funcs.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

// The most shared memory a block may have on a GPU of that compute capability (75 for sm_75):
// 48 KiB statically, and up to this much when the kernel opts in to dynamic shared memory.
int64_t max_shared_bytes_per_block(int cuda_capability);

// Shared memory beyond this much a kernel takes dynamically, with the opt-in.
inline constexpr int64_t kStaticSharedBytes = 48 * 1024;

// The bytes a shared allocation (of constant size, as this pass makes them) takes in a kernel's
// dynamic shared memory, where each starts at a 16-byte boundary.
int64_t aligned_shared_bytes(const ir::Allocate& shared);

ir::Stmt place_gpu_storage(const ir::Stmt& s, const Environment& env, int cuda_capability);

}  // namespace tessera::lowering
