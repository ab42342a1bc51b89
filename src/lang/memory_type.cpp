#include "tessera/memory_type.h"

namespace tessera {

const char* memory_type_name(MemoryType t) {
    switch (t) {
        case MemoryType::Auto: return "Auto";
        case MemoryType::Heap: return "Heap";
        case MemoryType::Stack: return "Stack";
        case MemoryType::Register: return "Register";
        case MemoryType::GPUShared: return "GPUShared";
        case MemoryType::GPULocal: return "GPULocal";
    }
    return "unknown";
}

}  // namespace tessera
