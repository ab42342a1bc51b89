#pragma once
// Makes each GPU kernel the shape a GPU runs: a nest of loops over __block_id_x/y/z (the kernel's
// block loops, innermost x) around one nest of loops over __thread_id_x/y/z, whose extents are the
// largest of the kernel's thread nests. Each of the block's former thread nests runs where the
// thread's ids fall within its extents; the block's code outside any thread loop runs in thread 0
// alone; and a gpu_barrier() separates any two of these that touch the same memory, one of them
// writing it, and ends each loop of the block whose iterations do so. Run after place_gpu_storage.

#include "ir/stmt.h"

namespace tessera::lowering {

ir::Stmt fuse_gpu_thread_loops(const ir::Stmt& s);

}  // namespace tessera::lowering
