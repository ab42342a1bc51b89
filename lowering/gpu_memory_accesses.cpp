#include "lowering/gpu_memory_accesses.h"

#include <algorithm>

#include "ir/visitor.h"

namespace tessera::lowering {
namespace {

bool intersect(const std::set<std::string>& a, const std::set<std::string>& b) {
    return std::any_of(a.begin(), a.end(), [&](const std::string& name) { return b.count(name) > 0; });
}

class CollectAccesses : public ir::Visitor {
public:
    explicit CollectAccesses(InnerAllocations left_out) : left_out_(left_out) {}
    GPUMemoryAccesses accesses;
    std::set<std::string> left_out_allocations;

private:
    void visit(const ir::Load* op) override {
        accesses.loads.insert(op->name);
        ir::Visitor::visit(op);
    }
    void visit(const ir::Store* op) override {
        accesses.stores.insert(op->name);
        ir::Visitor::visit(op);
    }
    void visit(const ir::Allocate* op) override {
        if (left_out_ == InnerAllocations::All || op->memory_type != MemoryType::GPUShared)
            left_out_allocations.insert(op->name);
        ir::Visitor::visit(op);
    }
    void visit(const ir::For* op) override {
        accesses.holds_kernel = accesses.holds_kernel || op->for_kind == ir::ForKind::GPUBlock;
        ir::Visitor::visit(op);
    }

    const InnerAllocations left_out_;
};

class FindBarrier : public ir::Visitor {
public:
    bool found = false;

private:
    void visit(const ir::Call* op) override {
        found = found || op->intrinsic == ir::Intrinsic::GPUBarrier;
        ir::Visitor::visit(op);
    }
};

}  // namespace

bool GPUMemoryAccesses::conflicts_with(const GPUMemoryAccesses& later) const {
    return intersect(stores, later.loads) || intersect(stores, later.stores) ||
           intersect(loads, later.stores);
}

void GPUMemoryAccesses::add(const GPUMemoryAccesses& other) {
    loads.insert(other.loads.begin(), other.loads.end());
    stores.insert(other.stores.begin(), other.stores.end());
}

GPUMemoryAccesses gpu_memory_accesses(const ir::Stmt& s, InnerAllocations left_out) {
    CollectAccesses c(left_out);
    c.include(s);
    for (const std::string& name : c.left_out_allocations) {
        c.accesses.loads.erase(name);
        c.accesses.stores.erase(name);
    }
    return c.accesses;
}

bool contains_gpu_barrier(const ir::Stmt& s) {
    FindBarrier f;
    f.include(s);
    return f.found;
}

ir::Stmt gpu_barrier() {
    return ir::Evaluate::make(ir::Call::make_intrinsic(Int(32), ir::Intrinsic::GPUBarrier, {}));
}

bool is_gpu_barrier(const ir::Stmt& s) {
    const ir::Evaluate* e = s.as<ir::Evaluate>();
    const ir::Call* c = e ? e->value.as<ir::Call>() : nullptr;
    return c && c->intrinsic == ir::Intrinsic::GPUBarrier;
}

}  // namespace tessera::lowering
