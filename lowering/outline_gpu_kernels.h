#pragma once
// Takes each GPU kernel (a loop nest over __block_id_* around one over __thread_id_*, as
// fuse_gpu_thread_loops makes it) out of the loop nest into a GpuKernel of its own, named after
// the Func it produces, and puts in its place a gpu_launch of it: as many blocks as the block
// loops' extents, as many threads as the thread loops' (constants), and as arguments the values
// the kernel uses from around it and the buffers it uses (by their descriptors, NAME.buffer).
// Run last, on code whose kernels are not emulated.

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "lowering/lowered_function.h"

namespace tessera::lowering {

ir::Stmt outline_gpu_kernels(const ir::Stmt& s, std::vector<GpuKernel>& kernels);

}  // namespace tessera::lowering
