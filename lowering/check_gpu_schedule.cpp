#include "lowering/check_gpu_schedule.h"

#include <algorithm>
#include <array>

#include "ir/constant_upper_bound.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "lowering/enclosing_lets.h"
#include "lowering/loop_owners.h"
#include "schedule/stage_primitives.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kWarpLanes = 32;

class CheckGPUSchedule : public ir::Mutator {
public:
    CheckGPUSchedule(const Environment& env, bool target_has_gpu)
        : owners_(env), target_has_gpu_(target_has_gpu) {}

private:
    using ir::Mutator::visit;
    LoopOwners owners_;
    EnclosingLets lets_;
    const bool target_has_gpu_;
    std::vector<const ir::For*> enclosing_;  // the loops around the one visited, outermost first
    const ir::For* kernel_ = nullptr;        // the outermost block loop around the one visited
    // The largest extent of each thread dimension (x, y, z) among the kernel's thread nests.
    std::array<int64_t, 3> kernel_threads_{1, 1, 1};
    // Of the thread nest being visited, where each loop run to its constant bound is within its
    // real extent; they guard the body of the nest's innermost loop.
    std::vector<Expr> guards_;
    Expr all_guards() const {
        Expr all = guards_[0];
        for (size_t i = 1; i < guards_.size(); i++) all = all && guards_[i];
        return all;
    }
    // The loop directly under the lets of the GPU loop whose body is being visited.
    const ir::For* direct_loop_ = nullptr;
    // The depth of the thread loop being visited in its nest of directly nested thread loops, the
    // extents of that nest's loops so far (x, y, z), and how many nests enclose it.
    int nest_depth_ = 0;
    std::array<int64_t, 3> nest_extents_{1, 1, 1};
    int enclosing_nests_ = 0;
    // The thread nests that hold cooperative Funcs, which every thread of the block must reach.
    struct CooperativeHost {
        std::array<int64_t, 3> extents;
        std::string func, where;
    };
    std::vector<CooperativeHost> cooperative_hosts_;
    // The conditions around the statement visited, and how many there were at each enclosing loop.
    std::vector<Expr> conditions_;
    std::vector<size_t> conditions_at_loop_;

    // How a message names a loop: "f.update(0).gpu_threads(x)".
    std::string primitive(const ir::For* loop) const {
        const LoopOwner o = owners_.of(loop->name);
        return o.stage_text() + "." + schedule::kind_primitive(loop->for_kind) + "(" + o.var + ")";
    }
    std::string where(const ir::For* loop) const {
        const LoopOwner o = owners_.of(loop->name);
        return o.stage_text() + "'s " + ir::for_kind_name(loop->for_kind) + " loop over " + o.var;
    }
    const ir::For* innermost_enclosing(bool (*pred)(ir::ForKind)) const {
        for (auto it = enclosing_.rbegin(); it != enclosing_.rend(); ++it)
            if (pred((*it)->for_kind)) return *it;
        return nullptr;
    }

    ir::Stmt visit(const ir::LetStmt* op) override {
        lets_.push(op->name, op->value);
        ir::Stmt body = mutate(op->body);
        lets_.pop(op->name);
        return body.same_as(op->body) ? ir::handle_of(op) : ir::LetStmt::make(op->name, op->value, body);
    }

    ir::Stmt visit(const ir::For* op) override {
        const size_t guards = guards_.size();
        const int saved_nest_depth = nest_depth_, saved_enclosing_nests = enclosing_nests_;
        const std::array<int64_t, 3> saved_nest_extents = nest_extents_;
        Expr extent = op->extent;
        if (ir::is_gpu_loop(op->for_kind)) extent = check_gpu_loop(op);
        if (ir::is_gpu_thread_loop(op->for_kind) && nest_depth_ == 1) enclosing_nests_++;
        if (op->for_kind == ir::ForKind::Parallel && kernel_) {
            TESSERA_USER_ERROR << primitive(op) << ": the loop is inside the GPU kernel of " << where(kernel_)
                               << ". Inside a kernel, run loops in parallel with gpu_threads (or "
                                  "gpu_blocks), or make this loop serial.";
        }
        const ir::For* saved_kernel = kernel_;
        if (op->for_kind == ir::ForKind::GPUBlock && !kernel_) {
            kernel_ = op;
            kernel_threads_ = {1, 1, 1};
            cooperative_hosts_.clear();
        }
        enclosing_.push_back(op);
        conditions_at_loop_.push_back(conditions_.size());
        direct_loop_ = ir::is_gpu_loop(op->for_kind) ? ir::loop_under_lets(op->body) : nullptr;
        lets_.push(op->name, Expr());
        ir::Stmt body = mutate(op->body);
        const ir::For* inner = ir::loop_under_lets(op->body);
        const bool innermost_thread_loop =
            ir::is_gpu_thread_loop(op->for_kind) && !(inner && ir::is_gpu_thread_loop(inner->for_kind));
        if (innermost_thread_loop && !guards_.empty()) body = ir::IfThenElse::make(all_guards(), body);
        guards_.resize(guards);
        lets_.pop(op->name);
        enclosing_.pop_back();
        conditions_at_loop_.pop_back();
        nest_depth_ = saved_nest_depth;
        enclosing_nests_ = saved_enclosing_nests;
        nest_extents_ = saved_nest_extents;
        if (op == kernel_) {
            check_threads_per_block(op);
            check_cooperative_hosts();
        }
        kernel_ = saved_kernel;
        if (body.same_as(op->body) && extent.same_as(op->extent)) return ir::handle_of(op);
        return ir::For::make(op->name, op->min, extent, op->for_kind, body);
    }

    ir::Stmt visit(const ir::IfThenElse* op) override {
        conditions_.push_back(op->condition);
        ir::Stmt then_case = mutate(op->then_case);
        conditions_.back() = !op->condition;
        ir::Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : ir::Stmt();
        conditions_.pop_back();
        if (then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) return ir::handle_of(op);
        return ir::IfThenElse::make(op->condition, then_case, else_case);
    }

    // A thread loop inside another stage's thread loops, with code between, starts a nest that
    // the threads of the block run together (see cooperative_regions.h): every thread must reach
    // it, at the same iterations of the loops between.
    void check_cooperative_nest(const ir::For* op, const ir::For* outer_thread) {
        const LoopOwner inner = owners_.of(op->name), outer = owners_.of(outer_thread->name);
        const std::string func = inner.func;
        if (inner.func == outer.func && inner.stage == outer.stage) {
            TESSERA_USER_ERROR << primitive(op) << ": the loop is inside " << where(outer_thread)
                               << " with other loops or code between them. Nest a stage's thread loops "
                               << "directly, or compute " << func << " at a block loop, or at the "
                               << "innermost thread loop of its consumer (where it runs in each thread).";
        }
        if (enclosing_nests_ > 1) {
            TESSERA_USER_ERROR << primitive(op) << ": " << func << " would be computed by the threads of "
                               << "the block together inside " << where(outer_thread)
                               << ", which is itself computed that way. Compute " << func
                               << " at a loop of the outermost thread loops' stage, or at a block loop.";
        }
        cooperative_hosts_.push_back({nest_extents_, func, where(outer_thread)});
        if (!guards_.empty()) {
            TESSERA_USER_ERROR << primitive(op) << ": " << func << " is computed by the threads of the "
                               << "block together, inside " << where(outer_thread)
                               << ", but some threads of that loop skip their code (its extent varies: "
                               << guards_[0] << " fails for some), and every thread must reach " << func
                               << ". Give that loop a constant extent (split it by a constant).";
        }
        const auto outer_at = std::find(enclosing_.begin(), enclosing_.end(), outer_thread);
        for (auto it = outer_at + 1; it != enclosing_.end(); ++it) {
            check_same_in_every_thread((*it)->min, func, outer_thread, "where " + where(*it) + " starts");
            check_same_in_every_thread((*it)->extent, func, outer_thread, "how long " + where(*it) + " runs");
        }
        const size_t first_condition = conditions_at_loop_[size_t(outer_at - enclosing_.begin())];
        for (size_t i = first_condition; i < conditions_.size(); i++)
            check_same_in_every_thread(conditions_[i], func, outer_thread, "the condition");
    }

    void check_same_in_every_thread(const Expr& e, const std::string& func, const ir::For* outer_thread,
                                    const std::string& what) const {
        const std::optional<Expr> expanded = lets_.expanded(e);
        bool per_thread = !expanded;
        for (const ir::For* l : enclosing_) {
            if (ir::is_gpu_thread_loop(l->for_kind) && expanded)
                per_thread |= ir::uses_var(*expanded, l->name);
        }
        TESSERA_USER_CHECK(!per_thread)
            << func << " is computed by the threads of a GPU block together, inside " << where(outer_thread)
            << ", so every thread must reach it the same number of times; but " << what << " ("
            << (expanded ? *expanded : e) << ") depends on the thread. Compute " << func
            << " where the code around it is the same in every thread.";
    }

    // Checks a GPU loop; returns its extent, as a constant for a thread loop.
    Expr check_gpu_loop(const ir::For* op) {
        if (!target_has_gpu_) {
            TESSERA_USER_ERROR << primitive(op)
                               << ": the target has no GPU. Add the feature cuda (\"host-cuda\", "
                               << "or TESSERA_JIT_TARGET=host-cuda), or gpu_emulation (or "
                               << "TESSERA_GPU_EMULATION=1) to run GPU schedules on the CPU.";
        }
        auto is_parallel = [](ir::ForKind k) {
            return k == ir::ForKind::Parallel || k == ir::ForKind::Vectorized;
        };
        if (const ir::For* p = innermost_enclosing(is_parallel)) {
            TESSERA_USER_ERROR << primitive(op) << ": the loop is inside " << where(p)
                               << "; a GPU kernel cannot run inside a CPU-parallel or vectorized loop. "
                               << "Make that loop serial, or schedule it for the GPU as well.";
        }
        const bool nested_directly = direct_loop_ == op;
        if (op->for_kind == ir::ForKind::GPUBlock) {
            check_block_loop(op, nested_directly);
            return op->extent;
        }
        return ir::make_const(Int(32), check_thread_loop(op, nested_directly));
    }

    void check_block_loop(const ir::For* op, bool nested_directly) {
        if (const ir::For* t = innermost_enclosing(ir::is_gpu_thread_loop)) {
            TESSERA_USER_ERROR << primitive(op) << ": the loop is inside " << where(t)
                               << "; block loops must enclose thread loops. Reorder the loops, or compute "
                               << owners_.of(op->name).func << " outside the kernel (compute_root).";
        }
        if (kernel_ && !nested_directly) {
            TESSERA_USER_ERROR << primitive(op) << ": the loop is inside the kernel of " << where(kernel_)
                               << " with other loops or code between them; a kernel's block loops must be "
                               << "nested directly. Compute " << owners_.of(op->name).func
                               << " at a loop outside the kernel, or at one of its block or thread loops "
                               << "without gpu_blocks of its own.";
        }
        if (block_depth() >= 3) {
            TESSERA_USER_ERROR << primitive(op) << ": the kernel of " << where(kernel_)
                               << " would have more than three block dimensions. Fuse block loops first.";
        }
    }

    // Returns the loop's extent.
    int64_t check_thread_loop(const ir::For* op, bool nested_directly) {
        if (!kernel_) {
            TESSERA_USER_ERROR << primitive(op)
                               << ": the loop is not inside any gpu_blocks loop; thread loops run "
                               << "inside the blocks of a kernel. Mark an outer loop of "
                               << owners_.of(op->name).func << " gpu_blocks (or use gpu_tile), or compute "
                               << owners_.of(op->name).func << " at a block loop of its consumer.";
        }
        const ir::For* outer_thread = innermost_enclosing(ir::is_gpu_thread_loop);
        if (outer_thread && !nested_directly) check_cooperative_nest(op, outer_thread);
        nest_depth_ = outer_thread && nested_directly ? nest_depth_ + 1 : 1;
        if (nest_depth_ == 1) nest_extents_ = {1, 1, 1};
        // A block's thread count is fixed when compiling: a loop whose extent varies (a producer's
        // region clamped at an image's edge) runs its largest extent, guarded.
        const std::optional<Expr> expanded = lets_.expanded(op->extent);
        const std::optional<int64_t> extent = expanded ? ir::constant_upper_bound(*expanded) : std::nullopt;
        if (!extent) {
            TESSERA_USER_ERROR
                << primitive(op) << ": the loop over " << owners_.of(op->name).var << " has extent "
                << op->extent << ", which has no constant upper bound; a block's thread count "
                << "is fixed when compiling. Split the loop by a constant (gpu_tile), or bound it.";
        }
        if (!ir::is_const(op->extent, *extent))
            guards_.push_back(ir::int_var(op->name) < op->min + op->extent);
        if (op->for_kind == ir::ForKind::GPULane && *extent > kWarpLanes) {
            TESSERA_USER_ERROR << primitive(op) << ": the loop has " << *extent
                               << " iterations, more than the " << kWarpLanes
                               << " lanes of a warp. Split it by 32 at most.";
        }
        if (nest_depth_ > 3) {
            TESSERA_USER_ERROR << primitive(op) << ": the threads of " << where(kernel_)
                               << "'s kernel would have more than three dimensions. Fuse thread loops first.";
        }
        // Dimension x is the innermost thread loop of a nest: count the thread loops inside.
        int inner = 0;
        for (const ir::For* l = ir::loop_under_lets(op->body); l && ir::is_gpu_thread_loop(l->for_kind);
             l = ir::loop_under_lets(l->body))
            inner++;
        if (inner < 3) {
            kernel_threads_[inner] = std::max(kernel_threads_[inner], *extent);
            nest_extents_[inner] = *extent;
        }
        return *extent;
    }

    int block_depth() const {
        return int(std::count_if(enclosing_.begin(), enclosing_.end(),
                                 [](const ir::For* l) { return l->for_kind == ir::ForKind::GPUBlock; }));
    }

    void check_cooperative_hosts() const {
        for (const CooperativeHost& host : cooperative_hosts_) {
            TESSERA_USER_CHECK(host.extents == kernel_threads_)
                << host.func << " is computed by the threads of a GPU block together, inside " << host.where
                << ", but that nest runs " << host.extents[0] << " x " << host.extents[1] << " x "
                << host.extents[2] << " threads of the block's " << kernel_threads_[0] << " x "
                << kernel_threads_[1] << " x " << kernel_threads_[2] << ", and the others would never reach "
                << host.func
                << ". Give the nest the block's largest thread extents, or the other stages' thread "
                << "loops no larger ones.";
        }
    }

    void check_threads_per_block(const ir::For* kernel) {
        const int64_t threads = kernel_threads_[0] * kernel_threads_[1] * kernel_threads_[2];
        if (threads > kMaxThreadsPerBlock) {
            TESSERA_USER_ERROR << "the GPU kernel of " << where(kernel) << " runs " << kernel_threads_[0]
                               << " x " << kernel_threads_[1] << " x " << kernel_threads_[2] << " = "
                               << threads << " threads a block, more than the " << kMaxThreadsPerBlock
                               << " a block may have. Use smaller gpu_tile sizes, or loop inside "
                               << "each thread (split a thread loop and leave its inner part serial).";
        }
    }
};

}  // namespace

ir::Stmt check_gpu_schedule(const ir::Stmt& s, const Environment& env, bool target_has_gpu) {
    return CheckGPUSchedule(env, target_has_gpu).mutate(s);
}

}  // namespace tessera::lowering
