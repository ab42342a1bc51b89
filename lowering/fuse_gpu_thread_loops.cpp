#include "lowering/fuse_gpu_thread_loops.h"

#include <array>
#include <set>

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
        since_barrier_ = GPUMemoryAccesses();
        return sequenced(s);
    }

private:
    // s rewritten, with a barrier before each part of it that must wait for what the block's
    // threads did since the last barrier (since_barrier_, which it brings up to date). Lets,
    // allocations and productions are looked through, so that a barrier goes as late as it can
    // and serves every part after it.
    ir::Stmt sequenced(const ir::Stmt& s) {
        if (contains_thread_loop(s)) {
            if (const ir::Block* block = s.as<ir::Block>()) {
                std::vector<ir::Stmt> stmts;
                for (const ir::Stmt& part : block->stmts) stmts.push_back(sequenced(part));
                return ir::Block::make(std::move(stmts));
            }
            if (const ir::LetStmt* let = s.as<ir::LetStmt>())
                return ir::LetStmt::make(let->name, let->value, sequenced(let->body));
            if (const ir::Allocate* a = s.as<ir::Allocate>()) {
                if (a->memory_type != MemoryType::GPUShared) private_.insert(a->name);
                return ir::Allocate::make(a->name, a->type, a->extents, sequenced(a->body), a->memory_type);
            }
            if (const ir::ProducerConsumer* pc = s.as<ir::ProducerConsumer>())
                return ir::ProducerConsumer::make(pc->name, pc->is_producer, sequenced(pc->body));
        }
        ir::Stmt part = rewrite_part(s);
        const GPUMemoryAccesses accesses = shared_accesses(part);
        const bool ends_with_barrier = loop_ends_with_barrier(part);
        if (since_barrier_.conflicts_with(accesses)) {
            part = ir::Block::make(gpu_barrier(), part);
            since_barrier_ = GPUMemoryAccesses();
        }
        // After a loop that ends with a barrier, what it did is behind one (and if it ran no
        // iteration, it did nothing).
        if (!ends_with_barrier) since_barrier_.add(accesses);
        return part;
    }

    // A loop, a branch, a thread nest, or code without thread loops, rewritten.
    ir::Stmt rewrite_part(const ir::Stmt& s) {
        // Inside a thread nest, code runs in each thread; at block level, in one.
        if (!contains_thread_loop(s)) return in_threads_ ? s : in_thread_zero(s);
        if (const ir::For* loop = s.as<ir::For>()) {
            if (is_thread_loop(loop->for_kind)) return thread_nest(loop);
            return ir::For::make(loop->name, loop->min, loop->extent, loop->for_kind,
                                 end_with_barrier_if_needed(sequenced_apart(loop->body)));
        }
        if (const ir::IfThenElse* branch = s.as<ir::IfThenElse>()) {
            return ir::IfThenElse::make(
                branch->condition, sequenced_apart(branch->then_case),
                branch->else_case.defined() ? sequenced_apart(branch->else_case) : ir::Stmt());
        }
        TESSERA_INTERNAL_ERROR << "GPU thread loops inside a statement of kind " << int(s.get()->kind);
        return s;
    }

    // The body of a loop or a branch, sequenced on its own: the code before it is behind a
    // barrier wherever the body needs it to be (sequenced() put one before the loop or branch).
    ir::Stmt sequenced_apart(const ir::Stmt& body) {
        const GPUMemoryAccesses saved = since_barrier_;
        since_barrier_ = GPUMemoryAccesses();
        ir::Stmt result = sequenced(body);
        since_barrier_ = saved;
        return result;
    }

    static bool loop_ends_with_barrier(const ir::Stmt& s) {
        const ir::For* loop = ir::loop_under_lets(s);
        const ir::Block* body = loop ? loop->body.as<ir::Block>() : nullptr;
        return body && !body->stmts.empty() && is_gpu_barrier(body->stmts.back());
    }

    const ThreadExtents extents_;
    bool in_threads_ = false;
    GPUMemoryAccesses since_barrier_;
    // Each thread's own memory, which no barrier needs to wait for.
    std::set<std::string> private_;

    GPUMemoryAccesses shared_accesses(const ir::Stmt& s) const {
        GPUMemoryAccesses accesses = gpu_memory_accesses(s);
        for (const std::string& name : private_) {
            accesses.loads.erase(name);
            accesses.stores.erase(name);
        }
        return accesses;
    }

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

    ir::Stmt thread_nest(const ir::For* loop) {
        const LoopNest nest = loop_nest(loop, is_thread_loop);
        const Expr within = threads_within(thread_extents(nest));
        if (!contains_thread_loop(nest.body))
            return guarded(within, bind_loop_variables(nest, nest.body, gpu_thread_id));
        // The nest holds the thread loops of Funcs that the block's threads compute together: all
        // the block's threads run its code, each for itself, and meet at those loops.
        TESSERA_INTERNAL_CHECK(!within.defined() && !in_threads_)
            << "thread nest of " << loop->name << " holds a cooperative Func but not every thread runs it";
        in_threads_ = true;
        ir::Stmt body = sequenced_apart(nest.body);
        in_threads_ = false;
        return bind_loop_variables(nest, body, gpu_thread_id);
    }

    // The body of a loop of the block: the next iteration waits for this one where it touches
    // memory this one writes.
    ir::Stmt end_with_barrier_if_needed(const ir::Stmt& body) const {
        const GPUMemoryAccesses accesses = shared_accesses(body);
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
