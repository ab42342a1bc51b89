#pragma once
// Runs each GPU kernel, in the shape fuse_gpu_thread_loops gives it, on the CPU: its block loops
// become ordinary loops (the outermost one parallel), and the threads of a block run as serial
// loops over their ids, one loop for each stretch of code between barriers, so that every thread
// finishes a stretch before any thread starts the next one, as barriers guarantee on a GPU. Shared
// memory is allocated per block and filled first with a value no computation should read (NaN, or
// 0xA5 bytes), so that reading what a missing barrier should have waited for gives a wrong value
// rather than a lucky one.

#include "ir/stmt.h"

namespace tessera::lowering {

ir::Stmt emulate_gpu_kernels(const ir::Stmt& s);

}  // namespace tessera::lowering
