#pragma once
// Staging data through memory of a chosen kind, with TVM's meaning.
//
// cache_read(f, consumers, memory) returns a new Func that copies f (a Func, a Buffer or an
// ImageParam) for the given consumers, which read the copy instead of f from then on. The copy is
// a Func like any other: compute_at, store_in, reorder_storage, vectorize... and because its
// storage is its own, its layout may differ from the source's, which is how packing is expressed.
//
// cache_write(f, memory) moves f's definitions (its pure definition and every update) to a new
// Func, returned, that computes into storage of the given memory; f becomes the stage that copies
// that result out, keeping its own pure schedule and placement. The updates' schedules move with
// them; the new Func's pure definition starts unscheduled. Schedule the returned Func inside
// f's loops (compute_at) to accumulate a tile in registers or on the stack before writing it once.

#include <vector>

#include "tessera/buffer.h"
#include "tessera/func.h"
#include "tessera/memory_type.h"
#include "tessera/param.h"

namespace tessera {

Func cache_read(const Func& f, const std::vector<Func>& consumers, MemoryType memory_type = MemoryType::Auto);
Func cache_write(const Func& f, MemoryType memory_type = MemoryType::Auto);
Func cache_read(const ImageParam& image, const std::vector<Func>& consumers,
                MemoryType memory_type = MemoryType::Auto);

namespace lang {
Func cache_read_buffer(const std::shared_ptr<BufferContents>& buffer, Type type,
                       const std::vector<Func>& consumers, MemoryType memory_type);
}

template <typename T, int Dims>
Func cache_read(const Buffer<T, Dims>& buffer, const std::vector<Func>& consumers,
                MemoryType memory_type = MemoryType::Auto) {
    return lang::cache_read_buffer(buffer.contents(), buffer.type(), consumers, memory_type);
}

}  // namespace tessera
