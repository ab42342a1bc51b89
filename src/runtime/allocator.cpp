// Memory for pipelines' intermediate buffers: 64-byte aligned, replaceable by the application.

#include <atomic>
#include <cstdlib>

#include "tessera/runtime.h"

namespace {

constexpr uint64_t kAlignment = 64;

void* default_malloc(void* /*user_context*/, uint64_t size) {
    // aligned_alloc wants a multiple of the alignment; a zero-sized request still gets memory, so
    // that a null result always means failure.
    if (size > UINT64_MAX - kAlignment) return nullptr;
    uint64_t rounded = size == 0 ? kAlignment : (size + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded > SIZE_MAX) return nullptr;
    return std::aligned_alloc(kAlignment, static_cast<size_t>(rounded));
}

void default_free(void* /*user_context*/, void* ptr) { std::free(ptr); }

// Set together; a pipeline reads both when it starts an allocation, so replace the allocator only
// while no pipeline runs.
std::atomic<tessera_malloc_t> custom_malloc{default_malloc};
std::atomic<tessera_free_t> custom_free{default_free};

}  // namespace

extern "C" {

void tessera_set_custom_allocator(tessera_malloc_t malloc_fn, tessera_free_t free_fn) {
    if (malloc_fn && free_fn) {
        custom_malloc.store(malloc_fn);
        custom_free.store(free_fn);
    } else {
        custom_malloc.store(default_malloc);
        custom_free.store(default_free);
    }
}

void* tessera_malloc(void* user_context, uint64_t size) { return custom_malloc.load()(user_context, size); }

void tessera_free(void* user_context, void* ptr) {
    if (ptr) custom_free.load()(user_context, ptr);
}

}  // extern "C"
