#pragma once
// The memory a stretch of a GPU kernel's code reads and writes, by name, for deciding where its
// threads must wait for each other.

#include <set>
#include <string>

#include "ir/stmt.h"

namespace tessera::lowering {

struct GPUMemoryAccesses {
    std::set<std::string> loads, stores;

    // Whether code doing `later` after this code must wait for every thread to finish this code:
    // one writes memory that the other reads or writes.
    bool conflicts_with(const GPUMemoryAccesses& later) const;
    void add(const GPUMemoryAccesses& other);
};

// The buffers and allocations s loads and stores, without the allocations inside s that are each
// thread's own (every allocation but shared memory), which no other thread sees.
GPUMemoryAccesses gpu_memory_accesses(const ir::Stmt& s);

// Whether s contains a gpu_barrier().
bool contains_gpu_barrier(const ir::Stmt& s);

// The statement gpu_barrier().
ir::Stmt gpu_barrier();
bool is_gpu_barrier(const ir::Stmt& s);

}  // namespace tessera::lowering
