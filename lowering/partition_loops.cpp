#include "lowering/partition_loops.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/interval.h"
#include "ir/ir_util.h"
#include "ir/linear_form.h"
#include "ir/mutator.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "tessera/operators.h"

namespace tessera::lowering {
namespace {

// A comparison of two Int(32) values as "difference(a, b) + offset < 0".
struct NegativeForm {
    ir::Expr a, b;
    int64_t offset = 0;
};

std::optional<NegativeForm> negative_form(const ir::Expr& e) {
    auto ints = [](const ir::Expr& x, const ir::Expr& y) {
        return x.type() == Int(32) && y.type() == Int(32);
    };
    if (const ir::LT* op = e.as<ir::LT>(); op && ints(op->a, op->b)) return NegativeForm{op->a, op->b, 0};
    if (const ir::LE* op = e.as<ir::LE>(); op && ints(op->a, op->b)) return NegativeForm{op->a, op->b, -1};
    if (const ir::GT* op = e.as<ir::GT>(); op && ints(op->a, op->b)) return NegativeForm{op->b, op->a, 0};
    if (const ir::GE* op = e.as<ir::GE>(); op && ints(op->a, op->b)) return NegativeForm{op->b, op->a, -1};
    return std::nullopt;
}

void conjuncts(const ir::Expr& e, std::vector<ir::Expr>& out) {
    const ir::Call* likely = e.as<ir::Call>();
    if (likely && likely->intrinsic == ir::Intrinsic::Likely) {
        conjuncts(likely->args[0], out);
    } else if (const ir::And* op = e.as<ir::And>()) {
        conjuncts(op->a, out);
        conjuncts(op->b, out);
    } else {
        out.push_back(e);
    }
}

// The guards of one loop's body that hold in its first iterations: for each, the value of the
// loop's variable from which it may fail. Walks the body with the lets inside the loop expanded
// and the ranges of the loops inside it known.
class GuardEnds : public ir::Visitor {
public:
    // outer_varying: the names that vary in loops around this one (their variables, and lets
    // that depend on them); a guard that reads one is left to those loops.
    GuardEnds(const std::string& loop, const std::multiset<std::string>& outer_varying)
        : loop_(loop), outer_varying_(outer_varying) {}

    std::map<const ir::IfThenElse*, ir::Expr> ends;

private:
    using ir::Visitor::visit;

    void visit(const ir::LetStmt* op) override {
        lets_[op->name].push_back(expanded(op->value));
        include(op->body);
        lets_[op->name].pop_back();
    }

    void visit(const ir::For* op) override {
        const ir::Expr min = expanded(op->min), max = ir::simplify(min + expanded(op->extent) - 1);
        auto previous = ranges_.find(op->name);
        const std::optional<ir::Interval> shadowed =
            previous == ranges_.end() ? std::nullopt : std::optional(previous->second);
        ranges_[op->name] = ir::Interval(min, max);
        include(op->body);
        if (shadowed) {
            ranges_[op->name] = *shadowed;
        } else {
            ranges_.erase(op->name);
        }
    }

    // A guard met more than once (a node the body shares between places, as an inner loop's two
    // parts do) holds where it holds in every place.
    void visit(const ir::IfThenElse* op) override {
        if (!op->else_case.defined() && !unproven_.count(op)) {
            const ir::Expr condition = expanded(op->condition);
            std::optional<ir::Expr> end = reads_outer_varying(condition) ? std::nullopt : end_of(condition);
            auto known = ends.find(op);
            if (!end) {
                unproven_.insert(op);
                if (known != ends.end()) ends.erase(known);
            } else if (known != ends.end()) {
                known->second = ir::simplify(min(known->second, *end));
            } else {
                ends[op] = *end;
            }
        }
        ir::Visitor::visit(op);
    }

    // e in terms of what is bound outside the loop and of the loops inside it; the values of the
    // lets are kept so expanded.
    ir::Expr expanded(const ir::Expr& e) const {
        std::map<std::string, ir::Expr> values;
        for (const std::string& name : ir::variables_read(e)) {
            auto it = lets_.find(name);
            if (it != lets_.end() && !it->second.empty()) values[name] = it->second.back();
        }
        return values.empty() ? e : ir::substitute(values, e);
    }

    bool reads_outer_varying(const ir::Expr& e) const {
        for (const std::string& name : ir::variables_read(e)) {
            if (outer_varying_.count(name)) return true;
        }
        return false;
    }

    // The first value of the loop variable at which the condition may fail, if the condition is
    // a conjunction of comparisons that increase with it.
    std::optional<ir::Expr> end_of(const ir::Expr& condition) const {
        std::vector<ir::Expr> terms;
        conjuncts(condition, terms);
        ir::Expr end;
        for (const ir::Expr& term : terms) {
            std::optional<ir::Expr> term_end = end_of_comparison(term);
            if (!term_end) return std::nullopt;
            end = end.defined() ? min(end, *term_end) : *term_end;
        }
        return ir::simplify(end);
    }

    // For c * v + rest < 0 with c > 0: v < ceil(-max(rest) / c), max(rest) taken over the loops
    // inside this one.
    std::optional<ir::Expr> end_of_comparison(const ir::Expr& term) const {
        std::optional<NegativeForm> form = negative_form(term);
        if (!form) return std::nullopt;
        std::optional<ir::LinearForm> difference = ir::exact_difference(form->a, form->b);
        if (!difference) return std::nullopt;
        ir::LinearForm rest(Int(32));
        rest.add_constant(difference->constant + form->offset);
        int64_t coefficient = 0;
        for (const auto& [expr, c] : difference->terms) {
            const ir::Variable* v = expr.as<ir::Variable>();
            if (v && v->name == loop_) {
                coefficient = c;
            } else if (ir::uses_var(expr, loop_)) {
                return std::nullopt;
            } else {
                rest.add_term(expr, c);
            }
        }
        if (coefficient <= 0) return std::nullopt;
        const ir::Expr highest = ir::bounds_of_expr(rest.to_expr(), ranges_).max;
        if (!highest.defined() || ir::uses_var(highest, loop_)) return std::nullopt;
        for (const auto& [inner, range] : ranges_) {
            if (ir::uses_var(highest, inner)) return std::nullopt;
        }
        const ir::Expr c = ir::make_const(Int(32), coefficient);
        return (c - 1 - highest) / c;
    }

    const std::string& loop_;
    const std::multiset<std::string>& outer_varying_;
    std::map<std::string, std::vector<ir::Expr>> lets_;
    std::map<std::string, ir::Interval> ranges_;
    std::set<const ir::IfThenElse*> unproven_;
};

// The body with the given guards taken as true.
class DropGuards : public ir::Mutator {
public:
    explicit DropGuards(const std::map<const ir::IfThenElse*, ir::Expr>& guards) : guards_(guards) {}

private:
    using ir::Mutator::visit;
    ir::Stmt visit(const ir::IfThenElse* op) override {
        if (guards_.count(op)) return mutate(op->then_case);
        return ir::Mutator::visit(op);
    }
    const std::map<const ir::IfThenElse*, ir::Expr>& guards_;
};

// Inner loops are partitioned first, each for the guards that depend on no serial loop around it:
// a guard that does (xo * 8 + xi < n, in the loop of xi) is the outer loop's to partition, and
// splitting the inner loop for it as well would only double the code.
class PartitionLoops : public ir::Mutator {
    using ir::Mutator::visit;

    ir::Stmt visit(const ir::LetStmt* op) override {
        ir::Expr value = mutate(op->value);
        const std::unordered_set<std::string> read = ir::variables_read(value);
        const bool varies = std::any_of(read.begin(), read.end(),
                                        [&](const std::string& name) { return varying_.count(name) > 0; });
        if (varies) varying_.insert(op->name);
        ir::Stmt body = mutate(op->body);
        if (varies) varying_.erase(varying_.find(op->name));
        if (value.same_as(op->value) && body.same_as(op->body)) return ir::handle_of(op);
        return ir::LetStmt::make(op->name, value, body);
    }

    ir::Stmt visit(const ir::For* op) override {
        const bool serial = op->for_kind == ir::ForKind::Serial;
        if (serial) varying_.insert(op->name);
        ir::Stmt body = mutate(op->body);
        if (serial) varying_.erase(varying_.find(op->name));
        ir::Stmt mutated = body.same_as(op->body)
                               ? ir::handle_of(op)
                               : ir::For::make(op->name, op->min, op->extent, op->for_kind, body);
        if (!serial) return mutated;
        const ir::For* loop = mutated.as<ir::For>();
        GuardEnds guards(loop->name, varying_);
        guards.include(loop->body);
        if (guards.ends.empty()) return mutated;
        ir::Expr end;
        for (const auto& [guard, guard_end] : guards.ends)
            end = end.defined() ? min(end, guard_end) : guard_end;
        const ir::Expr loop_end = loop->min + loop->extent;
        const std::string split_name = loop->name + ".steady_end";
        const ir::Expr split = ir::int_var(split_name);
        ir::Stmt steady = ir::For::make(loop->name, loop->min, split - loop->min, ir::ForKind::Serial,
                                        DropGuards(guards.ends).mutate(loop->body));
        ir::Stmt rest = ir::For::make(loop->name, split, loop_end - split, ir::ForKind::Serial, loop->body);
        return ir::LetStmt::make(split_name, ir::simplify(max(loop->min, min(loop_end, end))),
                                 ir::Block::make(steady, rest));
    }

    // The names that vary in the serial loops around the statement visited (a name bound twice is
    // in twice).
    std::multiset<std::string> varying_;
};

}  // namespace

ir::Stmt partition_loops(const ir::Stmt& s) { return PartitionLoops().mutate(s); }

}  // namespace tessera::lowering
