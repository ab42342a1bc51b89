// The simplifier's scopes: lets (substituted, kept or dropped), loops, ifs and asserts, and the
// intervals of the variables they bind, which the expression rules use to prove things.

#include <algorithm>
#include <set>
#include <unordered_set>

#include "ir/equal.h"
#include "ir/interval_ends.h"
#include "ir/ir_util.h"
#include "ir/simplifier.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessera::ir {
namespace {

// How often each name is bound by a Let, LetStmt or For.
class BinderCounter : public Visitor {
public:
    explicit BinderCounter(std::unordered_map<std::string, int>& c) : counts(c) {}
    using Visitor::include;

private:
    std::unordered_map<std::string, int>& counts;
    std::unordered_set<const void*> seen;

    template <typename LetT>
    void chain(const LetT* op) {
        const LetT* let = op;
        while (true) {
            counts[let->name]++;
            include(let->value);
            const LetT* next = let->body.template as<LetT>();
            if (!next) break;
            let = next;
        }
        include(let->body);
    }

    template <typename T>
    void once(const T* op) {
        if (!seen.insert(op).second) return;
        if constexpr (std::is_same_v<T, Let>)
            chain(op);
        else
            Visitor::visit(op);
    }
#define TESSERA_ONCE(T) \
    void visit(const T* op) override { once(op); }
    TESSERA_FOR_EACH_EXPR(TESSERA_ONCE)
#undef TESSERA_ONCE
    void visit(const LetStmt* op) override { chain(op); }
    void visit(const For* op) override {
        counts[op->name]++;
        Visitor::visit(op);
    }
};

bool is_constant_end(const Expr& e) { return !e.defined() || as_exact_int(e) || as_const_float(e); }

bool has_side_effects(const Expr& e) {
    // Only printing: everything else an expression does is compute a value.
    class FindPrint : public Visitor {
    public:
        bool found = false;

    private:
        void visit(const Call* op) override {
            found = found || op->intrinsic == Intrinsic::Print || op->intrinsic == Intrinsic::PrintWhen;
            Visitor::visit(op);
        }
    } finder;
    finder.include(e);
    return finder.found;
}

}  // namespace

// ---- Facts and binders ----

void Simplifier::assume(const std::map<std::string, Interval>& known) {
    // Bind names before the intervals written in terms of them (where there is such an order).
    std::vector<std::string> pending;
    for (const auto& [name, interval] : known) pending.push_back(name);
    while (!pending.empty()) {
        auto ready = std::find_if(pending.begin(), pending.end(), [&](const std::string& name) {
            const Interval& i = known.at(name);
            return std::none_of(pending.begin(), pending.end(), [&](const std::string& other) {
                return other != name && ((i.min.defined() && uses_var(i.min, other)) ||
                                         (i.max.defined() && uses_var(i.max, other)));
            });
        });
        if (ready == pending.end()) ready = pending.begin();
        set_interval(*ready, known.at(*ready), false);
        pending.erase(ready);
    }
    // Known intervals may be written in terms of each other: derive their constant ranges together.
    for (auto& [name, range] : constant_scope(known)) {
        constants[name] = range;
        touch(name);
    }
}

void Simplifier::count_binders(const Expr& e) { BinderCounter(binder_count).include(e); }
void Simplifier::count_binders(const Stmt& s) { BinderCounter(binder_count).include(s); }

std::optional<ConstantInterval> Simplifier::constant_range(const Interval& i) const {
    const Expr& any_end = i.min.defined() ? i.min : i.max;
    if (!any_end.defined() || !any_end.type().element_of().is_int_or_uint()) return std::nullopt;
    const Type t = any_end.type().element_of();
    ConstantInterval r = ConstantInterval::of_type(t);
    if (i.min.defined()) {
        if (auto lo = constant_bounds(i.min, constants)) r.min = lo->min;
    }
    if (i.max.defined()) {
        if (auto hi = constant_bounds(i.max, constants)) r.max = hi->max;
    }
    return r;
}

void Simplifier::count_references(const Interval& i, int delta) {
    if (is_constant_end(i.min) && is_constant_end(i.max)) return;
    std::unordered_set<std::string> names = variables_read(i.min);
    if (!i.max.same_as(i.min)) names.merge(variables_read(i.max));
    for (const std::string& n : names) referenced[n] += delta;
}

bool Simplifier::mentions_symbolic_interval(const Expr& e) {
    if (symbolic_names.empty()) return false;
    for (const std::string& n : variables_read(e)) {
        if (symbolic_names.count(n)) return true;
    }
    return false;
}

// A bound (lower or upper) of e in which no variable of scope is left, or an undefined Expr: found
// once for each state of the names it depends on.
Expr Simplifier::eliminate_scope_variables(const Expr& e, bool lower) {
    auto& cache = eliminated[lower ? 0 : 1];
    auto it = cache.find(e);
    if (it != cache.end() && still_valid(it->second)) return it->second.bound;
    Expr bound = eliminate_uncached(e, lower);
    cache.insert_or_assign(e, Eliminated{dependencies(e), bound});
    return bound;
}

// The names e reads and those the intervals in scope of these names read, transitively, with
// their versions.
std::vector<std::pair<std::string, uint64_t>> Simplifier::dependencies(const Expr& e) const {
    std::unordered_set<std::string> names = variables_read(e);
    std::vector<std::string> pending(names.begin(), names.end());
    while (!pending.empty()) {
        const std::string name = std::move(pending.back());
        pending.pop_back();
        auto i = scope.find(name);
        if (i == scope.end()) continue;
        for (const Expr& end : {i->second.min, i->second.max}) {
            if (!end.defined() || is_constant_end(end)) continue;
            for (const std::string& n : variables_read(end)) {
                if (names.insert(n).second) pending.push_back(n);
            }
        }
    }
    std::vector<std::pair<std::string, uint64_t>> result;
    for (const std::string& n : names) {
        auto v = versions.find(n);
        result.emplace_back(n, v == versions.end() ? 0 : v->second);
    }
    return result;
}

bool Simplifier::still_valid(const Eliminated& cached) const {
    for (const auto& [name, version] : cached.depends_on) {
        auto v = versions.find(name);
        if ((v == versions.end() ? 0 : v->second) != version) return false;
    }
    return true;
}

// Each step bounds the expression as the variable bound last ranges over its interval, the others
// held fixed: intervals are written in terms of earlier names, so relations survive (x - y with x
// in [y, y + 3] is at least 0). A few steps at most; constant ranges cover what is left.
Expr Simplifier::eliminate_uncached(Expr e, bool lower) {
    BoundsOptions options;
    options.constant_scope = &constants;
    options.max_size = 64;
    for (int step = 0; step < 6 && e.defined(); step++) {
        const std::string* innermost = nullptr;
        int latest = -1;
        for (const std::string& n : variables_read(e)) {
            auto order = binding_order.find(n);
            if (order != binding_order.end() && order->second > latest && scope.count(n)) {
                latest = order->second;
                innermost = &order->first;
            }
        }
        if (!innermost) break;
        Interval i = bounds_of_expr(e, {{*innermost, scope.at(*innermost)}}, options);
        e = lower ? i.min : i.max;
    }
    return e;
}

void Simplifier::set_interval(const std::string& name, const std::optional<Interval>& interval,
                              bool with_constant) {
    std::optional<Interval> usable = interval;
    // An interval written in terms of an outer variable of the same name would be read as being
    // about this one: keep only its constant range.
    if (usable && ((usable->min.defined() && uses_var(usable->min, name)) ||
                   (usable->max.defined() && uses_var(usable->max, name)))) {
        auto c = constant_range(*usable);
        usable = c ? interval_ends::from_constant(
                         *c, usable->min.defined() ? usable->min.type() : usable->max.type())
                   : Interval::everything();
    }
    std::optional<ConstantInterval> constant =
        usable && with_constant ? constant_range(*usable) : std::nullopt;
    touch(name);
    auto it = scope.find(name);
    if (it != scope.end()) {
        count_references(it->second, -1);
        scope.erase(it);
        binding_order.erase(name);
        symbolic_names.erase(name);
    }
    if (with_constant) constants.erase(name);
    if (!usable) return;
    if (constant) constants[name] = *constant;
    scope[name] = *usable;
    binding_order[name] = ++bindings;
    if (!is_constant_end(usable->min) || !is_constant_end(usable->max)) symbolic_names.insert(name);
    count_references(*usable, +1);
}

Simplifier::Saved Simplifier::enter(const std::string& name, const std::optional<Interval>& interval,
                                    const Expr& replacement) {
    Saved saved{name, std::nullopt, std::nullopt, std::nullopt, std::nullopt, {}, {}};
    if (auto it = scope.find(name); it != scope.end()) saved.interval = it->second;
    if (auto it = constants.find(name); it != constants.end()) saved.constant = it->second;
    if (auto it = replacements.find(name); it != replacements.end()) saved.replacement = it->second;
    if (auto it = binding_order.find(name); it != binding_order.end()) saved.order = it->second;
    memo.clear();
    // Intervals written in terms of an outer variable of this name no longer mean what they say.
    if (referenced[name] > 0) {
        for (const auto& [other, i] : scope) {
            if (other == name) continue;
            if ((i.min.defined() && uses_var(i.min, name)) || (i.max.defined() && uses_var(i.max, name))) {
                saved.hidden.emplace_back(other, i);
            }
        }
        for (const auto& [other, i] : saved.hidden) {
            saved.hidden_order.push_back(binding_order[other]);
            set_interval(other, std::nullopt, false);
        }
    }
    bound_now[name]++;
    if (replacement.defined()) {
        replacements[name] = replacement;
        set_interval(name, std::nullopt);
    } else {
        replacements.erase(name);
        set_interval(name, use_intervals ? interval : std::nullopt);
    }
    return saved;
}

void Simplifier::leave(Saved& saved) {
    memo.clear();
    bound_now[saved.name]--;
    if (saved.replacement)
        replacements[saved.name] = *saved.replacement;
    else
        replacements.erase(saved.name);
    set_interval(saved.name, saved.interval, false);
    if (saved.constant)
        constants[saved.name] = *saved.constant;
    else
        constants.erase(saved.name);
    if (saved.order) binding_order[saved.name] = *saved.order;
    touch(saved.name);
    for (size_t k = saved.hidden.size(); k-- > 0;) {
        set_interval(saved.hidden[k].first, saved.hidden[k].second, false);
        binding_order[saved.hidden[k].first] = saved.hidden_order[k];
        touch(saved.hidden[k].first);
    }
}

// Constants are always substituted. A variable is, where no binder inside can capture it: it is
// never bound, or bound once and we are inside that binder.
bool Simplifier::can_substitute(const Expr& value) const {
    if (is_const(value)) return true;
    const Variable* v = value.as<Variable>();
    if (!v || !use_intervals) return false;
    auto count = binder_count.find(v->name);
    if (count == binder_count.end() || count->second == 0) return true;
    auto now = bound_now.find(v->name);
    return count->second == 1 && now != bound_now.end() && now->second > 0;
}

// A let's variable is the value itself (exact, and relations survive) unless the value is large.
std::optional<Interval> Simplifier::binding_interval(const Expr& value) {
    if (!use_intervals) return std::nullopt;
    const Type t = value.type().element_of();
    if (!t.is_int_or_uint() && !t.is_float()) return std::nullopt;
    if (value.type().is_scalar() && !interval_ends::larger_than(value, 64))
        return Interval::single_point(value);
    BoundsOptions options;
    options.constant_scope = &constants;
    return bounds_of_expr(value, scope, options);
}

// ---- Lets ----

Expr Simplifier::visit(const Let* op) {
    struct Frame {
        const Let* op;
        Expr value;
        bool substituted;
        Saved saved;
    };
    std::vector<Frame> frames;
    const Let* let = op;
    while (true) {
        Expr value = mutate(let->value);
        const bool substituted = can_substitute(value);
        Saved saved =
            substituted ? enter(let->name, std::nullopt, value) : enter(let->name, binding_interval(value));
        frames.push_back({let, value, substituted, std::move(saved)});
        const Let* next = let->body.as<Let>();
        if (!next) break;
        let = next;
    }
    Expr body = mutate(let->body);
    std::unordered_set<std::string> used = variables_read(body);
    bool changed = !body.same_as(let->body);
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
        leave(it->saved);
        if (it->substituted || (!used.count(it->op->name) && !has_side_effects(it->value))) {
            changed = true;
            continue;
        }
        used.merge(variables_read(it->value));
        if (!changed && it->value.same_as(it->op->value)) {
            body = handle_of(it->op);
        } else {
            body = Let::make(it->op->name, it->value, body);
            changed = true;
        }
    }
    return body;
}

Stmt Simplifier::visit(const LetStmt* op) {
    struct Frame {
        const LetStmt* op;
        Expr value;
        bool substituted;
        Saved saved;
    };
    std::vector<Frame> frames;
    const LetStmt* let = op;
    while (true) {
        Expr value = mutate(let->value);
        const bool substituted = can_substitute(value);
        Saved saved =
            substituted ? enter(let->name, std::nullopt, value) : enter(let->name, binding_interval(value));
        frames.push_back({let, value, substituted, std::move(saved)});
        const LetStmt* next = let->body.as<LetStmt>();
        if (!next) break;
        let = next;
    }
    Stmt body = mutate(let->body);
    std::unordered_set<std::string> used = variables_read(body);
    bool changed = !body.same_as(let->body);
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
        leave(it->saved);
        if (it->substituted || !body.defined() ||
            (!used.count(it->op->name) && !has_side_effects(it->value))) {
            changed = true;
            continue;
        }
        used.merge(variables_read(it->value));
        if (!changed && it->value.same_as(it->op->value)) {
            body = handle_of(it->op);
        } else {
            body = LetStmt::make(it->op->name, it->value, body);
            changed = true;
        }
    }
    return body;
}

// ---- Statements ----

Stmt Simplifier::visit(const For* op) {
    Expr min = mutate(op->min), extent = mutate(op->extent);
    if (prove_le(extent, make_zero(extent.type()))) return Stmt();
    // A GPU loop of one iteration stays: it is where a kernel, or its threads, begin.
    if (is_const_one(extent) && !is_gpu_loop(op->for_kind))
        return mutate(LetStmt::make(op->name, min, op->body));
    Expr last = simplify_local(Sub::make(Add::make(min, extent), make_one(min.type())));
    Saved saved = enter(op->name, Interval(min, last));
    Stmt body = mutate(op->body);
    leave(saved);
    if (!body.defined()) return Stmt();
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return handle_of(op);
    return For::make(op->name, min, extent, op->for_kind, body);
}

namespace {

// The boolean variables (a Param<bool>, say) whose values a condition known to be `holds` fixes.
void known_booleans(const Expr& condition, bool holds, std::map<std::string, Expr>& known) {
    if (const Variable* v = condition.as<Variable>()) {
        if (v->type.is_bool() && v->type.is_scalar()) known[v->name] = make_bool(holds);
    } else if (const Not* n = condition.as<Not>()) {
        known_booleans(n->a, !holds, known);
    } else if (const And* a = condition.as<And>(); a && holds) {
        known_booleans(a->a, true, known);
        known_booleans(a->b, true, known);
    } else if (const Or* o = condition.as<Or>(); o && !holds) {
        known_booleans(o->a, false, known);
        known_booleans(o->b, false, known);
    }
}

}  // namespace

// s simplified where `condition` is known to be `holds`.
Stmt Simplifier::in_branch(const Expr& condition, bool holds, const Stmt& given) {
    if (!given.defined()) return given;
    std::map<std::string, Expr> booleans;
    known_booleans(condition, holds, booleans);
    const Stmt s = booleans.empty() ? given : substitute(booleans, given);
    std::vector<ScopeChange> changes = narrow_scope(condition, holds, scope, Narrowing::PreferCondition);
    // narrow_scope rewrote scope in place: redo the bookkeeping from each variable's first interval.
    std::map<std::string, Interval> original;
    for (const ScopeChange& c : changes) original.emplace(c.name, c.previous);
    for (const auto& [name, first] : original) {
        Interval narrowed = scope[name];
        scope[name] = first;
        set_interval(name, narrowed);
    }
    memo.clear();
    Stmt r = mutate(s);
    for (const auto& [name, first] : original) set_interval(name, first);
    memo.clear();
    return r;
}

Stmt Simplifier::visit(const IfThenElse* op) {
    Expr c = mutate(op->condition);
    if (auto k = as_const_uint(c)) return *k ? mutate(op->then_case) : mutate(op->else_case);
    Stmt then_case = in_branch(c, true, op->then_case), else_case = in_branch(c, false, op->else_case);
    if (!then_case.defined() && !else_case.defined()) return Stmt();
    if (!then_case.defined()) return IfThenElse::make(negation(c, Expr()), else_case);
    if (else_case.defined() && equal(then_case, else_case)) return then_case;
    if (c.same_as(op->condition) && then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) {
        return handle_of(op);
    }
    return IfThenElse::make(c, then_case, else_case);
}

Stmt Simplifier::visit(const AssertStmt* op) {
    Expr c = mutate(op->condition);
    if (is_const_one(c)) return Stmt();
    Expr message = mutate(op->message);
    if (c.same_as(op->condition) && message.same_as(op->message)) return handle_of(op);
    return AssertStmt::make(c, message);
}

Stmt Simplifier::visit(const Evaluate* op) {
    Expr v = mutate(op->value);
    // Evaluating a constant or a variable does nothing.
    if (is_const(v) || v.as<Variable>()) return Stmt();
    return v.same_as(op->value) ? handle_of(op) : Evaluate::make(v);
}

}  // namespace tessera::ir
