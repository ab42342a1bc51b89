#include "lowering/partition_loops.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/equal.h"
#include "ir/interval.h"
#include "ir/ir_util.h"
#include "ir/linear_form.h"
#include "ir/mutator.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "lowering/gpu_memory_accesses.h"
#include "tessera/operators.h"

namespace tessera::lowering {
namespace {

// The strongest likely() mark in an expression: likely_if_innermost() is weak.
enum class Mark { None, Weak, Strong };

Mark strongest_mark(const ir::Expr& e) {
    class Find : public ir::Visitor {
    public:
        Mark found = Mark::None;

    private:
        using ir::Visitor::visit;
        void visit(const ir::Call* op) override {
            if (op->call_type == ir::CallType::Intrinsic && op->intrinsic == ir::Intrinsic::Likely)
                found = Mark::Strong;
            else if (ir::is_likely(ir::handle_of(op)) && found == Mark::None)
                found = Mark::Weak;
            ir::Visitor::visit(op);
        }
    } find;
    find.include(e);
    return find.found;
}

// Whether an expression loads from memory. A min or max of loaded values is data, not a clamp of a
// loop's range, even where the addresses it loads from are clamped (and so carry likely() marks):
// no range of the loop can be proved from it, and bounding an inlined pipeline's values is costly.
bool reads_memory(const ir::Expr& e) {
    class Find : public ir::Visitor {
    public:
        bool found = false;

    private:
        using ir::Visitor::visit;
        void visit(const ir::Load*) override { found = true; }
    } find;
    find.include(e);
    return find.found;
}

void conjuncts(const ir::Expr& e, std::vector<ir::Expr>& out) {
    if (ir::is_likely(e)) {
        conjuncts(ir::without_likely(e), out);
    } else if (const ir::And* op = e.as<ir::And>()) {
        conjuncts(op->a, out);
        conjuncts(op->b, out);
    } else {
        out.push_back(e);
    }
}

// A comparison of two Int(32) scalars as "a - b + offset <= 0".
struct AtMostZero {
    ir::Expr a, b;
    int64_t offset = 0;
};

std::optional<AtMostZero> at_most_zero(const ir::Expr& e) {
    auto ints = [](const ir::Expr& x, const ir::Expr& y) {
        return x.type() == Int(32) && y.type() == Int(32);
    };
    if (const ir::LT* op = e.as<ir::LT>(); op && ints(op->a, op->b)) return AtMostZero{op->a, op->b, 1};
    if (const ir::LE* op = e.as<ir::LE>(); op && ints(op->a, op->b)) return AtMostZero{op->a, op->b, 0};
    if (const ir::GT* op = e.as<ir::GT>(); op && ints(op->a, op->b)) return AtMostZero{op->b, op->a, 1};
    if (const ir::GE* op = e.as<ir::GE>(); op && ints(op->a, op->b)) return AtMostZero{op->b, op->a, 0};
    return std::nullopt;
}

// The iterations [start, end) of a loop in which a test comes out its likely way; an undefined end
// is the loop's own.
struct SteadyRange {
    ir::Expr start, end;

    void intersect(const SteadyRange& other) {
        auto tighter = [](const ir::Expr& mine, const ir::Expr& theirs, bool is_start) {
            if (!mine.defined()) return theirs;
            if (!theirs.defined()) return mine;
            return ir::simplify(is_start ? max(mine, theirs) : min(mine, theirs));
        };
        start = tighter(start, other.start, true);
        end = tighter(end, other.end, false);
    }
};

// A test of a loop's body proved to come out its likely way in a range of the loop's iterations.
struct Test {
    SteadyRange range;
    ir::Expr clamp;            // min and max: the node
    bool likely_is_b = false;  // min and max: which operand is the likely one
    // Marked likely_if_innermost(): not reason enough to partition a loop with loops inside.
    bool weak = false;
    // The other tests whose likely sides the proof took.
    std::set<const void*> assumed;
};

// A proved min or max with its likely() marks taken off. A min or max equal to it that reads
// nothing the loop's body binds has the same value in each iteration, and so the same likely side:
// the bounds of a tile, which bounds inference computes from its consumer's loop without the marks,
// then move with the loop as the consumer does.
struct UnmarkedClamp {
    ir::Expr form;
    bool likely_is_b;
    const void* test;
};

std::vector<UnmarkedClamp> unmarked_clamps(const std::map<const void*, Test>& tests,
                                           const std::unordered_set<std::string>& bound_in_body) {
    std::vector<UnmarkedClamp> clamps;
    for (const auto& [node, test] : tests) {
        if (!test.clamp.defined()) continue;
        const std::unordered_set<std::string> read = ir::variables_read(test.clamp);
        if (std::any_of(read.begin(), read.end(),
                        [&](const std::string& n) { return bound_in_body.count(n); }))
            continue;
        ir::Expr form;
        if (const ir::Min* op = test.clamp.as<ir::Min>())
            form = ir::Min::make(ir::without_likely(op->a), ir::without_likely(op->b));
        else if (const ir::Max* op = test.clamp.as<ir::Max>())
            form = ir::Max::make(ir::without_likely(op->a), ir::without_likely(op->b));
        clamps.push_back({form, test.likely_is_b, node});
    }
    return clamps;
}

// Each proved test taken its likely way, and each min or max equal to an unmarked clamp; the
// tests taken are noted. With drop_marks, every likely() mark goes too (for reasoning about values);
// otherwise only those of the sides taken (the marks of the tests left are for enclosing loops).
class TakeLikelySides : public ir::Mutator {
public:
    TakeLikelySides(const std::map<const void*, Test>& tests, const std::vector<UnmarkedClamp>& clamps,
                    bool drop_marks, std::set<const void*>* taken = nullptr)
        : tests_(tests), clamps_(clamps), drop_marks_(drop_marks), taken_(taken) {}

private:
    using ir::Mutator::visit;

    ir::Stmt visit(const ir::IfThenElse* op) override {
        if (!tests_.count(op)) return ir::Mutator::visit(op);
        note(op);
        return mutate(op->then_case);
    }
    ir::Expr visit(const ir::Select* op) override {
        if (!tests_.count(op)) return ir::Mutator::visit(op);
        note(op);
        return mutate(op->true_value);
    }
    ir::Expr visit(const ir::Call* op) override {
        if (drop_marks_ && ir::is_likely(ir::handle_of(op))) return mutate(op->args[0]);
        return ir::Mutator::visit(op);
    }
    ir::Expr visit(const ir::Min* op) override { return clamp(op, op->a, op->b); }
    ir::Expr visit(const ir::Max* op) override { return clamp(op, op->a, op->b); }

    template <typename T>
    ir::Expr clamp(const T* op, const ir::Expr& a, const ir::Expr& b) {
        if (auto test = tests_.find(op); test != tests_.end()) {
            note(op);
            return ir::without_likely(mutate(test->second.likely_is_b ? b : a));
        }
        if (!ir::is_likely(a) && !ir::is_likely(b)) {
            const ir::Expr self = ir::handle_of(op);
            for (const UnmarkedClamp& c : clamps_) {
                if (!ir::equal(self, c.form)) continue;
                note(c.test);
                return mutate(c.likely_is_b ? b : a);
            }
        }
        return ir::Mutator::visit(op);
    }

    void note(const void* test) {
        if (taken_) taken_->insert(test);
    }

    const std::map<const void*, Test>& tests_;
    const std::vector<UnmarkedClamp>& clamps_;
    const bool drop_marks_;
    std::set<const void*>* taken_;
};

// The tests of one loop's body and where each holds. Walks the body with the lets inside the loop
// expanded (into their values with the likely sides of the tests taken) and the ranges of the loops
// inside it known; a test is visited after the tests inside it. The unmarked clamps proved in an
// earlier walk are taken as well.
class FindTests : public ir::Visitor {
public:
    // outer_varying: the names that vary in loops around this one (their variables, and lets
    // that depend on them); a test that reads one is left to those loops.
    FindTests(const std::string& loop, const std::multiset<std::string>& outer_varying,
              const std::vector<UnmarkedClamp>& earlier_clamps)
        : loop_(loop), outer_varying_(outer_varying), earlier_clamps_(earlier_clamps) {}

    // The tests proved, once no proof rests on a test that was not.
    std::map<const void*, Test> proved() const {
        std::map<const void*, Test> result = tests_;
        for (bool changed = true; changed;) {
            changed = false;
            for (auto it = result.begin(); it != result.end();) {
                const bool sound = std::all_of(it->second.assumed.begin(), it->second.assumed.end(),
                                               [&](const void* other) { return result.count(other) > 0; });
                it = sound ? std::next(it) : result.erase(it);
                changed = changed || !sound;
            }
        }
        return result;
    }

private:
    using ir::Visitor::visit;

    // A value in terms of what is bound outside the loop and of the loops inside it, and the tests
    // taken their likely way in it.
    struct Steady {
        ir::Expr value;
        std::set<const void*> assumed;
    };

    void visit(const ir::LetStmt* op) override { let_scope(op); }
    void visit(const ir::Let* op) override { let_scope(op); }

    template <typename LetT>
    void let_scope(const LetT* op) {
        include(op->value);
        lets_[op->name].push_back(steady(op->value));
        include(op->body);
        lets_[op->name].pop_back();
    }

    void visit(const ir::For* op) override {
        include(op->min);
        include(op->extent);
        Steady min = steady(op->min), extent = steady(op->extent);
        auto previous = ranges_.find(op->name);
        const std::optional<ir::Interval> shadowed =
            previous == ranges_.end() ? std::nullopt : std::optional(previous->second);
        ranges_[op->name] = ir::Interval(min.value, ir::simplify(min.value + extent.value - 1));
        const bool moves_with_loop = reads_loop(min.value) || reads_loop(extent.value);
        if (moves_with_loop) inner_loops_moving_.insert(op->name);
        // Proofs over the loop's range rest on the tests taken in it.
        min.assumed.merge(extent.assumed);
        range_assumed_.push_back(std::move(min.assumed));
        include(op->body);
        range_assumed_.pop_back();
        if (moves_with_loop) inner_loops_moving_.erase(inner_loops_moving_.find(op->name));
        if (shadowed) {
            ranges_[op->name] = *shadowed;
        } else {
            ranges_.erase(op->name);
        }
    }

    void visit(const ir::IfThenElse* op) override {
        ir::Visitor::visit(op);
        if (!op->else_case.defined()) record(op, conjunction(op->condition));
    }

    void visit(const ir::Select* op) override {
        ir::Visitor::visit(op);
        if (!ir::is_likely(op->condition) || !op->type.is_scalar()) return;
        Test test;
        test.weak = strongest_mark(op->condition) == Mark::Weak;
        record(op, conjunction(op->condition), test);
    }

    void visit(const ir::Min* op) override {
        ir::Visitor::visit(op);
        clamp(ir::handle_of(op), op->a, op->b, true);
    }

    void visit(const ir::Max* op) override {
        ir::Visitor::visit(op);
        clamp(ir::handle_of(op), op->a, op->b, false);
    }

    // min(likely, other) is the likely operand where likely <= other; max where likely >= other.
    void clamp(const ir::Expr& node, const ir::Expr& a, const ir::Expr& b, bool is_min) {
        const Mark mark_a = strongest_mark(a), mark_b = strongest_mark(b);
        const bool in_a = mark_a != Mark::None, in_b = mark_b != Mark::None;
        if (in_a == in_b || a.type() != Int(32) || reads_memory(a) || reads_memory(b)) return;
        const ir::Expr& likely = in_a ? a : b;
        const ir::Expr& other = in_a ? b : a;
        Test test;
        std::optional<SteadyRange> range = is_min ? where_at_most_zero({likely, other, 0}, test.assumed)
                                                  : where_at_most_zero({other, likely, 0}, test.assumed);
        test.likely_is_b = in_b;
        test.weak = (in_a ? mark_a : mark_b) == Mark::Weak;
        test.clamp = node;
        record(node.get(), range, test);
    }

    struct Proof {
        std::optional<SteadyRange> range;
        std::set<const void*> assumed;
    };

    Proof conjunction(const ir::Expr& condition) {
        std::vector<ir::Expr> terms;
        conjuncts(condition, terms);
        Proof proof{SteadyRange{}, {}};
        for (const ir::Expr& term : terms) {
            std::optional<AtMostZero> form = at_most_zero(term);
            std::optional<SteadyRange> range =
                form ? where_at_most_zero(*form, proof.assumed) : std::optional<SteadyRange>();
            if (!range) return Proof{std::nullopt, {}};
            proof.range->intersect(*range);
        }
        return proof;
    }

    void record(const void* node, const Proof& proof, Test test = Test()) {
        test.assumed = proof.assumed;
        record(node, proof.range, test);
    }

    // A test met more than once (a node the body shares between places, as an inner loop's parts
    // do) holds where it holds in every place.
    void record(const void* node, const std::optional<SteadyRange>& range, Test test) {
        if (unproven_.count(node)) return;
        auto known = tests_.find(node);
        if (!range) {
            unproven_.insert(node);
            if (known != tests_.end()) tests_.erase(known);
            return;
        }
        test.range = *range;
        if (known == tests_.end()) {
            tests_[node] = test;
        } else {
            known->second.range.intersect(*range);
            known->second.assumed.merge(test.assumed);
        }
    }

    // Where a - b + offset <= 0 for every value of the loops inside, with the tests in a and b taken
    // their likely way: an increasing difference holds up to an end, a decreasing one from a start.
    std::optional<SteadyRange> where_at_most_zero(const AtMostZero& form, std::set<const void*>& assumed) {
        Steady a = steady(form.a), b = steady(form.b);
        // A test that does not read the loop's variable holds in all of it or none; bounding it
        // (the costly part, for the clamps of an inlined pipeline's many boundary conditions) would
        // find no range.
        if (!reads_loop(a.value) && !reads_loop(b.value)) return std::nullopt;
        const ir::Expr difference = ir::simplify(a.value - b.value + int32_t(form.offset));
        if (reads_outer_varying(difference)) return std::nullopt;
        const ir::Expr highest = ir::bounds_of_expr(difference, ranges_).max;
        if (!highest.defined()) return std::nullopt;
        std::optional<ir::LinearForm> f = ir::exact_difference(ir::simplify(highest), ir::make_zero(Int(32)));
        if (!f) return std::nullopt;
        ir::LinearForm rest(Int(32));
        rest.add_constant(f->constant);
        int64_t c = 0;
        for (const auto& [term, coefficient] : f->terms) {
            const ir::Variable* v = term.as<ir::Variable>();
            if (v && v->name == loop_) {
                c = coefficient;
            } else if (ir::uses_var(term, loop_) || reads_inner_loop(term)) {
                return std::nullopt;
            } else {
                rest.add_term(term, coefficient);
            }
        }
        if (c == 0) return std::nullopt;
        assumed.merge(a.assumed);
        assumed.merge(b.assumed);
        for (const std::set<const void*>& range : range_assumed_) assumed.insert(range.begin(), range.end());
        // c * v + rest <= 0: v <= floor(-rest / c) for c > 0, v >= ceil(rest / -c) for c < 0.
        const ir::Expr r = rest.to_expr();
        if (c > 0) return SteadyRange{ir::Expr(), (0 - r) / int32_t(c) + 1};
        return SteadyRange{(r + int32_t(-c - 1)) / int32_t(-c), ir::Expr()};
    }

    // e with the tests proved so far taken their likely way and the lets inside the loop expanded.
    Steady steady(const ir::Expr& e) const {
        Steady result;
        const ir::Expr taken = TakeLikelySides(tests_, earlier_clamps_, true, &result.assumed).mutate(e);
        std::map<std::string, ir::Expr> values;
        for (const std::string& name : ir::variables_read(taken)) {
            auto it = lets_.find(name);
            if (it == lets_.end() || it->second.empty()) continue;
            values[name] = it->second.back().value;
            result.assumed.insert(it->second.back().assumed.begin(), it->second.back().assumed.end());
        }
        result.value = values.empty() ? taken : ir::substitute(values, taken);
        return result;
    }

    bool reads_outer_varying(const ir::Expr& e) const {
        for (const std::string& name : ir::variables_read(e)) {
            if (outer_varying_.count(name)) return true;
        }
        return false;
    }

    // Whether e reads the loop's variable, or an inner loop's whose range moves with it.
    bool reads_loop(const ir::Expr& e) const {
        for (const std::string& name : ir::variables_read(e)) {
            if (name == loop_ || inner_loops_moving_.count(name)) return true;
        }
        return false;
    }

    bool reads_inner_loop(const ir::Expr& e) const {
        for (const std::string& name : ir::variables_read(e)) {
            if (ranges_.count(name)) return true;
        }
        return false;
    }

    const std::string& loop_;
    const std::multiset<std::string>& outer_varying_;
    const std::vector<UnmarkedClamp>& earlier_clamps_;
    std::map<std::string, std::vector<Steady>> lets_;
    std::map<std::string, ir::Interval> ranges_;
    std::multiset<std::string> inner_loops_moving_;
    std::vector<std::set<const void*>> range_assumed_;
    std::map<const void*, Test> tests_;
    std::set<const void*> unproven_;
};

// Inner loops are partitioned first, each for the tests that depend on no serial loop around it:
// a test that does (xo * 8 + xi < n, in the loop of xi) is the outer loop's to partition, and
// splitting the inner loop for it as well would only multiply the code.
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
        // A loop with barriers is never partitioned (below): the tests that depend on it are its
        // inner loops' to partition.
        const bool partitioned_here = serial && !contains_gpu_barrier(op->body);
        if (partitioned_here) varying_.insert(op->name);
        ir::Stmt body = mutate(op->body);
        if (partitioned_here) varying_.erase(varying_.find(op->name));
        ir::Stmt mutated = body.same_as(op->body)
                               ? ir::handle_of(op)
                               : ir::For::make(op->name, op->min, op->extent, op->for_kind, body);
        // The threads of a GPU block must meet every barrier in step, so a loop with barriers
        // keeps one body: its parts' bounds could differ from thread to thread.
        if (!partitioned_here) return mutated;
        const ir::For* loop = mutated.as<ir::For>();
        // A walk that proves a clamp may prove more in the next, which takes the clamp's unmarked
        // copies (a tile's bounds, bound before its consumer's loop is met) its likely way too.
        const std::unordered_set<std::string> bound_in_body = ir::names_bound(loop->body);
        std::map<const void*, Test> tests;
        std::vector<UnmarkedClamp> clamps;
        for (int walk = 0; walk < 3; walk++) {
            FindTests find(loop->name, varying_, clamps);
            find.include(loop->body);
            tests = find.proved();
            std::vector<UnmarkedClamp> proved_clamps = unmarked_clamps(tests, bound_in_body);
            const bool more = proved_clamps.size() > clamps.size();
            clamps = std::move(proved_clamps);
            if (!more) break;
        }
        if (!worth_partitioning(tests, loop->body)) return mutated;
        SteadyRange steady_range;
        for (const auto& [node, test] : tests) steady_range.intersect(test.range);
        const ir::Stmt steady_body = TakeLikelySides(tests, clamps, false).mutate(loop->body);
        return partitioned(loop, steady_range, steady_body, op->body);
    }

    // Weak tests alone partition only an innermost loop: elsewhere they are usually evaluated once
    // per iteration, and the copies would cost more compile time than they save.
    static bool worth_partitioning(const std::map<const void*, Test>& tests, const ir::Stmt& body) {
        if (tests.empty()) return false;
        if (std::any_of(tests.begin(), tests.end(), [](const auto& t) { return !t.second.weak; }))
            return true;
        class FindSerialLoop : public ir::Visitor {
        public:
            bool found = false;

        private:
            using ir::Visitor::visit;
            void visit(const ir::For* op) override {
                found = found || op->for_kind == ir::ForKind::Serial;
                ir::Visitor::visit(op);
            }
        } find;
        find.include(body);
        return !find.found;
    }

    // The loop as a prologue (if the range has a start), the steady part and an epilogue (if it
    // has an end). The prologue and the epilogue run the body with its inner loops not partitioned:
    // they are the edges, and partitioning nested loops in every part would multiply the code by
    // the depth of the nest.
    static ir::Stmt partitioned(const ir::For* loop, const SteadyRange& range, const ir::Stmt& steady_body,
                                const ir::Stmt& edge_body) {
        const ir::Expr loop_end = loop->min + loop->extent;
        const std::string start_name = loop->name + ".steady_start", end_name = loop->name + ".steady_end";
        const ir::Expr start = range.start.defined() ? ir::int_var(start_name) : loop->min;
        const ir::Expr end = range.end.defined() ? ir::int_var(end_name) : loop_end;
        auto part = [&](const ir::Expr& from, const ir::Expr& to, const ir::Stmt& body) {
            return ir::For::make(loop->name, from, to - from, ir::ForKind::Serial, body);
        };
        std::vector<ir::Stmt> parts;
        if (range.start.defined()) parts.push_back(part(loop->min, start, edge_body));
        parts.push_back(part(start, end, steady_body));
        if (range.end.defined()) parts.push_back(part(end, loop_end, edge_body));
        ir::Stmt s = ir::Block::make(std::move(parts));
        if (range.end.defined())
            s = ir::LetStmt::make(end_name, ir::simplify(max(start, min(loop_end, range.end))), s);
        if (range.start.defined())
            s = ir::LetStmt::make(start_name, ir::simplify(min(loop_end, max(loop->min, range.start))), s);
        return s;
    }

    // The names that vary in the serial loops around the statement visited (a name bound twice is
    // in twice).
    std::multiset<std::string> varying_;
};

// The likely() marks of values, their work done: a value with a mark and the same value without it
// (a tile's bounds) would not cancel. The marks of guards stay, for the branch weights.
class StripValueMarks : public ir::Mutator {
    using ir::Mutator::visit;
    ir::Expr visit(const ir::Call* op) override {
        if (ir::is_likely(ir::handle_of(op))) return mutate(op->args[0]);
        return ir::Mutator::visit(op);
    }
    ir::Stmt visit(const ir::IfThenElse* op) override {
        if (!ir::is_likely(op->condition)) return ir::Mutator::visit(op);
        const ir::Expr inner = op->condition.as<ir::Call>()->args[0];
        const ir::Expr condition = ir::Call::make_intrinsic(Bool(), ir::Intrinsic::Likely, {mutate(inner)});
        return ir::IfThenElse::make(condition, mutate(op->then_case),
                                    op->else_case.defined() ? mutate(op->else_case) : ir::Stmt());
    }
};

}  // namespace

ir::Stmt partition_loops(const ir::Stmt& s) { return StripValueMarks().mutate(PartitionLoops().mutate(s)); }

}  // namespace tessera::lowering
