// boxes_touched: the regions of Funcs and images that a piece of IR reads and writes, the core of
// bounds inference.

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/equal.h"
#include "ir/interval.h"
#include "ir/interval_ends.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/node_list.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera::ir {
namespace {

// The names an expression mentions.
void collect_names(const Expr& e, std::set<std::string>& names) {
    class Collect : public Visitor {
    public:
        explicit Collect(std::set<std::string>& n) : names(n) {}
        std::set<std::string>& names;

    private:
        void visit(const Variable* op) override { names.insert(op->name); }
    } collect(names);
    collect.include(e);
}

// Counts the nodes of an expression, stopping once past a limit.
class CountNodes : public Visitor {
public:
    explicit CountNodes(int l) : limit(l) {}
    int n = 0;

private:
    const int limit;
#define TESSERA_COUNT_NODE(T)                \
    void visit(const T* op) override {       \
        if (++n < limit) Visitor::visit(op); \
    }
    TESSERA_FOR_EACH_EXPR(TESSERA_COUNT_NODE)
#undef TESSERA_COUNT_NODE
};

int size_up_to(const Expr& e, int limit) {
    CountNodes count(limit);
    count.include(e);
    return count.n;
}

// What replaces a difference whose two sides move together (see BoxesTouched::cancelled), and the
// names the difference mentions with the lets in scope substituted.
struct Cancelled {
    Expr replacement;
    std::unordered_set<std::string> mentions;
};

// Replaces the differences of an expression whose two sides vary over the scope, one at least
// through the lets it defines, by what `cancel` gives for them. A difference under a Let of the
// expression is left alone where that Let binds a name the difference, or its substituted form,
// mentions: the scope's definitions would read the wrong variable there.
class CancelCorrelatedDifferences : public Mutator {
public:
    CancelCorrelatedDifferences(const std::map<std::string, Interval>& scope,
                                const std::map<std::string, Expr>& definitions,
                                std::function<Cancelled(const Expr&)> cancel)
        : scope(scope), definitions(definitions), cancel(std::move(cancel)) {}

private:
    const std::map<std::string, Interval>& scope;
    const std::map<std::string, Expr>& definitions;
    const std::function<Cancelled(const Expr&)> cancel;
    std::multiset<std::string> bound_inside;  // by the Lets of the expression around the node visited
    std::map<Expr, Cancelled, ExprLess> done;

    // A chain of Lets at once, without recursion per Let.
    Expr visit(const Let* op) override {
        std::vector<std::pair<const Let*, Expr>> chain;
        for (const Let* let = op; let; let = let->body.as<Let>()) {
            chain.emplace_back(let, mutate(let->value));
            bound_inside.insert(let->name);
        }
        Expr body = mutate(chain.back().first->body);
        bool changed = !body.same_as(chain.back().first->body);
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const auto& [let, value] = *it;
            bound_inside.erase(bound_inside.find(let->name));
            changed = changed || !value.same_as(let->value);
            body = changed ? Let::make(let->name, value, body) : handle_of(let);
        }
        return body;
    }

    Expr visit(const Sub* op) override {
        Expr e = Mutator::visit(op);
        if (!e.as<Sub>() || !e.type().is_scalar() || !e.type().is_int_or_uint() ||
            !interval_ends::keeps_symbolic_ends(e.type()) || !may_cancel(e.as<Sub>()))
            return e;
        auto it = done.find(e);
        if (it == done.end()) it = done.emplace(e, cancel(e)).first;
        for (const std::string& n : it->second.mentions) {
            if (bound_inside.count(n)) return e;
        }
        return it->second.replacement;
    }

    bool may_cancel(const Sub* difference) const {
        bool defined = false;
        for (const Expr& side : {difference->a, difference->b}) {
            bool varies = false;
            for (const std::string& n : variables_read(side)) {
                if (bound_inside.count(n)) return false;
                const bool is_defined = definitions.count(n) > 0;
                defined = defined || is_defined;
                varies = varies || is_defined || scope.count(n) > 0;
            }
            if (!varies) return false;
        }
        return defined;
    }
};

// The distance between the ends of an interval, where it is a constant.
std::optional<int64_t> constant_width(const Interval& i) {
    if (!i.is_bounded()) return std::nullopt;
    if (interval_ends::is_point(i)) return 0;
    return as_const_int(simplify(i.max - i.min));
}

// The names whose intervals can change the box of one Func or image: the variables of its
// coordinates and of the conditions around its accesses, and, through the lets and loops that bind
// them, every name their values and bounds read. Other lets and loops need not be bounded at all;
// in a loop nest of many Funcs, bounding them all for each Func's box is most of the work.
// Relevance goes by name, not by binder: every binder of a relevant name is relevant.
class RelevantNames : public Visitor {
public:
    explicit RelevantNames(const std::string& target) : target(target) {}

    std::unordered_set<std::string> closure() const {
        std::unordered_set<std::string> relevant;
        std::vector<std::string> pending(seeds.begin(), seeds.end());
        while (!pending.empty()) {
            std::string name = std::move(pending.back());
            pending.pop_back();
            if (!relevant.insert(name).second) continue;
            auto it = reads.find(name);
            if (it == reads.end()) continue;
            for (const std::string& n : it->second) {
                if (!relevant.count(n)) pending.push_back(n);
            }
        }
        return relevant;
    }

private:
    const std::string& target;
    std::set<std::string> seeds;
    std::unordered_map<std::string, std::set<std::string>> reads;  // by the binders of each name
    std::vector<std::set<std::string>> conditions;                 // of the ifs around the node visited

    void binds(const std::string& name, const Expr& e) { collect_names(e, reads[name]); }

    void accessed(const std::vector<Expr>& coordinates) {
        for (const Expr& c : coordinates) collect_names(c, seeds);
        for (const std::set<std::string>& names : conditions) seeds.insert(names.begin(), names.end());
    }

    void visit(const Call* op) override {
        if (op->name == target && (op->call_type == CallType::Func || op->call_type == CallType::Image))
            accessed(op->args);
        Visitor::visit(op);
    }
    void visit(const Provide* op) override {
        if (op->name == target) accessed(op->args);
        Visitor::visit(op);
    }
    // A chain of lets at once, as Visitor walks them.
    template <typename LetT>
    void let_chain(const LetT* let) {
        while (true) {
            binds(let->name, let->value);
            include(let->value);
            const LetT* next = let->body.template as<LetT>();
            if (!next) break;
            let = next;
        }
        include(let->body);
    }
    void visit(const Let* op) override { let_chain(op); }
    void visit(const LetStmt* op) override { let_chain(op); }
    void visit(const For* op) override {
        binds(op->name, op->min);
        binds(op->name, op->extent);
        Visitor::visit(op);
    }
    void visit(const IfThenElse* op) override {
        include(op->condition);
        conditions.emplace_back();
        collect_names(op->condition, conditions.back());
        include(op->then_case);
        if (op->else_case.defined()) include(op->else_case);
        conditions.pop_back();
    }
};

class BoxesTouched : public Visitor {
public:
    explicit BoxesTouched(const std::map<std::string, Interval>& s) {
        for (const auto& [name, interval] : s) set(name, interval);
    }
    // Boxes of one Func or image only, bounding only the lets and loops that its box depends on.
    BoxesTouched(const std::map<std::string, Interval>& s, const std::string& target,
                 std::unordered_set<std::string> relevant)
        : BoxesTouched(s) {
        only = Only{target, std::move(relevant)};
    }
    std::map<std::string, Box> boxes;

    // The boxes, with the names that stand for large interval ends defined around each end that
    // uses them.
    std::map<std::string, Box> result() {
        for (auto& [name, box] : boxes) {
            for (Interval& i : box) {
                i.min = with_end_lets(i.min);
                i.max = with_end_lets(i.max);
            }
        }
        return std::move(boxes);
    }

private:
    struct Only {
        std::string target;
        std::unordered_set<std::string> relevant;
    };
    std::optional<Only> only;
    bool wanted(const std::string& access) const { return !only || access == only->target; }
    bool bounded(const std::string& binder) const { return !only || only->relevant.count(binder); }

    // Ends of let and loop intervals larger than this are given names of their own (defined by Lets
    // around the results), as Halide does: substituted in full, the ends of nested loops and lets
    // grow with every level (each end mentions the ends of the level outside, often several
    // times), and past bounds_of_expr's size limit they are dropped, leaving a region unbounded.
    static constexpr int kNameEndsLargerThan = 48;
    // The names given to large ends, their definitions and the names those mention, in order: a
    // definition mentions only free variables and names defined before it.
    struct EndName {
        std::string name;
        Expr definition;
        std::set<std::string> mentions;
    };
    std::vector<EndName> end_names;

    Expr named_end(const std::string& name, const char* which, const Expr& end) {
        if (!end.defined() || !interval_ends::larger_than(end, kNameEndsLargerThan)) return end;
        EndName n{name + "." + which + ".end" + std::to_string(end_names.size()), end, {}};
        collect_names(end, n.mentions);
        end_names.push_back(std::move(n));
        return Variable::make(end.type(), end_names.back().name);
    }

    Interval named_ends(const std::string& name, const Interval& i) {
        if (interval_ends::is_point(i)) {
            Expr v = named_end(name, "value", i.min);
            return Interval(v, v);
        }
        return Interval(named_end(name, "min", i.min), named_end(name, "max", i.max));
    }

    // e inside the Lets of the end names it needs, directly or through other definitions.
    Expr with_end_lets(Expr e) const {
        if (!e.defined() || end_names.empty()) return e;
        std::set<std::string> needed;
        collect_names(e, needed);
        for (auto it = end_names.rbegin(); it != end_names.rend(); ++it) {
            if (!needed.count(it->name)) continue;
            e = Let::make(it->name, it->definition, e);
            needed.insert(it->mentions.begin(), it->mentions.end());
        }
        return e;
    }

    // Intervals of the names in scope, and how often each name appears in their ends.
    std::map<std::string, Interval> scope;
    std::unordered_map<std::string, int> referenced;
    // The values of the lets in scope, to see through them where correlations matter.
    std::map<std::string, Expr> definitions;
    std::unordered_map<std::string, std::vector<std::string>> mentioned_by;  // may hold stale names
    // What a binder replaced, to put back when its scope ends.
    struct Saved {
        std::string name;
        std::optional<Interval> previous;
        std::vector<std::pair<std::string, Interval>> rewritten;
        std::optional<Expr> previous_definition;
        std::vector<std::pair<std::string, Expr>> hidden_definitions;
        std::optional<std::vector<Expr>> previous_guards;
    };

    void count(const Interval& i, int delta) {
        std::set<std::string> names;
        if (i.min.defined()) collect_names(i.min, names);
        if (i.max.defined()) collect_names(i.max, names);
        for (const std::string& n : names) referenced[n] += delta;
    }

    void set(const std::string& name, const std::optional<Interval>& interval) {
        auto it = scope.find(name);
        if (it != scope.end()) {
            count(it->second, -1);
            scope.erase(it);
        }
        if (!interval) return;
        scope[name] = *interval;
        count(*interval, +1);
    }

    void touch(const std::string& name, const std::vector<Expr>& coordinates) {
        Box box;
        for (const Expr& c : coordinates) box.push_back(bounds_under_guards(c, bounds_of_coordinate(c)));
        auto [it, inserted] = boxes.emplace(name, box);
        std::vector<UnitedEnds>& united = united_ends[name];
        united.resize(box.size());
        TESSERA_INTERNAL_CHECK(it->second.size() == box.size())
            << name << " is accessed with " << it->second.size() << " and with " << box.size()
            << " coordinates";
        for (size_t d = 0; d < box.size(); d++) {
            const bool new_min = united[d].mins.insert(box[d].min).second;
            const bool new_max = united[d].maxes.insert(box[d].max).second;
            if (inserted) continue;
            Interval& into = it->second[d];
            if (new_min) into.min = interval_ends::min_of_lower(into.min, box[d].min);
            if (new_max) into.max = interval_ends::max_of_upper(into.max, box[d].max);
        }
    }
    // Ends united into each dimension of each box so far (not all of them: a box merged by a
    // condition holds none of its branches' ends as such). An access at the same coordinates as an
    // earlier one (a Func inlined many times reads its inputs many times over) adds nothing, and
    // uniting its ends again would only lengthen the box's chain of mins and maxes.
    struct UnitedEnds {
        std::set<Expr, ExprLess> mins, maxes;
    };
    std::map<std::string, std::vector<UnitedEnds>> united_ends;

    // Binds name to interval. Intervals written in terms of an outer variable of that name would be
    // read as being about the new one: they are replaced by their constant ranges meanwhile.
    Saved bind(const std::string& name, const Interval& given, const Expr& definition = Expr()) {
        Saved saved{name, std::nullopt, {}, std::nullopt, {}, std::nullopt};
        // Guards about an outer variable of this name say nothing about the new one.
        if (std::any_of(guards.begin(), guards.end(), [&](const Expr& g) { return uses_var(g, name); })) {
            saved.previous_guards = guards;
            std::erase_if(guards, [&](const Expr& g) { return uses_var(g, name); });
        }
        // Definitions that mention an outer variable of this name would read it as the new one.
        if (auto it = definitions.find(name); it != definitions.end()) {
            saved.previous_definition = it->second;
            definitions.erase(it);
        }
        if (auto m = mentioned_by.find(name); m != mentioned_by.end()) {
            for (const std::string& other : m->second) {
                auto it = definitions.find(other);
                if (it == definitions.end() || !uses_var(it->second, name)) continue;  // a stale entry
                saved.hidden_definitions.emplace_back(it->first, it->second);
                definitions.erase(it);
            }
        }
        if (definition.defined() && !uses_var(definition, name)) {
            definitions[name] = definition;
            std::set<std::string> names;
            collect_names(definition, names);
            for (const std::string& n : names) mentioned_by[n].push_back(name);
        }
        if (auto it = scope.find(name); it != scope.end()) saved.previous = it->second;
        const bool self_referencing = mentions(given, name);
        Interval interval = given;
        if (referenced[name] > 0 || self_referencing) {
            ConstantScope constants = constant_scope(scope);
            // The new interval, written in terms of an outer variable of its own name, likewise.
            if (self_referencing) interval = constant_part(given, constants);
            for (const auto& [other, i] : scope) {
                if (mentions(i, name)) saved.rewritten.emplace_back(other, i);
            }
            for (const auto& [other, i] : saved.rewritten) set(other, constant_part(i, constants));
        }
        set(name, interval);
        return saved;
    }

    static bool mentions(const Interval& i, const std::string& name) {
        return (i.min.defined() && uses_var(i.min, name)) || (i.max.defined() && uses_var(i.max, name));
    }

    // The constant range of an interval, as an interval.
    static Interval constant_part(const Interval& i, const ConstantScope& constants) {
        const Expr& any_end = i.min.defined() ? i.min : i.max;
        if (!any_end.defined() || !any_end.type().is_int_or_uint()) return Interval::everything();
        const Type t = any_end.type();
        ConstantInterval r = ConstantInterval::of_type(t);
        if (i.min.defined()) {
            if (auto lo = constant_bounds(i.min, constants)) r.min = lo->min;
        }
        if (i.max.defined()) {
            if (auto hi = constant_bounds(i.max, constants)) r.max = hi->max;
        }
        return interval_ends::from_constant(r, t);
    }

    void unbind(std::vector<Saved>& saved) {
        for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
            set(it->name, it->previous);
            definitions.erase(it->name);
            if (it->previous_definition) definitions[it->name] = *it->previous_definition;
            for (const auto& [other, value] : it->hidden_definitions) definitions[other] = value;
            if (it->previous_guards) guards = *it->previous_guards;
            for (auto r = it->rewritten.rbegin(); r != it->rewritten.rend(); ++r) set(r->first, r->second);
        }
        saved.clear();
    }

    void visit(const Call* op) override {
        if ((op->call_type == CallType::Func || op->call_type == CallType::Image) && wanted(op->name))
            touch(op->name, op->args);
        Visitor::visit(op);
    }

    void visit(const Provide* op) override {
        if (wanted(op->name)) touch(op->name, op->args);
        Visitor::visit(op);
    }

    // Let and LetStmt chains: bind each value's interval in turn, by iteration.
    template <typename LetT>
    void let_chain(const LetT* op) {
        std::vector<Saved> saved;
        const LetT* let = op;
        while (true) {
            include(let->value);
            if (bounded(let->name)) {
                Interval value = bounds_of_expr(cancelled_differences(let->value), scope);
                saved.push_back(bind(let->name, named_ends(let->name, value), let->value));
            }
            const LetT* next = let->body.template as<LetT>();
            if (!next) break;
            let = next;
        }
        include(let->body);
        unbind(saved);
    }

    void visit(const Let* op) override { let_chain(op); }
    void visit(const LetStmt* op) override { let_chain(op); }

    // e with its correlated differences cancelled, to be bounded. Inside a loop over y, a Func
    // computed there covers [y + 1, y + 1]: the bounds of its loop are lets y.min = y + 1 and
    // y.max = y + 1, and a region or an extent written in terms of them, (y.max - y.min) + 1, is 1.
    // Bounded apart over the loop (by a Func stored outside it), each let ranges over the whole loop
    // and the difference seems to vary by twice the loop's extent; the products and quotients of
    // fused loops' extents then outgrow bounds_of_expr's size limit, which drops the bound. Halide
    // cancels such differences (simplify_correlated_differences) before it bounds allocations.
    Expr cancelled_differences(const Expr& e) {
        if (definitions.empty()) return e;
        auto names = variables_read(e);
        if (std::none_of(names.begin(), names.end(),
                         [&](const std::string& n) { return definitions.count(n); }))
            return e;
        auto cancel = [this](const Expr& difference) { return cancelled(difference); };
        return CancelCorrelatedDifferences(scope, definitions, cancel).mutate(e);
    }

    // The difference with the lets in scope substituted, where that bounds it within a constant
    // width narrower than bounded apart: the same value, for bounding only. A single value stands
    // for it as such (named if large, as interval ends are); otherwise the substituted form, if
    // small: the lets of the difference keep large bounds small, and substituting them all gives
    // up that.
    Cancelled cancelled(const Expr& difference) {
        const std::optional<int64_t> apart = constant_width(bounds_of_expr(difference, scope));
        if (apart == 0) return {difference, {}};
        Expr together = see_through_lets(difference);
        const Interval i = bounds_of_expr(together, scope);
        const std::optional<int64_t> width = constant_width(i);
        if (!width || (apart && *width >= *apart)) return {difference, {}};
        if (*width == 0) return {named_end("difference", "value", i.min), variables_read(together)};
        if (size_up_to(together, kNameEndsLargerThan) >= kNameEndsLargerThan) return {difference, {}};
        return {together, variables_read(together)};
    }

    // e with the lets in scope substituted, a few levels deep: a loop's min and extent are often lets
    // of the same variables (min = y - 1, extent = (y + 1) - (y - 1) + 1), whose intervals taken
    // apart would forget that they move together.
    // Each level of substitution can multiply the size (a let's value names the one before it
    // several times); past kSeeThroughSize the simplifier would take long, so it stops there.
    static constexpr int kSeeThroughSize = 400;
    Expr see_through_lets(const Expr& e) const {
        Expr result = e;
        for (int depth = 0; depth < 4; depth++) {
            Expr next = substitute(definitions, result);
            if (next.same_as(result) || interval_ends::larger_than(next, kSeeThroughSize)) break;
            result = next;
        }
        return simplify(result);
    }

    // The bounds of a coordinate, also taken with the lets it depends on substituted and simplified:
    // lets of the same loop variables (a split's min(xo * 16, extent - 16) with extent = max - min
    // + 1, both of a consumer's loop) bound apart forget that they move together. Both results hold,
    // so their intersection does.
    Interval bounds_of_coordinate(const Expr& c) {
        Interval apart = bounds_of_expr(cancelled_differences(c), scope);
        if (definitions.empty() || (apart.is_bounded() && is_const(simplify(apart.max - apart.min))))
            return apart;
        Expr together = see_through_lets(c);
        if (together.same_as(c) || size_up_to(together, 400) >= 400) return apart;
        return interval_intersection(apart, bounds_of_expr(together, scope));
    }

    // A coordinate that is a guarded expression plus a constant, under a guard such as
    // `ro * 8 + ri < 61`, is bounded by the guard itself, which narrowing single variables misses.
    Interval bounds_under_guards(const Expr& c, Interval bounds) {
        for (const Expr& guard : guards) {
            const LT* lt = guard.as<LT>();
            const LE* le = guard.as<LE>();
            if (!lt && !le) continue;
            const Expr& a = lt ? lt->a : le->a;
            const Expr& b = lt ? lt->b : le->b;
            if (!c.type().is_int() || a.type() != c.type()) continue;
            std::optional<int64_t> k = as_const_int(simplify(c - a));
            if (!k) continue;
            Interval limit = bounds_of_coordinate(b);
            if (!limit.max.defined()) continue;
            Expr max = simplify(limit.max + ir::make_const(c.type(), int64_t(*k - (lt ? 1 : 0))));
            bounds = interval_intersection(bounds, Interval(Expr(), max));
        }
        return bounds;
    }
    // The conditions of the ifs enclosing this point, split at &&. A binder that hides a variable
    // they mention takes them out meanwhile (see bind).
    std::vector<Expr> guards;
    void add_guards(const Expr& condition) {
        if (is_likely(condition)) {
            add_guards(without_likely(condition));
        } else if (const And* a = condition.as<And>()) {
            add_guards(a->a);
            add_guards(a->b);
        } else {
            guards.push_back(condition);
        }
    }

    void visit(const For* op) override {
        include(op->min);
        include(op->extent);
        if (!bounded(op->name)) {
            include(op->body);
            return;
        }
        Interval min = bounds_of_expr(cancelled_differences(op->min), scope);
        Interval extent = bounds_of_expr(cancelled_differences(op->extent), scope);
        Expr last = interval_ends::sub(interval_ends::add(min.max, extent.max), make_one(Int(32)));
        Interval correlated = bounds_of_expr(see_through_lets(op->min + op->extent - 1), scope);
        if (correlated.max.defined()) last = correlated.max;
        std::vector<Saved> saved{bind(op->name, named_ends(op->name, Interval(min.min, last)))};
        include(op->body);
        unbind(saved);
    }

    // Narrows scope by a condition; returns each narrowed name's interval from before.
    std::map<std::string, Interval> narrow(const Expr& condition, bool holds) {
        std::map<std::string, Interval> before;
        for (const ScopeChange& c : narrow_scope(condition, holds, scope)) before.emplace(c.name, c.previous);
        for (const auto& [name, old] : before) {
            count(old, -1);
            count(scope[name], +1);
        }
        return before;
    }

    void restore(const std::map<std::string, Interval>& before) {
        for (const auto& [name, old] : before) set(name, old);
    }

    void visit(const IfThenElse* op) override {
        include(op->condition);
        if (is_invariant(op->condition)) {
            // A condition on values fixed over the whole region walked (a specialization's, say):
            // the boxes of the two branches are merged by the condition instead of united, so
            // that a branch that does not run does not widen what the other needs.
            // (Each branch starts from no box, and so with no ends united.)
            std::map<std::string, Box> outer = std::move(boxes);
            auto outer_united = std::move(united_ends);
            boxes.clear();
            united_ends.clear();
            branch(op->condition, true, op->then_case);
            std::map<std::string, Box> then_boxes = std::move(boxes);
            boxes.clear();
            united_ends.clear();
            if (op->else_case.defined()) branch(op->condition, false, op->else_case);
            std::map<std::string, Box> else_boxes = std::move(boxes);
            boxes = std::move(outer);
            united_ends = std::move(outer_united);
            merge_by_condition(op->condition, then_boxes, else_boxes);
            return;
        }
        branch(op->condition, true, op->then_case);
        if (op->else_case.defined()) branch(op->condition, false, op->else_case);
    }

    void branch(const Expr& condition, bool holds, const Stmt& s) {
        auto before = narrow(condition, holds);
        const size_t outer_guards = guards.size();
        if (holds) add_guards(condition);
        include(s);
        guards.resize(outer_guards);
        restore(before);
    }

    // Whether an expression mentions nothing that varies over the region walked.
    bool is_invariant(const Expr& e) const {
        std::set<std::string> names;
        collect_names(e, names);
        for (const std::string& n : names) {
            if (scope.count(n) || definitions.count(n)) return false;
        }
        return true;
    }

    void merge_by_condition(const Expr& c, const std::map<std::string, Box>& a,
                            const std::map<std::string, Box>& b) {
        auto pick = [&](const Expr& x, const Expr& y) {
            return x.defined() && y.defined() ? simplify(Select::make(c, x, y)) : Expr();
        };
        for (const auto& [name, box] : a) {
            auto other = b.find(name);
            if (other == b.end() || other->second.size() != box.size()) {
                add_box(name, box);
                continue;
            }
            Box merged;
            for (size_t d = 0; d < box.size(); d++)
                merged.push_back(
                    Interval(pick(box[d].min, other->second[d].min), pick(box[d].max, other->second[d].max)));
            add_box(name, merged);
        }
        for (const auto& [name, box] : b) {
            if (!a.count(name)) add_box(name, box);
        }
    }

    void add_box(const std::string& name, const Box& box) {
        auto [it, inserted] = boxes.emplace(name, box);
        if (inserted) return;
        for (size_t d = 0; d < box.size() && d < it->second.size(); d++)
            it->second[d] = interval_union(it->second[d], box[d]);
    }

    // Both values of a select are computed, whatever the condition (as in Halide): each touches its
    // box everywhere, unlike the branches of an if, which run only where their condition holds.
};

}  // namespace

std::map<std::string, Box> boxes_touched(const Expr& e, const std::map<std::string, Interval>& scope) {
    BoxesTouched b(scope);
    b.include(e);
    return b.result();
}

std::map<std::string, Box> boxes_touched(const Stmt& s, const std::map<std::string, Interval>& scope) {
    BoxesTouched b(scope);
    b.include(s);
    return b.result();
}

Box box_touched(const Stmt& s, const std::string& name) {
    RelevantNames relevance(name);
    relevance.include(s);
    BoxesTouched b({}, name, relevance.closure());
    b.include(s);
    std::map<std::string, Box> boxes = b.result();
    auto it = boxes.find(name);
    return it == boxes.end() ? Box() : std::move(it->second);
}

}  // namespace tessera::ir
