#include "lowering/place_gpu_storage.h"

#include "ir/constant_upper_bound.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "lowering/cooperative_regions.h"
#include "lowering/enclosing_lets.h"
#include "lowering/loop_owners.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

class PlaceGPUStorage : public ir::Mutator {
public:
    PlaceGPUStorage(const Environment& env, std::set<std::string> cooperative, int cuda_capability)
        : env_(env), owners_(env), cooperative_(std::move(cooperative)), cuda_capability_(cuda_capability) {}

private:
    using ir::Mutator::visit;

    const Environment& env_;
    LoopOwners owners_;
    const std::set<std::string> cooperative_;  // Funcs the threads of a block compute together
    const int cuda_capability_;
    EnclosingLets lets_;
    int block_loops_ = 0, thread_loops_ = 0;
    // The shared allocations of the kernel being visited, with their sizes in bytes.
    std::vector<std::pair<std::string, int64_t>> shared_;

    ir::Stmt visit(const ir::LetStmt* op) override {
        lets_.push(op->name, op->value);
        ir::Stmt body = mutate(op->body);
        lets_.pop(op->name);
        return body.same_as(op->body) ? handle_of(op) : ir::LetStmt::make(op->name, op->value, body);
    }

    ir::Stmt visit(const ir::For* op) override {
        const bool block = op->for_kind == ir::ForKind::GPUBlock,
                   thread = ir::is_gpu_thread_loop(op->for_kind);
        const bool kernel = block && block_loops_ == 0;
        if (kernel) shared_.clear();
        block_loops_ += block;
        thread_loops_ += thread;
        lets_.push(op->name, ir::Expr());
        ir::Stmt body = mutate(op->body);
        lets_.pop(op->name);
        block_loops_ -= block;
        thread_loops_ -= thread;
        if (kernel) check_shared_bytes(op);
        return body.same_as(op->body) ? handle_of(op)
                                      : ir::For::make(op->name, op->min, op->extent, op->for_kind, body);
    }

    ir::Stmt visit(const ir::Allocate* op) override {
        const MemoryType placed = placement(op);
        // GPU storage is sized when compiling, for the largest region it holds.
        std::vector<ir::Expr> extents = op->extents;
        if (block_loops_ > 0) {
            for (ir::Expr& e : extents) e = ir::make_const(Int(32), *constant_extent(e));
        }
        ir::Stmt body = mutate(op->body);
        return ir::Allocate::make(op->name, op->type, extents, body, placed);
    }

    std::optional<int64_t> constant_extent(const ir::Expr& e) const {
        const std::optional<ir::Expr> expanded = lets_.expanded(e);
        return expanded ? ir::constant_upper_bound(*expanded) : std::nullopt;
    }

    MemoryType placement(const ir::Allocate* op) {
        const std::string func = env_.func_of_buffer(op->name);
        const MemoryType asked = op->memory_type;
        if (block_loops_ == 0) {
            TESSERA_USER_CHECK(asked != MemoryType::GPUShared && asked != MemoryType::GPULocal)
                << "Func " << func << " is stored in " << memory_type_name(asked)
                << " memory, which exists only inside GPU kernels, but it is stored outside any. Store it "
                << "at a block or thread loop of a GPU schedule, or in MemoryType::Stack or Heap.";
            return asked;
        }
        const int64_t bytes = constant_bytes(op, func);
        if (thread_loops_ == 0 || cooperative_.count(func)) {
            TESSERA_USER_CHECK(asked == MemoryType::Auto || asked == MemoryType::GPUShared)
                << "Func " << func << " is stored at a block loop of a GPU kernel, where its storage is "
                << "shared by the block's threads, but it asks for " << memory_type_name(asked)
                << " memory. Store it in MemoryType::GPUShared, or at a thread loop.";
            shared_.push_back({func, bytes});
            return MemoryType::GPUShared;
        }
        TESSERA_USER_CHECK(asked != MemoryType::Heap && asked != MemoryType::GPUShared)
            << "Func " << func
            << " is stored inside a GPU thread loop, where each thread has its own, but it "
            << "asks for " << memory_type_name(asked) << " memory. Store it in registers or GPULocal memory, "
            << "or at a block loop for GPUShared memory.";
        return asked == MemoryType::Register ? MemoryType::Register : MemoryType::Stack;
    }

    int64_t constant_bytes(const ir::Allocate* op, const std::string& func) const {
        int64_t bytes = op->type.bytes();
        for (const ir::Expr& e : op->extents) {
            std::optional<int64_t> extent = constant_extent(e);
            TESSERA_USER_CHECK(extent.has_value())
                << "Func " << func << " is stored inside a GPU kernel over an extent of " << e
                << ", which has no constant upper bound; GPU storage has a fixed size. Give its region a "
                << "constant size: compute it at a loop of constant extent (a gpu_tile), or bound() it.";
            bytes *= std::max<int64_t>(*extent, 0);
        }
        return bytes;
    }

    void check_shared_bytes(const ir::For* kernel) const {
        int64_t total = 0;
        std::string list;
        for (const auto& [func, bytes] : shared_) {
            total += bytes;
            list += (list.empty() ? "" : ", ") + func + " (" + std::to_string(bytes) + " bytes)";
        }
        const int64_t limit = max_shared_bytes_per_block(cuda_capability_);
        TESSERA_USER_CHECK(total <= limit)
            << "the GPU kernel of " << owners_.of(kernel->name).stage_text() << "'s block loop over "
            << owners_.of(kernel->name).var << " keeps " << total << " bytes of shared memory, more than the "
            << limit << " a block may have on sm_" << cuda_capability_ << " (" << kStaticSharedBytes
            << " statically, the rest by the dynamic opt-in): " << list
            << ". Compute them over smaller tiles (smaller gpu_tile sizes), or at a thread loop"
            << (cuda_capability_ < 90 ? "; or target a newer GPU (cuda_capability_90 allows 232448)" : "")
            << ".";
    }
};

}  // namespace

int64_t aligned_shared_bytes(const ir::Allocate& shared) {
    int64_t bytes = shared.type.bytes() * shared.type.lanes();
    for (const ir::Expr& extent : shared.extents) {
        const std::optional<int64_t> e = ir::as_const_int(extent);
        TESSERA_INTERNAL_CHECK(e) << "shared allocation " << shared.name << " of non-constant size";
        bytes *= std::max<int64_t>(*e, 0);
    }
    return (bytes + 15) / 16 * 16;
}

int64_t max_shared_bytes_per_block(int cuda_capability) {
    // The CUDA programming guide's table of the shared memory a block may opt in to.
    if (cuda_capability >= 90) return 227 * 1024;
    if (cuda_capability == 80) return 163 * 1024;
    if (cuda_capability >= 86) return 99 * 1024;
    return 64 * 1024;
}

ir::Stmt place_gpu_storage(const ir::Stmt& s, const Environment& env, int cuda_capability) {
    return PlaceGPUStorage(env, cooperative_funcs(s), cuda_capability).mutate(s);
}

}  // namespace tessera::lowering
