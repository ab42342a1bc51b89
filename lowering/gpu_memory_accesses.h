#pragma once
// The memory a stretch of code reads and writes, by name: inside a GPU kernel, for deciding where
// its threads must wait for each other; around kernels, for what to copy between host and device.

#include <set>
#include <string>

#include "ir/stmt.h"

namespace tessera::lowering {

struct GPUMemoryAccesses {
    std::set<std::string> loads, stores;
    bool holds_kernel = false;  // whether the code holds a GPU kernel (a block loop)

    // Whether code doing `later` after this code must wait for every thread to finish this code:
    // one writes memory that the other reads or writes.
    bool conflicts_with(const GPUMemoryAccesses& later) const;
    void add(const GPUMemoryAccesses& other);
};

// Which of the allocations inside a statement its accesses leave out.
enum class InnerAllocations {
    ThreadPrivate,  // each thread's own (every one but shared memory), which no other thread sees
    All,            // all: code around kernels, where nothing allocated inside is seen outside
};

// The buffers and allocations s loads and stores, but for the allocations inside s left out.
GPUMemoryAccesses gpu_memory_accesses(const ir::Stmt& s,
                                      InnerAllocations left_out = InnerAllocations::ThreadPrivate);

// Whether s contains a gpu_barrier().
bool contains_gpu_barrier(const ir::Stmt& s);

// The statement gpu_barrier().
ir::Stmt gpu_barrier();
bool is_gpu_barrier(const ir::Stmt& s);

}  // namespace tessera::lowering
