#include "lowering/emulate_gpu_kernels.h"

#include <array>
#include <limits>
#include <set>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"
#include "lowering/gpu_memory_accesses.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

// The thread loops of a fused kernel, outermost (z) first.
struct ThreadLoops {
    std::vector<const ir::For*> loops;
};

class ContainsSharedAllocation : public ir::Visitor {
public:
    bool found = false;

private:
    void visit(const ir::Allocate* op) override {
        found = found || op->memory_type == MemoryType::GPUShared;
        ir::Visitor::visit(op);
    }
};

// Whether the threads must be split around s's inner statements rather than loop around all of it.
bool needs_splitting(const ir::Stmt& s) {
    if (contains_gpu_barrier(s)) return true;
    ContainsSharedAllocation c;
    c.include(s);
    return c.found;
}

// A value of type t that the computations of a pipeline are unlikely to produce.
Expr poison(Type t) {
    if (t.is_float()) return ir::make_const(t, std::numeric_limits<double>::quiet_NaN());
    if (t.is_bool()) return ir::make_bool(true);
    const uint64_t pattern = 0xA5A5A5A5A5A5A5A5ull;
    const uint64_t bits = t.bits() >= 64 ? pattern : pattern & ((uint64_t(1) << t.bits()) - 1);
    if (t.is_uint()) return ir::make_const(t, int64_t(bits));
    // Sign-extend the pattern of t's width.
    const int shift = 64 - t.bits();
    return ir::make_const(t, int64_t(bits << shift) >> shift);
}

// Adds offset to every index into one allocation.
class OffsetIndices : public ir::Mutator {
public:
    OffsetIndices(std::string name, Expr offset) : name_(std::move(name)), offset_(std::move(offset)) {}

private:
    using ir::Mutator::visit;
    const std::string name_;
    const Expr offset_;

    Expr offset(const Expr& index) const {
        return index +
               (index.type().is_vector() ? ir::Broadcast::make(offset_, index.type().lanes()) : offset_);
    }
    Expr visit(const ir::Load* op) override {
        Expr load = ir::Mutator::visit(op);
        if (op->name != name_) return load;
        const ir::Load* l = load.as<ir::Load>();
        return ir::Load::make(l->type, l->name, offset(l->index), l->predicate);
    }
    ir::Stmt visit(const ir::Store* op) override {
        ir::Stmt store = ir::Mutator::visit(op);
        if (op->name != name_) return store;
        const ir::Store* s = store.as<ir::Store>();
        return ir::Store::make(s->name, s->value, offset(s->index), s->predicate);
    }
};

// The threads of one block, run as loops around each stretch between barriers.
class SplitAtBarriers {
public:
    explicit SplitAtBarriers(ThreadLoops threads) : threads_(std::move(threads)) {
        for (const ir::For* loop : threads_.loops) per_thread_names_.insert(loop->name);
    }

    ir::Stmt split(const ir::Stmt& s) {
        if (!needs_splitting(s)) return every_thread(s);
        if (const ir::Block* block = s.as<ir::Block>()) return sequence(block->stmts);
        if (const ir::LetStmt* let = s.as<ir::LetStmt>()) return split_let(let);
        if (const ir::For* loop = s.as<ir::For>()) {
            check_same_in_every_thread(loop->min);
            check_same_in_every_thread(loop->extent);
            return ir::For::make(loop->name, loop->min, loop->extent, loop->for_kind, split(loop->body));
        }
        if (const ir::IfThenElse* branch = s.as<ir::IfThenElse>()) {
            check_same_in_every_thread(branch->condition);
            return ir::IfThenElse::make(branch->condition, split(branch->then_case),
                                        branch->else_case.defined() ? split(branch->else_case) : ir::Stmt());
        }
        if (const ir::ProducerConsumer* pc = s.as<ir::ProducerConsumer>())
            return ir::ProducerConsumer::make(pc->name, pc->is_producer, split(pc->body));
        if (const ir::Allocate* a = s.as<ir::Allocate>()) {
            return a->memory_type == MemoryType::GPUShared ? block_allocation(a) : allocation_per_thread(a);
        }
        // A lone barrier: every thread has done everything before it already.
        if (is_gpu_barrier(s)) return ir::Evaluate::make(ir::make_zero(Int(32)));
        TESSERA_INTERNAL_ERROR << "a barrier inside a GPU statement of kind " << int(s.get()->kind);
        return s;
    }

private:
    ThreadLoops threads_;
    // The lets whose values differ between threads, outermost first: each stretch binds them again
    // inside its thread loops. (They are the thread loops' variables and bounds: no value of one
    // reads memory, which could change between stretches.)
    std::vector<std::pair<std::string, Expr>> per_thread_lets_;
    std::set<std::string> per_thread_names_;

    bool differs_between_threads(const Expr& e) const {
        for (const std::string& name : ir::variables_read(e))
            if (per_thread_names_.count(name)) return true;
        return false;
    }

    void check_same_in_every_thread(const Expr& e) const {
        TESSERA_INTERNAL_CHECK(!differs_between_threads(e))
            << "code with barriers depends on the thread through " << e << " (unchecked schedule)";
    }

    ir::Stmt split_let(const ir::LetStmt* let) {
        if (!differs_between_threads(let->value))
            return ir::LetStmt::make(let->name, let->value, split(let->body));
        TESSERA_INTERNAL_CHECK(!reads_memory(let->value))
            << "per-thread let " << let->name << " reads memory";
        per_thread_lets_.emplace_back(let->name, let->value);
        const bool added = per_thread_names_.insert(let->name).second;
        ir::Stmt body = split(let->body);
        if (added) per_thread_names_.erase(let->name);
        per_thread_lets_.pop_back();
        return body;
    }

    static bool reads_memory(const Expr& e) {
        class FindLoad : public ir::Visitor {
        public:
            bool found = false;

        private:
            void visit(const ir::Load*) override { found = true; }
        } find;
        find.include(e);
        return find.found;
    }

    // Each thread's own memory, held across barriers: one allocation for all the threads of the
    // block, each thread's part at its linear index in the block times the part's size.
    ir::Stmt allocation_per_thread(const ir::Allocate* a) {
        Expr part = ir::make_one(Int(32)), linear_thread = ir::make_zero(Int(32)),
             threads = ir::make_one(Int(32));
        for (const Expr& e : a->extents) part = part * e;
        for (auto it = threads_.loops.rbegin(); it != threads_.loops.rend(); ++it) {
            linear_thread = linear_thread + (ir::int_var((*it)->name) - (*it)->min) * threads;
            threads = threads * (*it)->extent;
        }
        ir::Stmt body = OffsetIndices(a->name, linear_thread * part).mutate(a->body);
        return ir::Allocate::make(a->name, a->type, {part * threads}, split(body), MemoryType::Auto);
    }

    ir::Stmt every_thread(ir::Stmt s) const {
        for (auto it = per_thread_lets_.rbegin(); it != per_thread_lets_.rend(); ++it)
            s = ir::LetStmt::make(it->first, it->second, s);
        for (auto it = threads_.loops.rbegin(); it != threads_.loops.rend(); ++it)
            s = ir::For::make((*it)->name, (*it)->min, (*it)->extent, ir::ForKind::Serial, s);
        return s;
    }

    ir::Stmt sequence(const std::vector<ir::Stmt>& stmts) {
        std::vector<ir::Stmt> out, stretch;
        auto end_stretch = [&] {
            if (!stretch.empty()) out.push_back(every_thread(ir::Block::make(std::move(stretch))));
            stretch.clear();
        };
        for (const ir::Stmt& s : stmts) {
            if (is_gpu_barrier(s)) {
                end_stretch();
            } else if (needs_splitting(s)) {
                end_stretch();
                out.push_back(split(s));
            } else {
                stretch.push_back(s);
            }
        }
        end_stretch();
        return ir::Block::make(std::move(out));
    }

    // Shared memory: one allocation for the block, filled with poison before the threads start.
    ir::Stmt block_allocation(const ir::Allocate* a) {
        Expr elements = ir::make_one(Int(32));
        for (const Expr& e : a->extents) elements = elements * e;
        const std::string index = a->name + ".poisoned";
        ir::Stmt fill = ir::For::make(index, ir::make_zero(Int(32)), elements, ir::ForKind::Serial,
                                      ir::Store::make(a->name, poison(a->type), ir::int_var(index)));
        return ir::Allocate::make(a->name, a->type, a->extents, ir::Block::make(fill, split(a->body)),
                                  MemoryType::Auto);
    }
};

class EmulateKernels : public ir::Mutator {
    using ir::Mutator::visit;
    bool in_kernel_ = false;

    ir::Stmt visit(const ir::For* op) override {
        if (op->for_kind == ir::ForKind::GPUBlock) {
            // Blocks are independent: the kernel's outermost block loop runs on the thread pool.
            const ir::ForKind kind = in_kernel_ ? ir::ForKind::Serial : ir::ForKind::Parallel;
            const bool saved = in_kernel_;
            in_kernel_ = true;
            ir::Stmt body = mutate(op->body);
            in_kernel_ = saved;
            return ir::For::make(op->name, op->min, op->extent, kind, body);
        }
        if (op->for_kind == ir::ForKind::GPUThread) {
            ThreadLoops threads;
            ir::Stmt s = ir::handle_of(op);
            while (const ir::For* loop = s.as<ir::For>()) {
                if (loop->for_kind != ir::ForKind::GPUThread) break;
                threads.loops.push_back(loop);
                s = loop->body;
            }
            return SplitAtBarriers(threads).split(s);
        }
        return ir::Mutator::visit(op);
    }
};

}  // namespace

ir::Stmt emulate_gpu_kernels(const ir::Stmt& s) { return EmulateKernels().mutate(s); }

}  // namespace tessera::lowering
