#include "lowering/cooperative_regions.h"

#include <map>

#include "ir/interval.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "lowering/names.h"
#include "lowering/stage_loop_nest.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

// Whether a Func's production has thread loops of its own, not counting those of the Funcs
// computed inside its loops.
class HasOwnThreadLoop : public ir::Visitor {
public:
    bool found = false;

private:
    void visit(const ir::For* op) override {
        found = found || ir::is_gpu_thread_loop(op->for_kind);
        if (!found) ir::Visitor::visit(op);
    }
    void visit(const ir::ProducerConsumer* op) override {
        if (!op->is_producer) ir::Visitor::visit(op);
    }
};

bool has_own_thread_loop(const ir::ProducerConsumer* production) {
    HasOwnThreadLoop c;
    c.include(production->body);
    return c.found;
}

// The Funcs produced inside thread loops, split into the cooperative ones and those each thread
// computes for itself (outside every cooperative Func's production).
class FindThreadFuncs : public ir::Visitor {
public:
    std::set<std::string> cooperative, per_thread;

private:
    int thread_loops_ = 0, cooperative_productions_ = 0;

    void visit(const ir::For* op) override {
        const bool thread = ir::is_gpu_thread_loop(op->for_kind);
        thread_loops_ += thread;
        ir::Visitor::visit(op);
        thread_loops_ -= thread;
    }
    void visit(const ir::ProducerConsumer* op) override {
        const bool by_block = op->is_producer && thread_loops_ > 0 && has_own_thread_loop(op);
        if (by_block) cooperative.insert(op->name);
        if (op->is_producer && thread_loops_ > 0 && !by_block && cooperative_productions_ == 0)
            per_thread.insert(op->name);
        cooperative_productions_ += by_block;
        ir::Visitor::visit(op);
        cooperative_productions_ -= by_block;
    }
};

// How a bounds let of a cooperative Func widens over the threads.
struct WideningRule {
    enum class End { Min, Max, Extent } end;
    std::string min_name;  // for an Extent: the let of the region's min
};

std::map<std::string, WideningRule> widening_rules(const lang::FunctionContents& f) {
    std::map<std::string, WideningRule> rules;
    for (int stage = 0; stage <= int(f.updates.size()); stage++) {
        for (const std::string& v : stage_pure_vars(f, stage)) {
            rules[loop_min(f.name, stage, v)] = {WideningRule::End::Min, ""};
            rules[loop_max(f.name, stage, v)] = {WideningRule::End::Max, ""};
        }
    }
    for (int d = 0; d < f.dimensions(); d++) {
        rules[realized_min(f.name, d)] = {WideningRule::End::Min, ""};
        rules[realized_extent(f.name, d)] = {WideningRule::End::Extent, realized_min(f.name, d)};
    }
    return rules;
}

class WidenRegions : public ir::Mutator {
public:
    explicit WidenRegions(const Environment& env) : env_(env) {}

private:
    using ir::Mutator::visit;
    const Environment& env_;
    std::map<std::string, WideningRule> rules_;
    std::set<std::string> per_thread_;
    // Inside a thread region: its lets expanded (widened where a rule says so), each thread loop's
    // variable over its range, and the per-thread values of the widened lets.
    int thread_loops_ = 0;
    std::map<std::string, Expr> expanded_, per_thread_values_;
    std::map<std::string, ir::Interval> threads_;

    ir::Stmt visit(const ir::For* op) override {
        const bool thread = ir::is_gpu_thread_loop(op->for_kind);
        if (!thread && thread_loops_ == 0) return ir::handle_of(op);  // another site's, done already
        if (!thread) return ir::Mutator::visit(op);
        if (thread_loops_ == 0) enter_region(op);
        const Expr min = expand(op->min);
        threads_[op->name] = {min, ir::simplify(min + expand(op->extent) - 1)};
        thread_loops_++;
        ir::Stmt result = ir::Mutator::visit(op);
        thread_loops_--;
        threads_.erase(op->name);
        if (thread_loops_ == 0) expanded_.clear(), per_thread_values_.clear();
        return result;
    }

    void enter_region(const ir::For* outermost) {
        FindThreadFuncs funcs;
        funcs.include(ir::handle_of(outermost));
        rules_.clear();
        for (const std::string& f : funcs.cooperative) rules_.merge(widening_rules(env_.function(f)));
        per_thread_ = funcs.per_thread;
    }

    Expr expand(const Expr& e) const { return ir::substitute(expanded_, e); }

    ir::Stmt visit(const ir::LetStmt* op) override {
        if (thread_loops_ == 0) return ir::Mutator::visit(op);
        Expr value = op->value;
        const Expr per_thread = expand(op->value);
        auto rule = rules_.find(op->name);
        if (rule != rules_.end()) value = widened(op->name, rule->second, per_thread);
        const auto saved = expanded_.find(op->name) == expanded_.end() ? std::optional<Expr>()
                                                                       : std::optional(expanded_[op->name]);
        per_thread_values_[op->name] = per_thread;
        expanded_[op->name] = rule != rules_.end() ? value : per_thread;
        ir::Stmt body = mutate(op->body);
        if (saved)
            expanded_[op->name] = *saved;
        else
            expanded_.erase(op->name);
        return ir::LetStmt::make(op->name, value, body);
    }

    Expr widened(const std::string& name, const WideningRule& rule, const Expr& per_thread) const {
        using End = WideningRule::End;
        if (rule.end == End::Extent) {
            const Expr min = per_thread_values_.at(rule.min_name);
            const ir::Interval first = bounds(name, min), last = bounds(name, min + per_thread - 1);
            return ir::simplify(last.max - first.min + 1);
        }
        const ir::Interval range = bounds(name, per_thread);
        return rule.end == End::Min ? range.min : range.max;
    }

    ir::Interval bounds(const std::string& name, const Expr& e) const {
        const ir::Interval range = ir::bounds_of_expr(ir::simplify(e), threads_);
        TESSERA_USER_CHECK(range.is_bounded())
            << "cannot bound " << name << " over the threads of a GPU block: " << e
            << ". A Func computed by the threads of a block together needs a region that every thread "
            << "can compute the same; compute it at a loop whose bounds the threads share.";
        return range;
    }

    ir::Stmt visit(const ir::ProducerConsumer* op) override {
        if (op->is_producer && thread_loops_ > 0 && has_own_thread_loop(op)) check_reads(op);
        return ir::Mutator::visit(op);
    }

    void check_reads(const ir::ProducerConsumer* production) const {
        for (const auto& [read, box] : ir::boxes_touched(production->body)) {
            TESSERA_USER_CHECK(per_thread_.count(read) == 0)
                << "Func " << production->name << " is computed by the threads of a GPU block together "
                << "(its gpu_threads loops are inside another stage's), but it reads " << read
                << ", which each thread computes for itself; a thread would read values that another "
                << "computed. Compute " << read << " at a block loop (in shared memory), or inside "
                << production->name << "'s own loops.";
        }
    }
};

}  // namespace

std::set<std::string> cooperative_funcs(const ir::Stmt& s) {
    FindThreadFuncs funcs;
    funcs.include(s);
    return funcs.cooperative;
}

ir::Stmt widen_cooperative_regions(const ir::Stmt& s, const Environment& env) {
    return WidenRegions(env).mutate(s);
}

}  // namespace tessera::lowering
