#pragma once
// PTX for NVIDIA GPUs: the kernels of a lowered pipeline, through LLVM's NVPTX backend.

#include <string>

#include "lowering/lowered_function.h"

namespace tessera {
struct Target;
}

namespace tessera::targets {

// The PTX text of f.kernels for the GPU of target (its cuda_capability: sm_75 to sm_90, with the
// PTX ISA version that introduced it), optimized, with the math functions the kernels call linked
// from CUDA's libdevice, and a thread's vectors at 16-byte aligned places of shared or device
// memory loaded and stored 16 bytes at a time. Shared memory beyond 48 KiB is dynamic. Throws CompileError
// where a kernel needs libdevice and there is none, or does what a kernel cannot (print, heap memory, a
// tensor intrinsic).
std::string codegen_ptx(const lowering::LoweredFunction& f, const Target& target);

// The libdevice bitcode kernels' math functions come from: $TESSERA_LIBDEVICE if set, else the
// one the build found at configure time; empty when there is none.
std::string libdevice_path();

}  // namespace tessera::targets
