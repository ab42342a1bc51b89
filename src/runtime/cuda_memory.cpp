// CUDA device memory: the device interface's allocation, copies and synchronization, and the
// blocks freed that are kept for reuse.

#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda_context.h"
#include "cuda_driver.h"
#include "tessera/runtime.h"

namespace tessera::runtime::cuda {
namespace {

// A device allocation: `bytes` at `base` in `context`.
struct Block {
    CUcontext context;
    CUdeviceptr base;
    uint64_t bytes;
};

// Blocks freed are kept, the most recent first, and handed out again to a request of the same
// size in the same context. A pipeline run many times allocates the same buffers each run, and
// cuMemAlloc and cuMemFree each synchronize the device; reuse makes the second run's allocations
// free. Bounded, so that memory kept never starves another allocation; an allocation that finds
// the device out of memory frees them all and tries again.
class DeviceBlocks {
public:
    static constexpr size_t kMostBlocks = 16;
    static constexpr uint64_t kMostBytes = uint64_t(1) << 30;

    // Never destroyed: buffers may be freed during static destruction.
    static DeviceBlocks& get() {
        static auto* blocks = new DeviceBlocks();
        return *blocks;
    }

    // A kept block of exactly `bytes` in `context`, no longer kept.
    bool take(CUcontext context, uint64_t bytes, Block* block) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = kept_.begin(); it != kept_.end(); ++it) {
            if (it->context != context || it->bytes != bytes) continue;
            *block = *it;
            kept_bytes_ -= it->bytes;
            kept_.erase(it);
            return true;
        }
        return false;
    }

    // Records that the buffer whose device address is `device` uses block.
    void note_live(CUdeviceptr device, const Block& block) {
        std::lock_guard<std::mutex> lock(mutex_);
        live_[device] = block;
    }

    // The block of the buffer whose device address is `device`, no longer live; false if the
    // runtime did not allocate it.
    bool forget_live(CUdeviceptr device, Block* block) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = live_.find(device);
        if (it == live_.end()) return false;
        *block = it->second;
        live_.erase(it);
        return true;
    }

    // Keeps block; returns the blocks that no longer fit within the bounds, for the caller to free.
    std::vector<Block> keep(const Block& block) {
        std::lock_guard<std::mutex> lock(mutex_);
        kept_.push_front(block);
        kept_bytes_ += block.bytes;
        std::vector<Block> evicted;
        while (kept_.size() > kMostBlocks || kept_bytes_ > kMostBytes) {
            evicted.push_back(kept_.back());
            kept_bytes_ -= kept_.back().bytes;
            kept_.pop_back();
        }
        return evicted;
    }

    std::vector<Block> take_all_kept() {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<Block> all(kept_.begin(), kept_.end());
        kept_.clear();
        kept_bytes_ = 0;
        return all;
    }

private:
    std::mutex mutex_;
    std::list<Block> kept_;  // the most recently freed first
    std::unordered_map<CUdeviceptr, Block> live_;
    uint64_t kept_bytes_ = 0;
};

// Frees blocks, each in its own context. A failure leaks the block and nothing else; there is no
// caller to tell (this runs when memory is given back, not when it is asked for).
void free_blocks(const Driver& driver, const std::vector<Block>& blocks) {
    for (const Block& b : blocks) {
        if (driver.cuCtxPushCurrent_v2(b.context) != CUDA_SUCCESS) continue;
        driver.cuMemFree_v2(b.base);
        CUcontext popped = nullptr;
        driver.cuCtxPopCurrent_v2(&popped);
    }
}

void free_kept_blocks() {
    std::vector<Block> kept = DeviceBlocks::get().take_all_kept();
    int32_t error = 0;
    if (const Driver* driver = load_driver_quietly(&error); driver && !kept.empty())
        free_blocks(*driver, kept);
}

// Where a buffer's elements lie relative to the element at its mins: from `lowest` bytes (zero or
// less) for `bytes` bytes. The device memory holds exactly this span.
struct Span {
    int64_t lowest;
    uint64_t bytes;
};

Span span_of(const tessera_buffer_t& buf) {
    const int64_t element = (buf.type.bits * int64_t(buf.type.lanes > 0 ? buf.type.lanes : 1) + 7) / 8;
    int64_t lo = 0, hi = 1;
    for (int i = 0; i < buf.dimensions; i++) {
        const tessera_dimension_t& d = buf.dim[i];
        if (d.extent <= 0) return {0, 0};
        const int64_t reach = int64_t(d.extent - 1) * d.stride;
        (reach < 0 ? lo : hi) += reach;
    }
    return {lo * element, uint64_t(hi - lo) * uint64_t(element)};
}

int32_t report_buffer_error(void* user_context, const char* what, int32_t code) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context, "CUDA: ");
    tessera_error_append_string(user_context, what);
    return tessera_error_end(user_context, code);
}

const tessera_device_interface_t& cuda_interface();

// A new block of `bytes` in the scope's context, or a kept one of that size.
int32_t allocate_block(void* user_context, const ContextScope& scope, uint64_t bytes, Block* block) {
    if (DeviceBlocks::get().take(scope.context(), bytes, block)) return 0;
    const Driver& d = scope.driver();
    CUdeviceptr base = 0;
    CUresult r = d.cuMemAlloc_v2(&base, size_t(bytes));
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        free_kept_blocks();
        r = d.cuMemAlloc_v2(&base, size_t(bytes));
    }
    if (r != CUDA_SUCCESS) {
        const std::string advice = "The allocation was of " + std::to_string(bytes) + " bytes";
        return report_failed_call(user_context, d, "cuMemAlloc_v2", r, nullptr, advice.c_str());
    }
    *block = {scope.context(), base, bytes};
    return 0;
}

int32_t cuda_device_malloc(void* user_context, tessera_buffer_t* buf) {
    if (!buf)
        return report_buffer_error(user_context, "device_malloc of a null buffer.",
                                   tessera_error_null_buffer);
    if (buf->device) return 0;
    const Span span = span_of(*buf);
    ContextScope scope(user_context);
    if (scope.error()) return scope.error();
    Block block{};
    // cuMemAlloc refuses zero bytes; an empty buffer still gets an address of its own.
    if (int32_t error = allocate_block(user_context, scope, span.bytes > 0 ? span.bytes : 1, &block))
        return error;
    buf->device = block.base + CUdeviceptr(-span.lowest);
    buf->device_interface = &cuda_interface();
    DeviceBlocks::get().note_live(buf->device, block);
    return 0;
}

int32_t cuda_device_free(void* user_context, tessera_buffer_t* buf) {
    if (!buf || !buf->device) return 0;
    Block block{};
    if (!DeviceBlocks::get().forget_live(buf->device, &block)) {
        tessera_error_begin(user_context);
        tessera_error_append_string(user_context, "CUDA: device_free of device address ");
        tessera_error_append_uint(user_context, buf->device);
        tessera_error_append_string(user_context,
                                    ", which the runtime did not allocate or has freed already (is it "
                                    "shared by two tessera_buffer_t?).");
        return tessera_error_end(user_context, tessera_error_bad_argument);
    }
    buf->device = 0;
    buf->device_interface = nullptr;
    buf->flags &= ~uint64_t(TESSERA_BUFFER_DEVICE_DIRTY);
    std::vector<Block> evicted = DeviceBlocks::get().keep(block);
    int32_t error = 0;
    if (const Driver* driver = load_driver_quietly(&error); driver && !evicted.empty())
        free_blocks(*driver, evicted);
    return 0;
}

// Copies the span of buf between host and device, in the direction `to_device` says.
int32_t copy_span(void* user_context, tessera_buffer_t* buf, bool to_device) {
    const char* call = to_device ? "cuMemcpyHtoD_v2" : "cuMemcpyDtoH_v2";
    if (!buf) return report_buffer_error(user_context, "a copy of a null buffer.", tessera_error_null_buffer);
    if (!buf->host)
        return report_buffer_error(user_context,
                                   "a copy between device and host of a buffer with no host memory.",
                                   tessera_error_null_host);
    if (!buf->device)
        return report_buffer_error(user_context,
                                   "a copy between device and host of a buffer with no device memory.",
                                   tessera_error_bad_argument);
    const Span span = span_of(*buf);
    if (span.bytes == 0) return 0;
    ContextScope scope(user_context);
    if (scope.error()) return scope.error();
    uint8_t* host = buf->host + span.lowest;
    const CUdeviceptr device = buf->device + CUdeviceptr(span.lowest);
    const CUresult r = to_device ? scope.driver().cuMemcpyHtoD_v2(device, host, size_t(span.bytes))
                                 : scope.driver().cuMemcpyDtoH_v2(host, device, size_t(span.bytes));
    return r == CUDA_SUCCESS ? 0 : report_failed_call(user_context, scope.driver(), call, r);
}

int32_t cuda_copy_to_device(void* user_context, tessera_buffer_t* buf) {
    return copy_span(user_context, buf, true);
}

int32_t cuda_copy_to_host(void* user_context, tessera_buffer_t* buf) {
    return copy_span(user_context, buf, false);
}

int32_t cuda_device_sync(void* user_context, tessera_buffer_t* /*buf*/) {
    ContextScope scope(user_context);
    if (scope.error()) return scope.error();
    const CUresult r = scope.driver().cuCtxSynchronize();
    return r == CUDA_SUCCESS ? 0 : report_failed_call(user_context, scope.driver(), "cuCtxSynchronize", r);
}

const tessera_device_interface_t& cuda_interface() {
    static const tessera_device_interface_t interface = {
        "cuda",          cuda_device_malloc, cuda_device_free, cuda_copy_to_device, cuda_copy_to_host,
        cuda_device_sync};
    return interface;
}

}  // namespace
}  // namespace tessera::runtime::cuda

extern "C" {

const tessera_device_interface_t* tessera_cuda_device_interface(void) {
    return &tessera::runtime::cuda::cuda_interface();
}

void tessera_cuda_release_unused_device_allocations(void) { tessera::runtime::cuda::free_kept_blocks(); }

}  // extern "C"
