#pragma once
// MemoryType: where a Func's storage lives (Func::store_in).

namespace tessera {

// Where a Func's storage lives (store_in). Auto: on the stack when its size is a constant of at
// most 16 KiB, else on the heap. Stack and Register need a size known when compiling (Register
// is stack memory that LLVM keeps in registers where every access has a constant index). The GPU
// memories exist only inside GPU kernels.
enum class MemoryType { Auto, Heap, Stack, Register, GPUShared, GPULocal };

// The name of a memory type, as messages and printed IR spell it ("Stack").
const char* memory_type_name(MemoryType t);

}  // namespace tessera
