#include "lowering/fuse_gpu_thread_loops.h"

#include <array>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"
#include "lowering/gpu_memory_accesses.h"
#include "lowering/names.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

using ThreadExtents = std::array<int64_t, 3>;

// A nest of GPU loops (block loops, or thread loops) with the lets between them, outermost first.
struct LoopNest {
    struct Level {
        const ir::For* loop = nullptr;  // or a let:
        std::string let_name;
        Expr let_value;
    };
    std::vector<Level> levels;
    ir::Stmt body;  // inside the innermost loop
    int loops() const {
        int n = 0;
        for (const Level& l : levels) n += l.loop != nullptr;
        return n;
    }
};

// The nest of loops of kind `matches` starting at `outer`: through lets, as far as a loop of that
// kind follows.
template <typename Matches>
LoopNest loop_nest(const ir::For* outer, Matches matches) {
    LoopNest nest;
    ir::Stmt s = ir::handle_of(outer);
    while (true) {
        if (const ir::For* loop = s.as<ir::For>(); loop && matches(loop->for_kind)) {
            nest.levels.push_back({loop, "", Expr()});
            s = loop->body;
            continue;
        }
        const ir::For* next = ir::loop_under_lets(s);
        const ir::LetStmt* let = s.as<ir::LetStmt>();
        if (let && next && matches(next->for_kind)) {
            nest.levels.push_back({nullptr, let->name, let->value});
            s = let->body;
            continue;
        }
        break;
    }
    nest.body = s;
    return nest;
}

// Rebuilds a nest's lets around body, each loop variable bound to its min plus the id of its
// dimension (the innermost loop's is dimension 0).
ir::Stmt bind_loop_variables(const LoopNest& nest, ir::Stmt body, std::string (*id)(int)) {
    int dim = 0;
    for (auto it = nest.levels.rbegin(); it != nest.levels.rend(); ++it) {
        if (it->loop) {
            body = ir::LetStmt::make(it->loop->name, it->loop->min + ir::int_var(id(dim++)), body);
        } else {
            body = ir::LetStmt::make(it->let_name, it->let_value, body);
        }
    }
    return body;
}

// The extent of each dimension of a thread nest, innermost (x) first; 1 where it has none.
ThreadExtents thread_extents(const LoopNest& nest) {
    ThreadExtents extents{1, 1, 1};
    int dim = 0;
    for (auto it = nest.levels.rbegin(); it != nest.levels.rend(); ++it) {
        if (!it->loop) continue;
        const std::optional<int64_t> e = ir::as_const_int(it->loop->extent);
        TESSERA_INTERNAL_CHECK(e && dim < 3) << "thread loop " << it->loop->name << " unchecked";
        extents[dim++] = *e;
    }
    return extents;
}

bool is_thread_loop(ir::ForKind k) { return ir::is_gpu_thread_loop(k); }

// The largest extent of each thread dimension among the thread nests of a block's code.
class LargestThreadExtents : public ir::Visitor {
public:
    ThreadExtents extents{1, 1, 1};

private:
    void visit(const ir::For* op) override {
        if (!is_thread_loop(op->for_kind)) return ir::Visitor::visit(op);
        const ThreadExtents nest = thread_extents(loop_nest(op, is_thread_loop));
        for (int d = 0; d < 3; d++) extents[d] = std::max(extents[d], nest[d]);
    }
};

class ContainsThreadLoop : public ir::Visitor {
public:
    bool found = false;

private:
    void visit(const ir::For* op) override {
        found = found || is_thread_loop(op->for_kind);
        if (!found) ir::Visitor::visit(op);
    }
};

bool contains_thread_loop(const ir::Stmt& s) {
    ContainsThreadLoop c;
    c.include(s);
    return c.found;
}

Expr thread_id(int dim) { return ir::int_var(gpu_thread_id(dim)); }

// The code of one block, rewritten to run in every thread of the fused thread loops.
class BlockCode {
public:
    explicit BlockCode(ThreadExtents extents) : extents_(extents) {}

    ir::Stmt rewrite(const ir::Stmt& s) {
        if (!contains_thread_loop(s)) return in_thread_zero(s);
        if (const ir::For* loop = s.as<ir::For>()) {
            if (is_thread_loop(loop->for_kind)) return thread_nest(loop);
            return ir::For::make(loop->name, loop->min, loop->extent, loop->for_kind,
                                 end_with_barrier_if_needed(rewrite(loop->body)));
        }
        if (const ir::Block* block = s.as<ir::Block>()) return sequence(block->stmts);
        if (const ir::LetStmt* let = s.as<ir::LetStmt>())
            return ir::LetStmt::make(let->name, let->value, rewrite(let->body));
        if (const ir::Allocate* a = s.as<ir::Allocate>())
            return ir::Allocate::make(a->name, a->type, a->extents, rewrite(a->body), a->memory_type);
        if (const ir::ProducerConsumer* pc = s.as<ir::ProducerConsumer>())
            return ir::ProducerConsumer::make(pc->name, pc->is_producer, rewrite(pc->body));
        if (const ir::IfThenElse* branch = s.as<ir::IfThenElse>()) {
            return ir::IfThenElse::make(
                branch->condition, rewrite(branch->then_case),
                branch->else_case.defined() ? rewrite(branch->else_case) : ir::Stmt());
        }
        TESSERA_INTERNAL_ERROR << "GPU thread loops inside a statement of kind " << int(s.get()->kind);
        return s;
    }

private:
    const ThreadExtents extents_;

    // Where the thread's ids are below the given extents (1 for the dimensions a nest lacks).
    Expr threads_within(const ThreadExtents& limits) const {
        Expr condition;
        for (int d = 0; d < 3; d++) {
            if (limits[d] == extents_[d]) continue;
            Expr within = thread_id(d) < ir::make_const(Int(32), limits[d]);
            condition = condition.defined() ? (condition && within) : within;
        }
        return condition;
    }

    ir::Stmt guarded(const Expr& condition, const ir::Stmt& s) const {
        return condition.defined() ? ir::IfThenElse::make(condition, s) : s;
    }

    ir::Stmt in_thread_zero(const ir::Stmt& s) const { return guarded(threads_within({1, 1, 1}), s); }

    ir::Stmt thread_nest(const ir::For* loop) const {
        const LoopNest nest = loop_nest(loop, is_thread_loop);
        return guarded(threads_within(thread_extents(nest)),
                       bind_loop_variables(nest, nest.body, gpu_thread_id));
    }

    // The statements rewritten, with a barrier wherever one must wait for what came before.
    ir::Stmt sequence(const std::vector<ir::Stmt>& stmts) {
        std::vector<ir::Stmt> out;
        GPUMemoryAccesses since_barrier;
        for (const ir::Stmt& s : stmts) {
            ir::Stmt rewritten = rewrite(s);
            const GPUMemoryAccesses accesses = gpu_memory_accesses(rewritten);
            if (since_barrier.conflicts_with(accesses)) {
                out.push_back(gpu_barrier());
                since_barrier = GPUMemoryAccesses();
            }
            since_barrier.add(accesses);
            out.push_back(rewritten);
        }
        return ir::Block::make(std::move(out));
    }

    // The body of a loop of the block: the next iteration waits for this one where it touches
    // memory this one writes.
    static ir::Stmt end_with_barrier_if_needed(const ir::Stmt& body) {
        const GPUMemoryAccesses accesses = gpu_memory_accesses(body);
        return accesses.conflicts_with(accesses) ? ir::Block::make(body, gpu_barrier()) : body;
    }
};

bool is_block_loop(ir::ForKind k) { return k == ir::ForKind::GPUBlock; }

class FuseKernels : public ir::Mutator {
    using ir::Mutator::visit;

    ir::Stmt visit(const ir::For* op) override {
        if (op->for_kind != ir::ForKind::GPUBlock) return ir::Mutator::visit(op);
        const LoopNest blocks = loop_nest(op, is_block_loop);
        LargestThreadExtents largest;
        largest.include(blocks.body);
        ir::Stmt body = BlockCode(largest.extents).rewrite(blocks.body);
        for (int d = 0; d < 3; d++) {
            body = ir::For::make(gpu_thread_id(d), ir::make_zero(Int(32)),
                                 ir::make_const(Int(32), largest.extents[d]), ir::ForKind::GPUThread, body);
        }
        body = bind_loop_variables(blocks, body, gpu_block_id);
        int dim = 0;
        for (auto it = blocks.levels.rbegin(); it != blocks.levels.rend(); ++it) {
            if (!it->loop) continue;
            check_grid_extent(blocks, *it->loop);
            body = ir::For::make(gpu_block_id(dim++), ir::make_zero(Int(32)), it->loop->extent,
                                 ir::ForKind::GPUBlock, body);
        }
        return body;
    }

    // The number of blocks is fixed at launch: no block loop's extent may depend on another's.
    static void check_grid_extent(const LoopNest& blocks, const ir::For& loop) {
        for (const LoopNest::Level& l : blocks.levels) {
            const std::string& name = l.loop ? l.loop->name : l.let_name;
            TESSERA_USER_CHECK(!ir::uses_var(loop.extent, name))
                << "the extent of the GPU block loop " << loop.name << " (" << loop.extent << ") depends on "
                << name << ", bound inside the same kernel; a kernel's grid is fixed when it is launched. "
                << "Reorder the block loops, or compute the Func outside the kernel.";
        }
    }
};

}  // namespace

ir::Stmt fuse_gpu_thread_loops(const ir::Stmt& s) { return FuseKernels().mutate(s); }

}  // namespace tessera::lowering
