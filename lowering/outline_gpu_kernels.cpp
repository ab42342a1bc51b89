#include "lowering/outline_gpu_kernels.h"

#include <map>
#include <set>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"
#include "lowering/names.h"
#include "lowering/place_gpu_storage.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

// What a kernel's body uses from outside it: values by name (with their types) and memory by
// name (with its element type).
class FreeSymbols : public ir::Visitor {
public:
    std::map<std::string, Type> values, memory;

private:
    void visit(const ir::Variable* op) override {
        if (!bound_.count(op->name)) values.emplace(op->name, op->type);
    }
    void visit(const ir::Load* op) override {
        if (!bound_.count(op->name)) memory.emplace(op->name, op->type.element_of());
        ir::Visitor::visit(op);
    }
    void visit(const ir::Store* op) override {
        if (!bound_.count(op->name)) memory.emplace(op->name, op->value.type().element_of());
        ir::Visitor::visit(op);
    }
    void visit(const ir::For* op) override {
        // A GPU loop's bounds are the launch's, on the host.
        if (!ir::is_gpu_loop(op->for_kind)) {
            include(op->min);
            include(op->extent);
        }
        bound_.insert(op->name);
        include(op->body);
    }
    void visit(const ir::Allocate* op) override {
        for (const Expr& e : op->extents) include(e);
        bound_.insert(op->name);
        include(op->body);
    }
    // Names are unique where they are bound (lowering gives every loop, let and allocation its
    // own), so a name bound anywhere inside is bound at each of its uses.
    void visit(const ir::LetStmt* op) override {
        for (const ir::LetStmt* let = op; let; let = let->body.as<ir::LetStmt>()) {
            include(let->value);
            bound_.insert(let->name);
            if (!let->body.as<ir::LetStmt>()) include(let->body);
        }
    }
    void visit(const ir::Let* op) override {
        for (const ir::Let* let = op; let; let = let->body.as<ir::Let>()) {
            include(let->value);
            bound_.insert(let->name);
            if (!let->body.as<ir::Let>()) include(let->body);
        }
    }

    std::set<std::string> bound_;
};

// A C identifier made of name: PTX entry points are.
std::string identifier(const std::string& name) {
    std::string id;
    for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "_" + id;
    return id;
}

// The shared memory of a kernel's allocations, each from a 16-byte boundary (as code generation
// lays them out in dynamic shared memory).
class SharedBytes : public ir::Visitor {
public:
    int64_t total = 0;

private:
    void visit(const ir::Allocate* op) override {
        if (op->memory_type == MemoryType::GPUShared) total += aligned_shared_bytes(*op);
        ir::Visitor::visit(op);
    }
};

class OutlineKernels : public ir::Mutator {
public:
    explicit OutlineKernels(std::vector<GpuKernel>& kernels) : kernels_(kernels) {}

private:
    using ir::Mutator::visit;

    ir::Stmt visit(const ir::ProducerConsumer* op) override {
        if (!op->is_producer) return ir::Mutator::visit(op);
        producers_.push_back(op->name);
        ir::Stmt s = ir::Mutator::visit(op);
        producers_.pop_back();
        return s;
    }

    ir::Stmt visit(const ir::For* op) override {
        if (op->for_kind != ir::ForKind::GPUBlock) return ir::Mutator::visit(op);
        GpuKernel kernel;
        kernel.name = identifier((producers_.empty() ? "kernel" : producers_.back()) + "_kernel" +
                                 std::to_string(kernels_.size()));
        kernel.body = ir::handle_of(op);
        std::array<Expr, 3> blocks = {ir::make_one(Int(32)), ir::make_one(Int(32)), ir::make_one(Int(32))};
        ir::Stmt inside = kernel.body;
        while (const ir::For* loop = inside.as<ir::For>()) {
            if (loop->for_kind == ir::ForKind::GPUBlock) {
                TESSERA_INTERNAL_CHECK(ir::is_const_zero(loop->min))
                    << "block loop " << loop->name << " from nonzero";
                blocks.at(dimension(loop->name, true)) = loop->extent;
            } else if (loop->for_kind == ir::ForKind::GPUThread) {
                std::optional<int64_t> extent = ir::as_const_int(loop->extent);
                TESSERA_INTERNAL_CHECK(extent && ir::is_const_zero(loop->min))
                    << "thread loop " << loop->name << " of non-constant extent";
                kernel.threads.at(dimension(loop->name, false)) = int(*extent);
            } else {
                break;
            }
            inside = loop->body;
        }

        FreeSymbols free;
        free.include(kernel.body);
        std::vector<Expr> launch = {ir::StringImm::make(kernel.name)};
        launch.insert(launch.end(), blocks.begin(), blocks.end());
        for (int t : kernel.threads) launch.push_back(ir::make_const(Int(32), int64_t(t)));
        // Up to 48 KiB of shared memory is static; beyond, all of it is dynamic, asked for at launch.
        SharedBytes shared;
        shared.include(kernel.body);
        if (shared.total > kStaticSharedBytes) kernel.dynamic_shared_bytes = shared.total;
        launch.push_back(ir::make_const(Int(32), kernel.dynamic_shared_bytes));
        for (const auto& [name, type] : free.memory) {
            kernel.args.push_back({name, type, true});
            launch.push_back(ir::Variable::make(Handle(), name + ".buffer"));
        }
        for (const auto& [name, type] : free.values) {
            if (free.memory.count(name)) continue;
            TESSERA_INTERNAL_CHECK(!type.is_handle())
                << "the GPU kernel " << kernel.name << " uses the handle " << name;
            kernel.args.push_back({name, type, false});
            launch.push_back(ir::Variable::make(type, name));
        }
        kernels_.push_back(std::move(kernel));
        return ir::Evaluate::make(
            ir::Call::make_intrinsic(Int(32), ir::Intrinsic::GPULaunch, std::move(launch)));
    }

    static int dimension(const std::string& name, bool block) {
        for (int d = 0; d < 3; d++) {
            if (name == (block ? gpu_block_id(d) : gpu_thread_id(d))) return d;
        }
        TESSERA_INTERNAL_ERROR << "the GPU loop " << name << " is not over a block or thread index";
        return 0;
    }

    std::vector<GpuKernel>& kernels_;
    std::vector<std::string> producers_;
};

}  // namespace

ir::Stmt outline_gpu_kernels(const ir::Stmt& s, std::vector<GpuKernel>& kernels) {
    return OutlineKernels(kernels).mutate(s);
}

}  // namespace tessera::lowering
