#include "schedule/auto/loop_nest_features.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/expr_nodes.h"
#include "ir/ir_util.h"
#include "ir/visitor.h"
#include "schedule/auto/integer_evaluator.h"

namespace tessera::autoschedule {
namespace {

// The math functions that cost far more than an addition.
bool is_math(ir::Intrinsic i) {
    using I = ir::Intrinsic;
    return i == I::Sqrt || i == I::Exp || i == I::Log || i == I::Pow || i == I::Sin || i == I::Cos ||
           i == I::Tan || i == I::Tanh;
}

// The loops each variable depends on: a loop's own variable, and the lets computed from them
// (after lowering, indices read the lets that splits define, not the loop variables).
using LoopDependences = std::map<std::string, std::set<std::string>>;

std::set<std::string> loops_read(const Expr& e, const LoopDependences& dependences) {
    std::set<std::string> loops;
    for (const std::string& v : ir::variables_read(e)) {
        auto it = dependences.find(v);
        if (it != dependences.end()) loops.insert(it->second.begin(), it->second.end());
    }
    return loops;
}

// Arithmetic, loads and their reuse in one stored value (and its index): a load is invariant in a
// loop when its index does not depend on it, so that the value it reads serves every iteration.
class ValueCounter : public ir::Visitor {
public:
    ValueCounter(const LoopDependences& dependences, const std::string& innermost,
                 const std::string& innermost_serial)
        : dependences_(dependences), innermost_(innermost), innermost_serial_(innermost_serial) {}
    double ops = 0, loads = 0, load_bytes = 0, invariant_load_bytes = 0, serial_invariant_load_bytes = 0,
           transcendental = 0;

private:
    using ir::Visitor::visit;
#define TESSERA_COUNT_OP(T)                \
    void visit(const ir::T* op) override { \
        ops += op->type.lanes();           \
        ir::Visitor::visit(op);            \
    }
    TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_COUNT_OP)
    TESSERA_COUNT_OP(Select)
    TESSERA_COUNT_OP(Cast)
#undef TESSERA_COUNT_OP

    void visit(const ir::Call* op) override {
        if (op->call_type == ir::CallType::Extern || is_math(op->intrinsic)) transcendental++;
        ops += op->type.lanes();
        ir::Visitor::visit(op);
    }

    void visit(const ir::Load* op) override {
        const double bytes = double(op->type.bytes()) * op->type.lanes();
        const std::set<std::string> loops = loops_read(op->index, dependences_);
        loads++;
        load_bytes += bytes;
        if (!loops.count(innermost_)) invariant_load_bytes += bytes;
        if (!loops.count(innermost_serial_)) serial_invariant_load_bytes += bytes;
        ir::Visitor::visit(op);
    }

    const LoopDependences& dependences_;
    const std::string innermost_, innermost_serial_;
};

struct Loop {
    std::string name;
    int64_t extent;
    ir::ForKind kind;
};

// Sums over the stores of the nest, weighted by how often each runs.
struct Totals {
    double points = 0, ops = 0, load_bytes = 0, store_bytes = 0, invariant_load_bytes = 0,
           serial_invariant_load_bytes = 0;
    double vector_ops = 0, lanes_weighted = 0, parallel_ops = 0, unrolled_ops = 0, guarded_ops = 0;
    double task_weighted = 0, imbalance_weighted = 0, per_task_ops_weighted = 0, innermost_weighted = 0;
    double transcendental = 0;
    double loop_iterations = 0, parallel_launches = 0, stores = 0;
    double allocated_bytes = 0, allocations = 0, largest_allocation = 0, largest_task_allocation = 0;
};

class FeatureWalker : public ir::Visitor {
public:
    FeatureWalker(const std::map<std::string, int64_t>& values, const FeatureMachine& machine)
        : values_(values), machine_(machine) {}
    Totals totals;

private:
    using ir::Visitor::visit;

    double executions() const {
        double n = 1;
        for (const Loop& l : loops_) n *= double(std::max<int64_t>(l.extent, 0));
        return n;
    }

    int64_t evaluate(const Expr& e, int64_t otherwise) const {
        return evaluate_integer(e, values_).value_or(otherwise);
    }

    // A chain of lets in turn (the base visitor walks chains itself, without this override).
    void visit(const ir::LetStmt* op) override {
        const ir::LetStmt* let = op;
        for (;;) {
            if (!values_.count(let->name)) {
                if (auto v = evaluate_integer(let->value, values_)) values_[let->name] = *v;
            }
            dependences_[let->name] = loops_read(let->value, dependences_);
            const ir::LetStmt* next = let->body.as<ir::LetStmt>();
            if (!next) break;
            let = next;
        }
        include(let->body);
    }

    void visit(const ir::For* op) override {
        const int64_t extent = std::max<int64_t>(evaluate(op->extent, 1), 0);
        totals.loop_iterations += executions() * double(extent);
        if (op->for_kind == ir::ForKind::Parallel) totals.parallel_launches += executions();
        if (auto min = evaluate_integer(op->min, values_)) values_[op->name] = *min;
        dependences_[op->name] = {op->name};
        loops_.push_back({op->name, extent, op->for_kind});
        include(op->body);
        loops_.pop_back();
    }

    void visit(const ir::IfThenElse* op) override {
        guards_++;
        include(op->then_case);
        include(op->else_case);
        guards_--;
    }

    void visit(const ir::Allocate* op) override {
        double bytes = op->type.bytes();
        for (const Expr& e : op->extents) bytes *= double(std::max<int64_t>(evaluate(e, 1), 1));
        const double n = executions();
        totals.allocations += n;
        totals.allocated_bytes += n * bytes;
        totals.largest_allocation = std::max(totals.largest_allocation, bytes);
        if (inside(ir::ForKind::Parallel))
            totals.largest_task_allocation = std::max(totals.largest_task_allocation, bytes);
        include(op->body);
    }

    void visit(const ir::Store* op) override {
        const double n = executions();
        const int lanes = op->value.type().lanes();
        ValueCounter count(dependences_, loops_.empty() ? "" : loops_.back().name, innermost_serial());
        count.include(op->value);
        count.include(op->index);
        const double points = n * lanes;
        const double ops = n * std::max(count.ops, 1.0);
        totals.stores += 1;
        totals.points += points;
        totals.ops += ops;
        totals.transcendental += n * count.transcendental;
        totals.load_bytes += n * count.load_bytes;
        totals.store_bytes += points * op->value.type().bytes();
        totals.invariant_load_bytes += n * count.invariant_load_bytes;
        totals.serial_invariant_load_bytes += n * count.serial_invariant_load_bytes;
        const int vector_lanes = vector_extent();
        if (vector_lanes > 1) {
            totals.vector_ops += ops;
            totals.lanes_weighted += ops * std::min(1.0, double(vector_lanes) / machine_.vector_lanes);
        }
        if (inside(ir::ForKind::Unrolled)) totals.unrolled_ops += ops;
        if (guards_ > 0) totals.guarded_ops += ops;
        if (const Loop* p = outermost(ir::ForKind::Parallel)) {
            const double tasks = double(std::max<int64_t>(p->extent, 1));
            const double waves = std::ceil(tasks / machine_.cores);
            totals.parallel_ops += ops;
            totals.task_weighted += ops * std::log2(1 + tasks);
            totals.imbalance_weighted += ops * (waves * machine_.cores / tasks);
            totals.per_task_ops_weighted += ops * std::log2(1 + ops / tasks);
        }
        if (!loops_.empty()) totals.innermost_weighted += ops * std::log2(1 + double(loops_.back().extent));
    }

    bool inside(ir::ForKind kind) const {
        return std::any_of(loops_.begin(), loops_.end(), [&](const Loop& l) { return l.kind == kind; });
    }
    const Loop* outermost(ir::ForKind kind) const {
        for (const Loop& l : loops_)
            if (l.kind == kind) return &l;
        return nullptr;
    }
    int vector_extent() const {
        int64_t lanes = 1;
        for (const Loop& l : loops_)
            if (l.kind == ir::ForKind::Vectorized) lanes *= l.extent;
        return int(std::min<int64_t>(lanes, 1 << 12));
    }
    std::string innermost_serial() const {
        for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
            if (it->kind != ir::ForKind::Vectorized) return it->name;
        return "";
    }

    std::map<std::string, int64_t> values_;
    const FeatureMachine& machine_;
    std::vector<Loop> loops_;
    LoopDependences dependences_;
    int guards_ = 0;
};

float log_scale(double v) { return float(std::log2(1 + std::max(v, 0.0))); }
float fraction(double part, double whole) { return whole > 0 ? float(part / whole) : 0.0f; }

}  // namespace

const std::vector<std::string>& loop_nest_feature_names() {
    static const std::vector<std::string> names = {"log_points",
                                                   "log_ops",
                                                   "log_load_bytes",
                                                   "log_store_bytes",
                                                   "log_bytes_per_op",
                                                   "invariant_load_fraction",
                                                   "serial_invariant_load_fraction",
                                                   "vector_fraction",
                                                   "lane_use",
                                                   "unrolled_fraction",
                                                   "guarded_fraction",
                                                   "parallel_fraction",
                                                   "log_tasks",
                                                   "task_imbalance",
                                                   "log_ops_per_task",
                                                   "log_innermost_extent",
                                                   "log_loop_iterations",
                                                   "log_iterations_per_point",
                                                   "log_parallel_launches",
                                                   "stores",
                                                   "log_allocated_bytes",
                                                   "log_allocations",
                                                   "log_largest_allocation",
                                                   "task_allocation_per_cache",
                                                   "log_transcendental",
                                                   "log_cores"};
    return names;
}

std::vector<float> loop_nest_features(const ir::Stmt& nest, const std::map<std::string, int64_t>& values,
                                      const FeatureMachine& machine) {
    FeatureWalker walker(values, machine);
    walker.include(nest);
    const Totals& t = walker.totals;
    return {log_scale(t.points),
            log_scale(t.ops),
            log_scale(t.load_bytes),
            log_scale(t.store_bytes),
            log_scale(fraction(t.load_bytes + t.store_bytes, t.ops)),
            fraction(t.invariant_load_bytes, t.load_bytes),
            fraction(t.serial_invariant_load_bytes, t.load_bytes),
            fraction(t.vector_ops, t.ops),
            fraction(t.lanes_weighted, t.vector_ops),
            fraction(t.unrolled_ops, t.ops),
            fraction(t.guarded_ops, t.ops),
            fraction(t.parallel_ops, t.ops),
            fraction(t.task_weighted, t.parallel_ops),
            fraction(t.imbalance_weighted, t.parallel_ops),
            fraction(t.per_task_ops_weighted, t.parallel_ops),
            fraction(t.innermost_weighted, t.ops),
            log_scale(t.loop_iterations),
            log_scale(fraction(t.loop_iterations, t.points)),
            log_scale(t.parallel_launches),
            float(t.stores),
            log_scale(t.allocated_bytes),
            log_scale(t.allocations),
            log_scale(t.largest_allocation),
            fraction(t.largest_task_allocation, machine.cache_bytes_per_core),
            log_scale(t.transcendental),
            log_scale(machine.cores)};
}

}  // namespace tessera::autoschedule
