// Memory for pipelines' intermediate buffers: 64-byte aligned, replaceable by the application.

#include <atomic>
#include <cstdlib>
#include <list>
#include <mutex>
#include <unordered_map>

#include "tessera/runtime.h"

namespace {

constexpr uint64_t kAlignment = 64;

// Large blocks freed are kept, the most recent first, and handed out again to requests they fit.
// A pipeline run many times allocates its large buffers afresh each run (a padded input computed
// at the root); the C library gives a large block back to the kernel when it is freed in some
// processes and not in others (as its heap can or cannot grow where it lies), and where it does,
// every run faulted the pages in again: the OCR detector ran 1.5 to 2 times slower in one process
// in three. The most recently freed block is also the one still in the caches, as the C library's
// own reuse would give; a block kept for a request of its exact size, a model's run later, was not,
// and memory-bound groups ran twice as slow.
class RecentLargeBlocks {
public:
    static constexpr uint64_t kLarge = uint64_t(1) << 20;
    // Enough for a pyramid's levels, each a few hundred MB at most: a local Laplacian of a 4 Mpixel
    // image frees fifteen blocks of 1 to 130 MB a run, and faulting them in again cost ten times
    // its computation.
    static constexpr size_t kMostBlocks = 32;
    static constexpr uint64_t kMostBytes = uint64_t(1) << 30;

    // Never destroyed: pipelines may free their buffers during static destruction.
    static RecentLargeBlocks& get() {
        static auto* blocks = new RecentLargeBlocks();
        return *blocks;
    }

    // A kept block of at least size bytes and at most four times as many, the most recent first.
    void* take(uint64_t size) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = kept_.begin(); it != kept_.end(); ++it) {
            if (it->bytes < size || it->bytes / 4 > size) continue;
            const Block block = *it;
            kept_.erase(it);
            kept_bytes_ -= block.bytes;
            live_[block.address] = block.bytes;
            return block.address;
        }
        return nullptr;
    }

    void note_allocated(void* address, uint64_t bytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        live_[address] = bytes;
    }

    // Keeps the block if it is a large one allocated here; false if it is not one.
    bool keep(void* address) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto live = live_.find(address);
        if (live == live_.end()) return false;
        kept_.push_front({address, live->second});
        kept_bytes_ += live->second;
        live_.erase(live);
        while (kept_.size() > kMostBlocks || kept_bytes_ > kMostBytes) {
            kept_bytes_ -= kept_.back().bytes;
            std::free(kept_.back().address);
            kept_.pop_back();
        }
        return true;
    }

private:
    struct Block {
        void* address;
        uint64_t bytes;
    };
    std::mutex mutex_;
    std::list<Block> kept_;                     // the most recently freed first
    std::unordered_map<void*, uint64_t> live_;  // large blocks in use
    uint64_t kept_bytes_ = 0;
};

// Under AddressSanitizer blocks are never reused, so that a use after free is still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kKeepLargeBlocks = false;
#else
constexpr bool kKeepLargeBlocks = true;
#endif

void* default_malloc(void* /*user_context*/, uint64_t size) {
    // aligned_alloc wants a multiple of the alignment; a zero-sized request still gets memory, so
    // that a null result always means failure.
    if (size > UINT64_MAX - kAlignment) return nullptr;
    uint64_t rounded = size == 0 ? kAlignment : (size + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded > SIZE_MAX) return nullptr;
    const bool large = kKeepLargeBlocks && rounded >= RecentLargeBlocks::kLarge;
    if (large) {
        if (void* kept = RecentLargeBlocks::get().take(rounded)) return kept;
    }
    void* block = std::aligned_alloc(kAlignment, static_cast<size_t>(rounded));
    if (large && block) RecentLargeBlocks::get().note_allocated(block, rounded);
    return block;
}

void default_free(void* /*user_context*/, void* ptr) {
    if (kKeepLargeBlocks && ptr && RecentLargeBlocks::get().keep(ptr)) return;
    std::free(ptr);
}

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
