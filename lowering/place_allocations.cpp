#include "lowering/place_allocations.h"

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "lowering/enclosing_lets.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

// Constant-size allocations up to this many bytes go on the stack when the schedule leaves the
// choice to the compiler.
constexpr int64_t kAutoStackBytes = 16 * 1024;
// More than this on the stack would risk overflowing a thread's stack (8 MiB by default, shared
// with everything else the thread runs), a crash rather than an error.
constexpr int64_t kMaxStackBytes = 1024 * 1024;

class PlaceAllocations : public ir::Mutator {
public:
    explicit PlaceAllocations(const Environment& env) : env_(env) {}

private:
    using ir::Mutator::visit;

    // The value of an extent when the lets around it make it a constant.
    std::optional<int64_t> constant_extent(const ir::Expr& e) const { return lets_.constant(e); }

    // The allocation's size in bytes when every extent is a constant.
    std::optional<int64_t> constant_bytes(const ir::Allocate* op) const {
        int64_t bytes = op->type.bytes() * op->type.lanes();
        for (const ir::Expr& e : op->extents) {
            std::optional<int64_t> extent = constant_extent(e);
            if (!extent) return std::nullopt;
            bytes *= std::max<int64_t>(*extent, 0);
        }
        return bytes;
    }

    ir::Stmt visit(const ir::LetStmt* op) override {
        lets_.push(op->name, op->value);
        ir::Stmt body = mutate(op->body);
        lets_.pop(op->name);
        return body.same_as(op->body) ? handle_of(op) : ir::LetStmt::make(op->name, op->value, body);
    }

    std::string func_of(const std::string& buffer) const { return env_.func_of_buffer(buffer); }

    ir::Stmt visit(const ir::Allocate* op) override {
        ir::Stmt body = mutate(op->body);
        const std::optional<int64_t> bytes = constant_bytes(op);
        MemoryType placed = op->memory_type;
        // Stack memory needs the extents as constants in the code; elsewhere they are simpler so.
        std::vector<ir::Expr> extents = op->extents;
        if (bytes) {
            for (ir::Expr& e : extents) e = ir::make_const(Int(32), *constant_extent(e));
        }
        switch (op->memory_type) {
            case MemoryType::Auto:
                placed = bytes && *bytes <= kAutoStackBytes ? MemoryType::Stack : MemoryType::Heap;
                break;
            case MemoryType::Stack:
            case MemoryType::Register:
                if (!bytes) {
                    std::string extents;
                    for (const ir::Expr& e : op->extents)
                        extents += (extents.empty() ? "" : " x ") + ir::to_string(e);
                    TESSERA_USER_ERROR << "Func " << func_of(op->name) << " is stored in "
                                       << memory_type_name(op->memory_type)
                                       << " memory, but the size of its storage is not known when compiling ("
                                       << extents << "). Give its region a constant size with bound() or "
                                       << "compute it inside a loop of constant extent, or store it in "
                                       << "MemoryType::Heap.";
                }
                if (*bytes > kMaxStackBytes) {
                    TESSERA_USER_ERROR << "Func " << func_of(op->name) << " is stored in "
                                       << memory_type_name(op->memory_type)
                                       << " memory, but its storage takes " << *bytes
                                       << " bytes, more than the " << kMaxStackBytes
                                       << " a stack can safely hold. Compute it over a smaller region "
                                       << "(compute_at an inner loop) or store it in MemoryType::Heap.";
                }
                break;
            case MemoryType::GPUShared:
            case MemoryType::GPULocal:
                // place_gpu_storage has put these inside kernels, and checked their sizes.
                break;
            case MemoryType::Heap: break;
        }
        return ir::Allocate::make(op->name, op->type, extents, body, placed);
    }

    const Environment& env_;
    EnclosingLets lets_;
};

}  // namespace

ir::Stmt place_allocations(const ir::Stmt& s, const Environment& env) {
    return PlaceAllocations(env).mutate(s);
}

}  // namespace tessera::lowering
