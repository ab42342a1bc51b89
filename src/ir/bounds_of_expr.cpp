// bounds_of_expr: interval arithmetic over expressions. Each node's interval is built from its
// children's: as a single point (the node itself, when its children are single points), with
// symbolic ends (Int(32)/Int(64) and floats), or as a constant range (wrapping types, and wherever
// symbolic ends would be unsound or too large).

#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/common_subexpressions.h"
#include "ir/interval.h"
#include "ir/interval_ends.h"
#include "ir/ir_util.h"
#include "ir/simplifier.h"
#include "ir/simplify.h"

namespace tessera::ir {
namespace {

using namespace interval_ends;

bool is_int(Type t) { return t.is_int_or_uint(); }

class BoundsOf {
public:
    BoundsOf(const std::map<std::string, Interval>& s, const BoundsOptions& o) : scope(s), options(o) {
        node_lookup = [this](const std::string& name) { return constant_of(name); };
        end_lookup = [this](const std::string& name) { return constant_of_outer(name); };
    }

    // The bounds of e, with simplified ends.
    Interval simplified_bounds(const Expr& e) { return cooked(bounds(e)); }

    Interval bounds(const Expr& e) {
        const bool is_shared = e.node().use_count() > 1;
        if (is_shared) {
            auto it = shared.find(e.get());
            if (it != shared.end()) return it->second.second;
        }
        Interval r = limit_size(e, compute(e));
        if (is_shared) shared.emplace(e.get(), std::make_pair(e, r));
        return r;
    }

private:
    struct Binding {
        Interval interval;
        std::optional<ConstantInterval> constant;
    };
    const std::map<std::string, Interval>& scope;
    const BoundsOptions& options;
    // Subexpressions of e see the Lets around them; the ends of intervals never mention a name a Let
    // of e binds (its interval stands in for it), so they are read in the scope outside e.
    ConstantLookup node_lookup, end_lookup;
    // Variables bound by Lets inside the expression, innermost last.
    std::unordered_map<std::string, std::vector<Binding>> lets;
    // Constant ranges of scope variables, derived when first needed.
    std::unordered_map<std::string, std::optional<ConstantInterval>> derived;
    std::set<std::string> deriving;
    // Results for nodes shared within the expression (kept alive with them), so that a DAG is
    // bounded once per node, not once per path.
    std::unordered_map<const ExprNode*, std::pair<Expr, Interval>> shared;
    // Single points that may hold unsimplified subexpressions of e (simplifying each would cost a
    // walk per node). They are simplified where they meet arithmetic on ends, whose overflow checks
    // must see every constant.
    std::unordered_set<const ExprNode*> unsimplified;

    Interval original_point(const Expr& e) {
        unsimplified.insert(e.get());
        return Interval::single_point(e);
    }

    Interval cooked(const Interval& i) {
        if (!i.is_single_point() || !unsimplified.count(i.min.get())) return i;
        return Interval::single_point(simplify_local(i.min));
    }

    // ---- Variables and their constant ranges ----

    std::optional<ConstantInterval> constant_of(const std::string& name) {
        auto l = lets.find(name);
        if (l != lets.end() && !l->second.empty()) return l->second.back().constant;
        return constant_of_outer(name);
    }

    std::optional<ConstantInterval> constant_of_outer(const std::string& name) {
        if (options.constant_scope) {
            auto it = options.constant_scope->find(name);
            if (it != options.constant_scope->end()) return it->second;
        }
        auto done = derived.find(name);
        if (done != derived.end()) return done->second;
        auto it = scope.find(name);
        if (it == scope.end() || deriving.count(name)) return std::nullopt;
        deriving.insert(name);
        std::optional<ConstantInterval> r;
        const Expr& any_end = it->second.min.defined() ? it->second.min : it->second.max;
        if (any_end.defined() && is_int(any_end.type()))
            r = to_constant(it->second, any_end.type().element_of());
        deriving.erase(name);
        derived[name] = r;
        return r;
    }

    // The constant range of an interval of integer type t: constant ends as they are, symbolic ends
    // bounded in turn.
    ConstantInterval to_constant(const Interval& i, Type t) {
        ConstantInterval r = ConstantInterval::of_type(t);
        if (i.min.defined()) {
            if (auto k = as_exact_int(i.min))
                r.min = *k;
            else if (auto b = constant_bounds(i.min, end_lookup))
                r.min = b->min;
        }
        if (i.max.defined()) {
            if (auto k = as_exact_int(i.max))
                r.max = *k;
            else if (auto b = constant_bounds(i.max, end_lookup))
                r.max = b->max;
        }
        return r;
    }

    // Scope intervals as this file keeps them: for Int(32)/Int(64) an end at the type's extreme is
    // unbounded; for wrapping types an unbounded end is the type's extreme.
    Interval normalized(const Interval& i, Type t) {
        if (!is_int(t)) return i;
        if (keeps_symbolic_ends(t)) {
            const ConstantInterval all = ConstantInterval::of_type(t);
            auto lo = as_exact_int(i.min), hi = as_exact_int(i.max);
            return Interval(lo && *lo <= all.min ? Expr() : i.min, hi && *hi >= all.max ? Expr() : i.max);
        }
        if (i.is_bounded()) return i;
        Interval all = from_constant(ConstantInterval::of_type(t), t);
        return Interval(i.min.defined() ? i.min : all.min, i.max.defined() ? i.max : all.max);
    }

    Interval variable(const Expr& e) {
        const Variable* v = e.as<Variable>();
        Type t = e.type().element_of();
        auto l = lets.find(v->name);
        if (l != lets.end() && !l->second.empty()) return l->second.back().interval;
        auto it = scope.find(v->name);
        if (it != scope.end()) return normalized(it->second, t);
        return e.type().is_scalar() ? Interval::single_point(e) : opaque(t);
    }

    // Anything of type t.
    Interval opaque(Type t) {
        if (!is_int(t) || t.is_handle()) return Interval::everything();
        return from_constant(ConstantInterval::of_type(t), t);
    }

    // ---- Dispatch ----

    Interval compute(const Expr& e) {
        const Type t = e.type().element_of();
        switch (e.get()->kind) {
            case IRKind::IntImm:
            case IRKind::UIntImm:
            case IRKind::FloatImm: return Interval::single_point(e);
            case IRKind::Variable: return variable(e);
            case IRKind::Cast: return cast(e.as<Cast>());
            case IRKind::Add: return sum(e, arithmetic<Add>(e));
            case IRKind::Sub: return sum(e, arithmetic<Sub>(e));
            case IRKind::Mul: return arithmetic<Mul>(e);
            case IRKind::Div: return arithmetic<Div>(e);
            case IRKind::Mod: return arithmetic<Mod>(e);
            case IRKind::Min: return arithmetic<Min>(e);
            case IRKind::Max: return arithmetic<Max>(e);
            case IRKind::EQ:
            case IRKind::NE:
            case IRKind::LT:
            case IRKind::LE:
            case IRKind::GT:
            case IRKind::GE:
            case IRKind::And:
            case IRKind::Or:
            case IRKind::Not: return logical(e);
            case IRKind::Select: return select(e);
            case IRKind::Broadcast: return bounds(e.as<Broadcast>()->value);
            case IRKind::Ramp: return ramp(e.as<Ramp>());
            case IRKind::Let: return let(e.as<Let>());
            case IRKind::Call: return call(e);
            default: return opaque(t);  // strings, loads, reinterprets
        }
    }

    // ---- Arithmetic ----

    template <typename T>
    Interval arithmetic(const Expr& e) {
        const T* op = e.as<T>();
        Interval a = bounds(op->a), b = bounds(op->b);
        const Type t = e.type().element_of();
        if (e.type().is_scalar() && is_point(a) && is_point(b)) {
            if (a.min.same_as(op->a) && b.min.same_as(op->b)) return original_point(e);
            // Folding would wrap; the exact value, past the type's range, bounds nothing.
            auto ka = as_exact_int(a.min), kb = as_exact_int(b.min);
            if (ka && kb && assumes_no_overflow(t)) {
                return from_constant(
                    constant_op(e.get()->kind, ConstantInterval::point(*ka), ConstantInterval::point(*kb), t),
                    t);
            }
            return original_point(simplify_root(T::make(a.min, b.min)));
        }
        return apply(e.get()->kind, a, b, e.type().element_of());
    }

    // A sum that is not a single point: bounded also as a min or max with the other terms taken
    // inside, where they cancel (see sum_into_min_max), which forgets less.
    Interval sum(const Expr& e, const Interval& apart) {
        if (is_point(apart)) return apart;
        Expr distributed = sum_into_min_max(e);
        return distributed.defined() ? bounds(distributed) : apart;
    }

    // The interval of `a op b` for operands in a and b, of element type t.
    Interval apply(IRKind op, const Interval& raw_a, const Interval& raw_b, Type t) {
        const Interval a = cooked(raw_a), b = cooked(raw_b);
        if (is_int(t)) {
            auto all_constant = [](const Interval& i) { return as_exact_int(i.min) && as_exact_int(i.max); };
            if (!keeps_symbolic_ends(t) || (all_constant(a) && all_constant(b))) {
                return from_constant(constant_op(op, to_constant(a, t), to_constant(b, t), t), t);
            }
        }
        switch (op) {
            case IRKind::Add: return Interval(add(a.min, b.min), add(a.max, b.max));
            case IRKind::Sub: return Interval(sub(a.min, b.max), sub(a.max, b.min));
            case IRKind::Mul: return multiply(a, b, t);
            case IRKind::Div: return divide(a, b, t);
            case IRKind::Mod: return modulo(a, b, t);
            case IRKind::Min: return Interval(min_of_lower(a.min, b.min), min_of_upper(a.max, b.max));
            case IRKind::Max: return Interval(max_of_lower(a.min, b.min), max_of_upper(a.max, b.max));
            default: return Interval::everything();
        }
    }

    static ConstantInterval constant_op(IRKind op, const ConstantInterval& a, const ConstantInterval& b,
                                        Type t) {
        switch (op) {
            case IRKind::Add: return fit_to_type(a + b, t);
            case IRKind::Sub: return fit_to_type(a - b, t);
            case IRKind::Mul: return fit_to_type(a * b, t);
            case IRKind::Div: return fit_to_type(euclidean_div(a, b), t);
            case IRKind::Mod: return fit_to_type(euclidean_mod(a, b), t);
            case IRKind::Min: return range_min(a, b);
            case IRKind::Max: return range_max(a, b);
            default: return ConstantInterval::of_type(t);
        }
    }

    // Where symbolic ends are not possible, the constant range of integers, or nothing for floats.
    Interval constant_fallback(IRKind op, const Interval& a, const Interval& b, Type t) {
        if (!is_int(t)) return Interval::everything();
        return from_constant(constant_op(op, to_constant(a, t), to_constant(b, t), t), t);
    }

    // The sign of a constant point, if the interval is one.
    static std::optional<int> constant_sign(const Interval& i) {
        if (!is_point(i)) return std::nullopt;
        if (auto k = as_exact_int(i.min)) return *k > 0 ? 1 : *k < 0 ? -1 : 0;
        if (auto f = as_const_float(i.min); f && !std::isnan(*f)) return *f > 0 ? 1 : *f < 0 ? -1 : 0;
        return std::nullopt;
    }

    Interval scale(const Interval& a, const Expr& k, int sign, Type t) {
        if (sign == 0)
            return a.is_bounded() || is_int(t) ? Interval::single_point(make_zero(t))
                                               : Interval::everything();
        if (sign > 0) return Interval(mul(a.min, k), mul(a.max, k));
        return Interval(mul(a.max, k), mul(a.min, k));
    }

    // The extremes of a product (or quotient, by a divisor of one sign) are at the corners.
    Interval corners(const Interval& a, const Interval& b, Expr (*op)(const Expr&, const Expr&)) {
        if (!a.is_bounded() || !b.is_bounded()) return Interval::everything();
        Expr c[4] = {op(a.min, b.min), op(a.min, b.max), op(a.max, b.min), op(a.max, b.max)};
        for (const Expr& x : c) {
            if (!x.defined()) return Interval::everything();
        }
        return Interval(min_of_lower(min_of_lower(c[0], c[1]), min_of_lower(c[2], c[3])),
                        max_of_upper(max_of_upper(c[0], c[1]), max_of_upper(c[2], c[3])));
    }

    Interval multiply(const Interval& a, const Interval& b, Type t) {
        if (auto s = constant_sign(b)) return scale(a, b.min, *s, t);
        if (auto s = constant_sign(a)) return scale(b, a.min, *s, t);
        Interval r = corners(a, b, &interval_ends::mul);
        return r.is_bounded() ? r : constant_fallback(IRKind::Mul, a, b, t);
    }

    // Whether an interval has constant ends close enough together to be worth keeping over
    // symbolic ones (a range as wide as a quarter of int32 bounds nothing useful).
    static bool is_narrow(const Interval& i) {
        auto lo = i.min.defined() ? as_exact_int(i.min) : std::nullopt;
        auto hi = i.max.defined() ? as_exact_int(i.max) : std::nullopt;
        return lo && hi && *hi - *lo < (Int128(1) << 24);
    }

    // Whether an interval has an end that is not a constant.
    static bool is_symbolic(const Interval& i) {
        return (i.min.defined() && !as_exact_int(i.min)) || (i.max.defined() && !as_exact_int(i.max));
    }

    Interval divide(const Interval& a, const Interval& b, Type t) {
        if (auto s = constant_sign(b)) {
            if (*s == 0) return is_int(t) ? Interval::single_point(make_zero(t)) : Interval::everything();
            if (*s > 0) return Interval(div(a.min, b.min), div(a.max, b.min));
            return Interval(div(a.max, b.min), div(a.min, b.min));
        }
        if (!is_int(t)) return Interval::everything();
        const ConstantInterval divisor = to_constant(b, t);
        if (divisor.min > 0 || divisor.max < 0) {
            Interval r = corners(a, b, &interval_ends::div);
            if (r.is_bounded()) return r;
        }
        Interval r = constant_fallback(IRKind::Div, a, b, t);
        // A divisor of unknown sign (possibly zero), where constants bound the quotient poorly or
        // not at all: fused loops need these, y = fused / extent_of_x.
        if (!a.is_bounded() || !keeps_symbolic_ends(t) || is_narrow(r)) return r;
        if (is_point(b) && is_symbolic(b)) {
            // By one divisor, the quotient is monotonic in the dividend (rising for a positive
            // divisor, falling for a negative one, zero for zero): it lies between the quotients of
            // the dividend's ends.
            Expr lo = div(a.min, b.min), hi = div(a.max, b.min);
            if (lo.defined() && hi.defined()) return Interval(min_of_lower(lo, hi), max_of_upper(lo, hi));
        }
        // Whatever the divisor, a Euclidean quotient is no larger in magnitude than the dividend
        // (and zero for a zero divisor).
        const Expr zero = make_zero(t);
        Expr m = max_of_upper(a.max, sub(zero, a.min));
        Expr neg = sub(zero, m);
        if (m.defined() && neg.defined()) return Interval(neg, m);
        return r;
    }

    Interval modulo(const Interval& a, const Interval& b, Type t) {
        if (!is_int(t)) {
            // a - b * floor(a / b) lies between 0 and b (inclusive: rounding can reach b).
            auto s = constant_sign(b);
            if (s && *s > 0) return Interval(make_zero(t), b.min);
            if (s && *s < 0) return Interval(b.min, make_zero(t));
            return Interval::everything();
        }
        auto k = is_point(b) ? as_exact_int(b.min) : std::nullopt;
        if (k && *k != 0) {
            const Int128 m = *k < 0 ? -*k : *k;
            const ConstantInterval ca = to_constant(a, t);
            if (ca.min >= 0 && ca.max < m) return a;  // the remainder is a itself
        }
        Interval r = constant_fallback(IRKind::Mod, a, b, t);
        if (b.is_bounded() && keeps_symbolic_ends(t) && is_symbolic(b) && !is_narrow(r)) {
            // A Euclidean remainder lies in [0, |b| - 1] (0 for b = 0), and |b| is at most
            // max(b.max, -b.min). Fused loops need this: x = fused % extent_of_x.
            const Expr zero = make_zero(t), one = make_one(t);
            Expr hi = sub(max_of_upper(max_of_upper(b.max, sub(zero, b.min)), one), one);
            if (hi.defined()) return Interval(zero, hi);
        }
        return r;
    }

    // ---- Other nodes ----

    Interval cast(const Cast* op) {
        const Type to = op->type.element_of(), from = op->value.type().element_of();
        Interval v = bounds(op->value);
        if (op->type.is_scalar() && is_point(v)) {
            if (v.min.same_as(op->value)) return original_point(handle_of(op));
            return original_point(simplify_root(Cast::make(to, v.min)));
        }
        v = cooked(v);
        auto cast_ends = [&]() {
            return Interval(v.min.defined() ? simplify_root(Cast::make(to, v.min)) : Expr(),
                            v.max.defined() ? simplify_root(Cast::make(to, v.max)) : Expr());
        };
        // Conversions to floats, and between integers that cannot wrap, are monotonic.
        if (to.is_float() && (from.is_float() || is_int(from))) return cast_ends();
        if (!is_int(to)) return Interval::everything();
        if (is_int(from) && keeps_symbolic_ends(to) && to.can_represent(from)) return cast_ends();
        if (is_int(from)) {
            const ConstantInterval r = to_constant(v, from), all = ConstantInterval::of_type(to);
            return from_constant(r.min >= all.min && r.max <= all.max ? r : all, to);
        }
        return float_to_int(v, to);
    }

    // Truncation toward zero is monotonic where it is defined, i.e. within the integer's range.
    Interval float_to_int(const Interval& v, Type to) {
        auto lo = as_const_float(v.min), hi = as_const_float(v.max);
        const ConstantInterval all = ConstantInterval::of_type(to);
        if (lo && hi && to.can_represent(std::trunc(*lo)) && to.can_represent(std::trunc(*hi))) {
            return from_constant(ConstantInterval{Int128(std::trunc(*lo)), Int128(std::trunc(*hi))}, to);
        }
        return from_constant(all, to);
    }

    Interval logical(const Expr& e) {
        auto r = constant_bounds(e, node_lookup);
        if (r && r->is_point()) return Interval::single_point(make_bool(r->min != 0, 1));
        if (e.type().is_scalar() && children_are_points(e)) return original_point(e);
        return Interval(const_false(), const_true());
    }

    // Whether a bool node's operands are single points that are the operands themselves (no
    // variable in scope): then the node is one value, itself.
    bool children_are_points(const Expr& e) {
        auto same = [&](const Expr& x) {
            Interval i = bounds(x);
            return is_point(i) && i.min.same_as(x);
        };
        if (const Not* n = e.as<Not>()) return same(n->a);
        Expr a, b;
        return (operands<EQ>(e, a, b) || operands<NE>(e, a, b) || operands<LT>(e, a, b) ||
                operands<LE>(e, a, b) || operands<GT>(e, a, b) || operands<GE>(e, a, b) ||
                operands<And>(e, a, b) || operands<Or>(e, a, b)) &&
               same(a) && same(b);
    }

    template <typename T>
    static bool operands(const Expr& e, Expr& a, Expr& b) {
        const T* op = e.as<T>();
        if (!op) return false;
        a = op->a;
        b = op->b;
        return true;
    }

    Interval select(const Expr& e) {
        const Select* op = e.as<Select>();
        Interval c = bounds(op->condition);
        if (is_point(c) && is_const_one(c.min)) return bounds(op->true_value);
        if (is_point(c) && is_const_zero(c.min)) return bounds(op->false_value);
        Interval a = bounds(op->true_value), b = bounds(op->false_value);
        if (e.type().is_scalar() && is_point(c) && is_point(a) && is_point(b)) {
            if (c.min.same_as(op->condition) && a.min.same_as(op->true_value) &&
                b.min.same_as(op->false_value)) {
                return original_point(e);
            }
            return original_point(simplify_root(Select::make(c.min, a.min, b.min)));
        }
        return hull(a, b, e.type().element_of());
    }

    Interval hull(const Interval& a, const Interval& b, Type t) {
        if (is_int(t) && !keeps_symbolic_ends(t)) {
            return from_constant(range_union(to_constant(a, t), to_constant(b, t)), t);
        }
        return interval_union(cooked(a), cooked(b));
    }

    Interval ramp(const Ramp* op) {
        const Type t = op->base.type();
        Interval base = bounds(op->base), stride = bounds(op->stride);
        Interval steps = Interval::single_point(make_const(t, int64_t(op->lanes - 1)));
        Interval last = apply(IRKind::Add, base, apply(IRKind::Mul, stride, steps, t), t);
        return hull(base, last, t);
    }

    Interval let(const Let* op) {
        std::vector<std::string> names;
        const Let* l = op;
        while (true) {
            Interval v = cooked(bounds(l->value));
            Type t = l->value.type().element_of();
            std::optional<ConstantInterval> c;
            if (is_int(t)) c = to_constant(v, t);
            lets[l->name].push_back({v, c});
            names.push_back(l->name);
            shared.clear();  // cached results may have used an outer variable of this name
            const Let* next = l->body.as<Let>();
            if (!next) break;
            l = next;
        }
        Interval r = bounds(l->body);
        for (auto it = names.rbegin(); it != names.rend(); ++it) lets[*it].pop_back();
        shared.clear();
        return r;
    }

    static bool is_pure(const Call* op) {
        if (op->call_type == CallType::Extern) return true;
        if (op->call_type != CallType::Intrinsic) return false;  // Func and image values are unknown
        return op->intrinsic != Intrinsic::Print && op->intrinsic != Intrinsic::PrintWhen &&
               op->intrinsic != Intrinsic::ErrorMessage && op->intrinsic != Intrinsic::Require;
    }

    Interval call(const Expr& e) {
        const Call* op = e.as<Call>();
        const Type t = e.type().element_of();
        if (is_likely(e)) {
            return bounds(op->args[0]);
        }
        if (is_pure(op) && e.type().is_scalar()) {
            if (Expr point = pure_call_point(op); point.defined()) {
                return original_point(point);
            }
        }
        if (!is_int(t)) return Interval::everything();
        auto r = constant_bounds(e, node_lookup);
        return r ? from_constant(*r, t) : opaque(t);
    }

    // A pure call of single points is a single point.
    Expr pure_call_point(const Call* op) {
        std::vector<Expr> args;
        bool changed = false;
        for (const Expr& a : op->args) {
            Interval i = bounds(a);
            if (!is_point(i)) return Expr();
            args.push_back(i.min);
            changed = changed || !i.min.same_as(a);
        }
        if (!changed) return handle_of(op);
        auto copy = std::make_shared<Call>(*op);
        copy->args = std::move(args);
        return simplify_root(Expr(std::shared_ptr<const ExprNode>(std::move(copy))));
    }

    // An end past the size limit would cost every pass after it. Ends are trees: the corners of a
    // product, or a let read several times, repeat the same subtrees, so the end is first written
    // with each of those computed once; where that is still too large, it is replaced by a constant
    // bound (integers) or dropped.
    Interval limit_size(const Expr& e, Interval r) {
        const bool big_min = r.min.defined() && !r.is_single_point() && larger_than(r.min, options.max_size);
        const bool big_max = r.max.defined() && !r.is_single_point() && larger_than(r.max, options.max_size);
        if (!big_min && !big_max) return r;
        if (big_min) r.min = with_shared_subtrees(r.min);
        if (big_max) r.max = with_shared_subtrees(r.max);
        const bool dropped_min = big_min && !r.min.defined(), dropped_max = big_max && !r.max.defined();
        if (!dropped_min && !dropped_max) return r;
        const Type t = e.type().element_of();
        if (is_int(t)) {
            if (auto c = constant_bounds(e, node_lookup)) {
                Interval fallback = from_constant(*c, t);
                if (dropped_min) r.min = fallback.min;
                if (dropped_max) r.max = fallback.max;
            }
        }
        return r;
    }

    // The end with its repeated subtrees computed once, if that fits the size limit.
    Expr with_shared_subtrees(const Expr& end) const {
        Expr shared = eliminate_common_subexpressions(end);
        return larger_than(shared, options.max_size) ? Expr() : shared;
    }
};

}  // namespace

Interval bounds_of_expr(const Expr& e, const std::map<std::string, Interval>& scope,
                        const BoundsOptions& options) {
    if (!e.defined()) return Interval::everything();
    return BoundsOf(scope, options).simplified_bounds(e);
}

Interval bounds_of_expr(const Expr& e, const std::map<std::string, Interval>& scope) {
    return bounds_of_expr(e, scope, BoundsOptions());
}

}  // namespace tessera::ir
