#include "lowering/inject_device_copies.h"

#include <set>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"
#include "lowering/gpu_memory_accesses.h"

namespace tessera::lowering {
namespace {

bool is_kernel(const ir::Stmt& s) {
    const ir::For* loop = s.as<ir::For>();
    return loop && loop->for_kind == ir::ForKind::GPUBlock;
}

// The memory a statement loads and stores, but for the allocations inside it. (Finding the host
// code around kernels this way costs the size of the code times the depth of the kernels in it.)
GPUMemoryAccesses accesses_of(const ir::Stmt& s) { return gpu_memory_accesses(s, InnerAllocations::All); }

// The memory that any kernel of s uses.
class CollectDeviceMemory : public ir::Visitor {
public:
    std::set<std::string> used;

private:
    void visit(const ir::For* op) override {
        if (op->for_kind != ir::ForKind::GPUBlock) return ir::Visitor::visit(op);
        const GPUMemoryAccesses a = accesses_of(ir::handle_of(op));
        used.insert(a.loads.begin(), a.loads.end());
        used.insert(a.stores.begin(), a.stores.end());
    }
};

ir::Stmt buffer_call(ir::Intrinsic op, const std::string& buffer) {
    return ir::Evaluate::make(
        ir::Call::make_intrinsic(Int(32), op, {ir::Variable::make(Handle(), buffer + ".buffer")}));
}

class InjectDeviceCopies : public ir::Mutator {
public:
    InjectDeviceCopies(std::set<std::string> device_memory, std::map<std::string, bool>& device_allocations)
        : device_memory_(std::move(device_memory)), device_allocations_(device_allocations) {}

    ir::Stmt mutate(const ir::Stmt& s) override {
        if (!s.defined()) return s;
        if (is_kernel(s)) return around_kernel(s);
        const GPUMemoryAccesses a = accesses_of(s);
        if (!a.holds_kernel) return around_host_code(s, a);
        return ir::Mutator::mutate(s);
    }

private:
    using ir::Mutator::visit;

    ir::Stmt around_kernel(const ir::Stmt& kernel) {
        const GPUMemoryAccesses a = accesses_of(kernel);
        std::vector<ir::Stmt> stmts;
        for (const std::string& name : used(a)) {
            const Expr reads = ir::make_bool(a.loads.count(name) > 0);
            stmts.push_back(ir::Evaluate::make(
                ir::Call::make_intrinsic(Int(32), ir::Intrinsic::CopyToDevice,
                                         {ir::Variable::make(Handle(), name + ".buffer"), reads})));
        }
        stmts.push_back(kernel);
        for (const std::string& name : a.stores)
            stmts.push_back(buffer_call(ir::Intrinsic::SetDeviceDirty, name));
        return ir::Block::make(std::move(stmts));
    }

    ir::Stmt around_host_code(const ir::Stmt& s, const GPUMemoryAccesses& a) {
        std::vector<ir::Stmt> stmts;
        for (const std::string& name : used(a)) {
            if (!device_memory_.count(name)) continue;
            stmts.push_back(buffer_call(ir::Intrinsic::CopyToHost, name));
            if (auto it = device_allocations_.find(name); it != device_allocations_.end()) it->second = true;
        }
        if (stmts.empty()) return s;
        stmts.push_back(s);
        for (const std::string& name : a.stores) {
            if (device_memory_.count(name)) stmts.push_back(buffer_call(ir::Intrinsic::SetHostDirty, name));
        }
        return ir::Block::make(std::move(stmts));
    }

    static std::set<std::string> used(const GPUMemoryAccesses& a) {
        std::set<std::string> names = a.loads;
        names.insert(a.stores.begin(), a.stores.end());
        return names;
    }

    // The expressions of statements around kernels (a loop's bounds, a let's value, a condition)
    // are host code too: what they load is copied to the host before the statement.
    ir::Stmt with_host_copies_of(const std::vector<Expr>& exprs, const ir::Stmt& s) {
        std::set<std::string> loads;
        for (const Expr& e : exprs) {
            if (!e.defined()) continue;
            const GPUMemoryAccesses a = accesses_of(ir::Evaluate::make(e));
            loads.insert(a.loads.begin(), a.loads.end());
        }
        std::vector<ir::Stmt> stmts;
        for (const std::string& name : loads) {
            if (!device_memory_.count(name)) continue;
            stmts.push_back(buffer_call(ir::Intrinsic::CopyToHost, name));
            if (auto it = device_allocations_.find(name); it != device_allocations_.end()) it->second = true;
        }
        if (stmts.empty()) return s;
        stmts.push_back(s);
        return ir::Block::make(std::move(stmts));
    }

    ir::Stmt visit(const ir::For* op) override {
        return with_host_copies_of({op->min, op->extent}, ir::Mutator::visit(op));
    }
    ir::Stmt visit(const ir::LetStmt* op) override {
        std::vector<Expr> values;
        for (const ir::LetStmt* let = op; let; let = let->body.as<ir::LetStmt>())
            values.push_back(let->value);
        return with_host_copies_of(values, ir::Mutator::visit(op));
    }
    ir::Stmt visit(const ir::IfThenElse* op) override {
        return with_host_copies_of({op->condition}, ir::Mutator::visit(op));
    }
    ir::Stmt visit(const ir::Allocate* op) override {
        if (!device_memory_.count(op->name)) return with_host_copies_of(op->extents, ir::Mutator::visit(op));
        // Memory with a copy on the device is allocated by the runtime, never on the stack.
        device_allocations_.emplace(op->name, false);
        ir::Stmt body = mutate(op->body);
        return with_host_copies_of(op->extents, ir::Allocate::make(op->name, op->type, op->extents,
                                                                   std::move(body), MemoryType::Heap));
    }

    std::set<std::string> device_memory_;
    std::map<std::string, bool>& device_allocations_;
};

}  // namespace

ir::Stmt inject_device_copies(const ir::Stmt& s, std::map<std::string, bool>& device_allocations) {
    CollectDeviceMemory c;
    c.include(s);
    if (c.used.empty()) return s;
    return InjectDeviceCopies(std::move(c.used), device_allocations).mutate(s);
}

}  // namespace tessera::lowering
