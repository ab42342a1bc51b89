// The simplifier's rules for expressions: constant folding, linear forms, division by constants,
// min/max, comparisons, logic and selects.

#include <cmath>
#include <limits>

#include "ir/const_fold.h"
#include "ir/equal.h"
#include "ir/ir_util.h"
#include "ir/linear_form.h"
#include "ir/simplifier.h"
#include "util/error_stream.h"

namespace tessera::ir {
namespace {

Expr make_binary(IRKind kind, const Expr& a, const Expr& b) {
    switch (kind) {
#define TESSERA_MAKE(T) \
    case IRKind::T: return T::make(a, b);
        TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_MAKE)
#undef TESSERA_MAKE
        default: TESSERA_INTERNAL_ERROR << "make_binary of a non-binary node";
    }
    return Expr();
}

// The original node where its operands did not change, so that unchanged trees stay shared.
Expr rebuild(const Expr& original, const Expr& a, const Expr& b) {
    switch (original.get()->kind) {
#define TESSERA_REBUILD(T)                                                      \
    case IRKind::T: {                                                           \
        const T* op = original.as<T>();                                         \
        return a.same_as(op->a) && b.same_as(op->b) ? original : T::make(a, b); \
    }
        TESSERA_FOR_EACH_BINARY_EXPR(TESSERA_REBUILD)
#undef TESSERA_REBUILD
        default: return original;
    }
}

Expr make_ramp(const Expr& base, const Expr& stride, int lanes) {
    return is_const_zero(stride) ? Broadcast::make(base, lanes) : Ramp::make(base, stride, lanes);
}

// Whether `x op y` holds for every x in a and y in b (true), for none (false), or neither.
std::optional<bool> decide(IRKind op, const ConstantInterval& a, const ConstantInterval& b) {
    const bool same_point = a.is_point() && b.is_point() && a.min == b.min;
    const bool disjoint = a.max < b.min || b.max < a.min;
    auto answer = [](bool surely, bool never) -> std::optional<bool> {
        if (surely) return true;
        if (never) return false;
        return std::nullopt;
    };
    switch (op) {
        case IRKind::LT: return answer(a.max < b.min, a.min >= b.max);
        case IRKind::LE: return answer(a.max <= b.min, a.min > b.max);
        case IRKind::GT: return answer(a.min > b.max, a.max <= b.min);
        case IRKind::GE: return answer(a.min >= b.max, a.max < b.min);
        case IRKind::EQ: return answer(same_point, disjoint);
        case IRKind::NE: return answer(disjoint, same_point);
        default: return std::nullopt;
    }
}

// The comparison of kind op on its negation's terms: !(a < b) is b <= a, and so on.
std::optional<IRKind> negated_comparison(IRKind op) {
    switch (op) {
        case IRKind::LT: return IRKind::GE;
        case IRKind::LE: return IRKind::GT;
        case IRKind::GT: return IRKind::LE;
        case IRKind::GE: return IRKind::LT;
        case IRKind::EQ: return IRKind::NE;
        case IRKind::NE: return IRKind::EQ;
        default: return std::nullopt;
    }
}

template <typename T>
bool operands_of(const Expr& e, IRKind& kind, Expr& a, Expr& b) {
    const T* op = e.as<T>();
    if (!op) return false;
    kind = IRKind(T::static_kind);
    a = op->a;
    b = op->b;
    return true;
}

// The operands of a comparison node, with its kind.
bool comparison_operands(const Expr& e, IRKind& kind, Expr& a, Expr& b) {
    return operands_of<EQ>(e, kind, a, b) || operands_of<NE>(e, kind, a, b) ||
           operands_of<LT>(e, kind, a, b) || operands_of<LE>(e, kind, a, b) ||
           operands_of<GT>(e, kind, a, b) || operands_of<GE>(e, kind, a, b);
}

bool is_positive_zero(const Expr& e) {
    auto f = as_const_float(e);
    return f ? *f == 0 && !std::signbit(*f) : is_const_zero(e);
}

// c * (e % k) + c * k * (e / k) is c * e: Euclidean division leaves e = (e / k) * k + e % k for
// every k != 0, in the integers and so modulo 2^bits. An index into storage whose innermost
// dimension is a coordinate's remainder and the next its quotient (a layout interleaved by k) then
// reads the coordinate itself: dense, where it was a gather.
void join_quotients_and_remainders(LinearForm& f) {
    std::vector<std::pair<Expr, Expr>> pairs;  // (remainder term, quotient term)
    for (const auto& [term, c] : f.terms) {
        const Mod* mod = term.as<Mod>();
        const auto k = mod ? as_exact_int(mod->b) : std::nullopt;
        if (!k || *k == 0) continue;
        const Expr quotient = Div::make(mod->a, mod->b);
        auto q = f.terms.find(quotient);
        if (q != f.terms.end() && Int128(q->second) == Int128(c) * *k) pairs.emplace_back(term, q->first);
    }
    for (const auto& [remainder, quotient] : pairs) {
        const int64_t c = f.terms.at(remainder);
        f.terms.erase(remainder);
        f.terms.erase(quotient);
        f.add(linear_form_of(remainder.as<Mod>()->a), c);
    }
}

}  // namespace

// ---- Memoization of shared subtrees ----

Expr Simplifier::mutate(const Expr& e) {
    if (shallow) {
        if (root_done) return e;
        root_done = true;
    }
    if (!e.defined() || e.node().use_count() <= 1) return Mutator::mutate(e);
    auto it = memo.find(e.get());
    if (it != memo.end()) return it->second.second;
    Expr r = Mutator::mutate(e);
    memo.emplace(e.get(), std::make_pair(e, r));
    return r;
}

// ---- Leaves and conversions ----

Expr Simplifier::visit(const Variable* op) {
    auto it = replacements.find(op->name);
    if (it != replacements.end() && it->second.defined()) return it->second;
    return handle_of(op);
}

Expr Simplifier::visit(const Cast* op) {
    Expr v = mutate(op->value);
    if (Expr f = fold_cast(op->type, v); f.defined()) return f;
    if (v.type() == op->type) return v;
    if (const Broadcast* b = v.as<Broadcast>()) {
        return Broadcast::make(mutate(Cast::make(op->type.element_of(), b->value)), b->lanes);
    }
    // When the inner cast keeps every value, the outer one sees the original value.
    if (const Cast* inner = v.as<Cast>(); inner && inner->type.can_represent(inner->value.type())) {
        return inner->value.type() == op->type ? inner->value : Cast::make(op->type, inner->value);
    }
    return v.same_as(op->value) ? handle_of(op) : Cast::make(op->type, v);
}

Expr Simplifier::visit(const Reinterpret* op) {
    Expr v = mutate(op->value);
    if (Expr f = fold_reinterpret(op->type, v); f.defined()) return f;
    if (v.type() == op->type) return v;
    return v.same_as(op->value) ? handle_of(op) : Reinterpret::make(op->type, v);
}

Expr Simplifier::visit(const Ramp* op) {
    Expr base = mutate(op->base), stride = mutate(op->stride);
    if (is_const_zero(stride)) return Broadcast::make(base, op->lanes);
    if (base.same_as(op->base) && stride.same_as(op->stride)) return handle_of(op);
    return Ramp::make(base, stride, op->lanes);
}

Expr Simplifier::visit(const Call* op) {
    std::vector<Expr> args;
    bool changed = false;
    // The checked mode requires every coordinate to lie inside a region whose ends are large
    // expressions of the loops around it; proving that from symbolic intervals can take the
    // simplifier very long, and a requirement left unproved only costs a comparison at run time.
    const bool requirement = op->call_type == CallType::Intrinsic && op->intrinsic == Intrinsic::Require;
    for (const Expr& a : op->args) {
        const bool condition = requirement && args.empty();
        in_requirement += condition;
        args.push_back(mutate(a));
        in_requirement -= condition;
        changed = changed || !args.back().same_as(a);
    }
    if (Expr f = fold_intrinsic(op, args); f.defined()) return f;
    // A constant is what it is likely to be.
    if (is_likely(handle_of(op)) && is_const(args[0])) return args[0];
    // A requirement proved to hold checks nothing.
    if (requirement && is_const(args[0], 1)) return args[1];
    if (!changed) return handle_of(op);
    auto copy = std::make_shared<Call>(*op);
    copy->args = std::move(args);
    return Expr(std::shared_ptr<const ExprNode>(std::move(copy)));
}

// ---- Proofs ----

std::optional<ConstantInterval> Simplifier::proven_range(const Expr& e, Ends ends) {
    const Type t = e.type().element_of();
    if (!t.is_int_or_uint()) return std::nullopt;
    if (auto k = as_exact_int(e)) return ConstantInterval::point(*k);
    if (!use_intervals) return std::nullopt;
    if (!assumes_no_overflow(t) || !e.type().is_scalar()) return constant_bounds(e, constants);
    LinearForm f = linear_form_of(e);
    ConstantInterval r = f.exact ? form_range(f) : *constant_bounds(e, constants);
    // Symbolic intervals (a loop over [0, n - 1]) prove what constants cannot (x <= n - 1).
    if (in_requirement == 0 && mentions_symbolic_interval(e)) refine_range(r, e, ends);
    return r;
}

void Simplifier::refine_range(ConstantInterval& r, const Expr& e, Ends ends) {
    if (Expr lo = eliminate_scope_variables(e, true); lo.defined()) {
        LinearForm f = linear_form_of(lo);
        if (f.exact) r.min = std::max(r.min, form_range(f).min);
    }
    if (ends == Ends::lower) return;
    if (Expr hi = eliminate_scope_variables(e, false); hi.defined()) {
        LinearForm f = linear_form_of(hi);
        if (f.exact) r.max = std::min(r.max, form_range(f).max);
    }
}

// The range of sum(c * term) + k, summed exactly: the sum is the compiler's, not the program's, so
// it must not wrap (constant_bounds does not clamp either).
ConstantInterval Simplifier::form_range(const LinearForm& f) {
    ConstantInterval sum = ConstantInterval::point(f.constant);
    for (const auto& [term, c] : f.terms) {
        std::optional<ConstantInterval> r = use_intervals ? constant_bounds(term, constants) : std::nullopt;
        sum = sum + (r ? *r : ConstantInterval{-kUnboundedEnd, kUnboundedEnd}) * ConstantInterval::point(c);
    }
    return sum;
}

// The exact value of b - a lies in the result. For Int(32)/Int(64) the difference is taken as a
// linear form, which cancels what the sides share; otherwise (wrapping types, or a difference that
// does not fit the type, like x - INT_MIN) the sides' ranges are subtracted.
std::optional<ConstantInterval> Simplifier::difference_range(const Expr& a, const Expr& b, Ends ends) {
    const Type t = a.type();
    if (!t.is_int_or_uint() || t.is_bool() || !t.is_scalar()) return std::nullopt;
    if (assumes_no_overflow(t)) {
        if (std::optional<LinearForm> d = exact_difference(b, a)) {
            if (d->is_constant()) return ConstantInterval::point(d->constant);
            return proven_range(d->to_expr(), ends);
        }
    }
    // The lower end of b - a is min(b) - max(a): it needs only the lower end of b.
    auto ra = proven_range(a), rb = proven_range(b, ends);
    if (!ra || !rb) return std::nullopt;
    return *rb - *ra;
}

bool Simplifier::prove_le(const Expr& a, const Expr& b) {
    auto d = difference_range(a, b, Ends::lower);
    return d && d->min >= 0;
}

// ---- Arithmetic ----

Expr Simplifier::visit(const Add* op) {
    if (has_linear_form(op->type)) return linear(handle_of(op));
    return arithmetic(handle_of(op), IRKind::Add, mutate(op->a), mutate(op->b));
}

Expr Simplifier::visit(const Sub* op) {
    if (has_linear_form(op->type)) return linear(handle_of(op));
    return arithmetic(handle_of(op), IRKind::Sub, mutate(op->a), mutate(op->b));
}

Expr Simplifier::visit(const Mul* op) {
    if (has_linear_form(op->type)) return linear(handle_of(op));
    return arithmetic(handle_of(op), IRKind::Mul, mutate(op->a), mutate(op->b));
}

Expr Simplifier::linear(const Expr& original) {
    LinearForm f = gather_linear_form(original, [this](const Expr& x) { return mutate(x); });
    if (!f.exact) return as_written(original);
    join_quotients_and_remainders(f);
    Expr r = f.to_expr();
    return equal(r, original) ? original : r;
}

// A sum whose linear form would fold constants past the type's range: simplified operand by
// operand, as written.
Expr Simplifier::as_written(const Expr& original) {
    IRKind kind = original.get()->kind;
    Expr a, b;
    if (const Add* op = original.as<Add>()) a = op->a, b = op->b;
    if (const Sub* op = original.as<Sub>()) a = op->a, b = op->b;
    if (const Mul* op = original.as<Mul>()) a = op->a, b = op->b;
    return arithmetic(original, kind, mutate(a), mutate(b));
}

// Floats and vectors: folding and exact identities only. (x + 0.0 is not x when x is -0.0.)
Expr Simplifier::arithmetic(const Expr& original, IRKind kind, const Expr& a, const Expr& b) {
    if (Expr f = fold_binary(kind, a, b); f.defined()) return f;
    if (Expr v = vector_arithmetic(kind, a, b); v.defined()) return v;
    const bool integer = a.type().is_int_or_uint();
    if (kind == IRKind::Mul) {
        if (is_const_one(b)) return a;
        if (is_const_one(a)) return b;
        if (integer && (is_const_zero(a) || is_const_zero(b))) return make_zero(a.type());
    }
    if (kind == IRKind::Add && integer) {
        if (is_const_zero(b)) return a;
        if (is_const_zero(a)) return b;
    }
    if (kind == IRKind::Sub && is_positive_zero(b)) return a;
    return rebuild(original, a, b);
}

// Elementwise operations of broadcasts are broadcasts; integer ramps combine with ramps and
// broadcasts into ramps (exact in wrapping arithmetic too).
Expr Simplifier::vector_arithmetic(IRKind kind, const Expr& a, const Expr& b) {
    if (!a.type().is_vector()) return Expr();
    const Broadcast *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
    const int lanes = a.type().lanes();
    if (ba && bb) return Broadcast::make(mutate(make_binary(kind, ba->value, bb->value)), lanes);
    if (!a.type().is_int_or_uint()) return Expr();
    const Ramp *ra = a.as<Ramp>(), *rb = b.as<Ramp>();
    auto s = [this](const Expr& x) { return mutate(x); };
    switch (kind) {
        case IRKind::Add:
            if (ra && rb)
                return make_ramp(s(Add::make(ra->base, rb->base)), s(Add::make(ra->stride, rb->stride)),
                                 lanes);
            if (ra && bb) return make_ramp(s(Add::make(ra->base, bb->value)), ra->stride, lanes);
            if (ba && rb) return make_ramp(s(Add::make(ba->value, rb->base)), rb->stride, lanes);
            return Expr();
        case IRKind::Sub:
            if (ra && rb)
                return make_ramp(s(Sub::make(ra->base, rb->base)), s(Sub::make(ra->stride, rb->stride)),
                                 lanes);
            if (ra && bb) return make_ramp(s(Sub::make(ra->base, bb->value)), ra->stride, lanes);
            if (ba && rb) {
                return make_ramp(s(Sub::make(ba->value, rb->base)),
                                 s(Sub::make(make_zero(rb->stride.type()), rb->stride)), lanes);
            }
            return Expr();
        case IRKind::Mul:
            if (ra && bb)
                return make_ramp(s(Mul::make(ra->base, bb->value)), s(Mul::make(ra->stride, bb->value)),
                                 lanes);
            if (ba && rb)
                return make_ramp(s(Mul::make(ba->value, rb->base)), s(Mul::make(ba->value, rb->stride)),
                                 lanes);
            return Expr();
        default: return Expr();
    }
}

// ---- Division and modulo ----

Expr Simplifier::visit(const Div* op) {
    return div_mod(handle_of(op), IRKind::Div, mutate(op->a), mutate(op->b));
}
Expr Simplifier::visit(const Mod* op) {
    return div_mod(handle_of(op), IRKind::Mod, mutate(op->a), mutate(op->b));
}

Expr Simplifier::div_mod(const Expr& original, IRKind kind, const Expr& a, const Expr& b) {
    if (Expr f = fold_binary(kind, a, b); f.defined()) return f;
    if (Expr v = vector_arithmetic(kind, a, b); v.defined()) return v;
    const Type t = a.type();
    const bool is_div = kind == IRKind::Div;
    if (t.is_float()) return is_div && is_const_one(b) ? a : rebuild(original, a, b);
    if (!t.is_int_or_uint()) return rebuild(original, a, b);
    auto k = as_exact_int(b);
    // Zero divisors and zero dividends give zero; x / 1 is x and x % 1 is 0.
    if ((k && *k == 0) || is_const_zero(a)) return make_zero(t);
    if (k && *k == 1) return is_div ? a : make_zero(t);
    if (k && *k == -1 && t.is_int()) return is_div ? mutate(Sub::make(make_zero(t), a)) : make_zero(t);
    if (k && t.is_scalar()) {
        if (Expr r = div_mod_by_constant(kind, a, *k); r.defined()) return r;
    }
    if (k && t.is_vector()) {
        if (Expr r = div_mod_of_aligned_ramp(kind, a, *k); r.defined()) return r;
    }
    return rebuild(original, a, b);
}

// A ramp whose lanes all lie in one block of k (its base is known to be a multiple of k plus r, and
// r plus the ramp's span stays below k): every lane has the base's quotient, and the remainders are
// a ramp from r. This is a tile of a packed layout read with one dense load.
Expr Simplifier::div_mod_of_aligned_ramp(IRKind kind, const Expr& a, Int128 k) {
    const Ramp* ramp = a.as<Ramp>();
    auto stride = ramp ? as_exact_int(ramp->stride) : std::nullopt;
    if (!stride || k <= 0 || !assumes_no_overflow(a.type().element_of())) return Expr();
    const ModulusRemainder base = modulus_remainder(ramp->base, scope);
    if (Int128(base.modulus) % k != 0) return Expr();
    const Int128 first = euclidean_mod(base.remainder, k), last = first + *stride * (ramp->lanes - 1);
    if (last < 0 || last >= k) return Expr();
    const Expr divisor = make_const(ramp->base.type(), int64_t(k));
    if (kind == IRKind::Div) return Broadcast::make(mutate(Div::make(ramp->base, divisor)), ramp->lanes);
    return make_ramp(make_const(ramp->base.type(), int64_t(first)), ramp->stride, ramp->lanes);
}

Expr Simplifier::div_mod_by_constant(IRKind kind, const Expr& a, Int128 k) {
    const Type t = a.type();
    const bool is_div = kind == IRKind::Div;
    // A dividend known to be a multiple of k plus a constant: a constant remainder.
    if (!is_div && k > 0 && assumes_no_overflow(t)) {
        const ModulusRemainder m = modulus_remainder(a, scope);
        if (Int128(m.modulus) % k == 0) return make_const(t, int64_t(euclidean_mod(m.remainder, k)));
    }
    // A dividend within one quotient's worth of values: a constant quotient.
    if (auto r = proven_range(a)) {
        const Int128 q = euclidean_div(r->min, k);
        const ConstantInterval all = ConstantInterval::of_type(t);
        if (q == euclidean_div(r->max, k) && all.contains(q)) {
            if (is_div) return make_const(t, int64_t(q));
            if (q == 0) return a;
            // a - q*k, with q*k a constant of the type (wrapping types may wrap it: the ring is exact).
            if (!assumes_no_overflow(t) || all.contains(q * k))
                return mutate(Sub::make(a, make_const(t, int64_t(q * k))));
        }
    }
    // (x / c1) / c2 is x / (c1 * c2), and (x % c1) % c2 is x % c2 when c2 divides c1 (positive c's).
    if (k > 0 && is_div) {
        if (const Div* inner = a.as<Div>()) {
            auto k1 = as_exact_int(inner->b);
            if (k1 && *k1 > 0 && ConstantInterval::of_type(t).contains(*k1 * k)) {
                return div_mod(Div::make(inner->a, make_const(t, int64_t(*k1 * k))), IRKind::Div, inner->a,
                               make_const(t, int64_t(*k1 * k)));
            }
        }
    }
    if (k > 0 && !is_div) {
        if (const Mod* inner = a.as<Mod>()) {
            auto k1 = as_exact_int(inner->b);
            if (k1 && *k1 > 0 && *k1 % k == 0)
                return div_mod(Mod::make(inner->a, make_const(t, int64_t(k))), kind, inner->a,
                               make_const(t, int64_t(k)));
        }
    }
    return split_multiples(kind, a, k);
}

// (k*m + r) / k is m + r / k and (k*m + r) % k is r % k, for Euclidean division by any k != 0, in
// exact arithmetic: only for types assumed not to overflow.
Expr Simplifier::split_multiples(IRKind kind, const Expr& a, Int128 k) {
    const Type t = a.type();
    if (!assumes_no_overflow(t)) return Expr();
    LinearForm f = linear_form_of(a), multiple(t), rest(t);
    if (!f.exact) return Expr();
    for (const auto& [term, c] : f.terms) {
        if (Int128(c) % k == 0)
            multiple.add_term(term, int64_t(Int128(c) / k));
        else
            rest.add_term(term, c);
    }
    if (multiple.terms.empty()) return Expr();
    multiple.add_constant(int64_t(euclidean_div(f.constant, k)));
    rest.add_constant(int64_t(euclidean_mod(f.constant, k)));
    // r, a part of a sum that does not overflow, might itself: only when it is proved to fit.
    const ConstantInterval all = ConstantInterval::of_type(t), r = form_range(rest);
    if (!rest.is_constant() && (r.min < all.min || r.max > all.max)) return Expr();
    const Expr divisor = make_const(t, int64_t(k)), remainder = rest.to_expr();
    if (kind == IRKind::Mod) return div_mod(Mod::make(remainder, divisor), kind, remainder, divisor);
    multiple.add(linear_form_of(div_mod(Div::make(remainder, divisor), kind, remainder, divisor)), 1);
    return multiple.to_expr();
}

// ---- Min and max ----

Expr Simplifier::visit(const Min* op) { return min_max(handle_of(op), true, mutate(op->a), mutate(op->b)); }
Expr Simplifier::visit(const Max* op) { return min_max(handle_of(op), false, mutate(op->a), mutate(op->b)); }

Expr Simplifier::min_max(const Expr& original, bool is_min, const Expr& a0, const Expr& b0) {
    const IRKind kind = is_min ? IRKind::Min : IRKind::Max;
    if (Expr f = fold_binary(kind, a0, b0); f.defined()) return f;
    if (Expr v = vector_arithmetic(kind, a0, b0); v.defined()) return v;
    if (equal(a0, b0)) return a0;
    const Type t = a0.type();
    if (!t.is_int_or_uint() || t.is_vector()) return rebuild(original, a0, b0);
    // Constants go last: min(x, 3), never min(3, x).
    const bool swap = is_const(a0) && !is_const(b0);
    const Expr& a = swap ? b0 : a0;
    const Expr& b = swap ? a0 : b0;
    // The operand that wins whatever the other's value; a likely() mark is no longer of use then.
    if (auto d = difference_range(without_likely(a), without_likely(b))) {
        if (d->min >= 0) return without_likely(is_min ? a : b);  // a <= b
        if (d->max <= 0) return without_likely(is_min ? b : a);  // b <= a
    }
    if (Expr n = nested_min_max(is_min, a, b); n.defined()) return n;
    // Division by a positive constant keeps order: min(x / k, y / k) is min(x, y) / k.
    const Div *da = a.as<Div>(), *db = b.as<Div>();
    if (da && db && assumes_no_overflow(t) && equal(da->b, db->b)) {
        if (auto k = as_exact_int(da->b); k && *k > 0) {
            const Expr inner = min_max(make_binary(kind, da->a, db->a), is_min, da->a, db->a);
            return div_mod(Div::make(inner, da->b), IRKind::Div, inner, da->b);
        }
    }
    return rebuild(original, a, b);
}

// min(min(x, y), z): drop z when min(x, y) <= z, or drop the operand z beats; and absorption:
// min(max(x, y), x) is x. Max likewise.
Expr Simplifier::nested_min_max(bool is_min, const Expr& a, const Expr& b) {
    // beats(x, y): the operation of x and y is x.
    auto beats = [&](const Expr& x, const Expr& y) { return is_min ? prove_le(x, y) : prove_le(y, x); };
    auto same_kind = [&](const Expr& e, Expr& p, Expr& q) {
        if (const Min* m = e.as<Min>(); m && is_min) return p = m->a, q = m->b, true;
        if (const Max* m = e.as<Max>(); m && !is_min) return p = m->a, q = m->b, true;
        return false;
    };
    auto other_kind = [&](const Expr& e, Expr& p, Expr& q) {
        if (const Max* m = e.as<Max>(); m && is_min) return p = m->a, q = m->b, true;
        if (const Min* m = e.as<Min>(); m && !is_min) return p = m->a, q = m->b, true;
        return false;
    };
    for (int side = 0; side < 2; side++) {
        const Expr& outer = side == 0 ? a : b;
        const Expr& other = side == 0 ? b : a;
        Expr p, q;
        if (same_kind(outer, p, q)) {
            if (equal(p, other) || equal(q, other) || beats(q, other) || beats(p, other)) return outer;
            const IRKind kind = is_min ? IRKind::Min : IRKind::Max;
            if (beats(other, q)) return min_max(make_binary(kind, p, other), is_min, p, other);
            if (beats(other, p)) return min_max(make_binary(kind, q, other), is_min, q, other);
        }
        if (other_kind(outer, p, q) && (equal(p, other) || equal(q, other))) return other;
    }
    return Expr();
}

// ---- Comparisons and logic ----

#define TESSERA_COMPARISON(T)                                                      \
    Expr Simplifier::visit(const T* op) {                                          \
        return comparison(handle_of(op), IRKind::T, mutate(op->a), mutate(op->b)); \
    }
TESSERA_COMPARISON(EQ)
TESSERA_COMPARISON(NE)
TESSERA_COMPARISON(LT)
TESSERA_COMPARISON(LE)
TESSERA_COMPARISON(GT)
TESSERA_COMPARISON(GE)
#undef TESSERA_COMPARISON

Expr Simplifier::comparison(const Expr& original, IRKind kind, const Expr& a, const Expr& b) {
    if (Expr f = fold_binary(kind, a, b); f.defined()) return f;
    if (Expr v = vector_arithmetic(kind, a, b); v.defined()) return v;
    const Type t = a.type();
    // Floats stay as they are: x == x is false for NaN.
    if (!t.is_int_or_uint() || t.is_vector()) return rebuild(original, a, b);
    if (equal(a, b)) return make_bool(kind == IRKind::EQ || kind == IRKind::LE || kind == IRKind::GE);
    if (Expr r = ordered_comparison(kind, a, b); r.defined()) return r;
    return rebuild(original, a, b);
}

// Integer comparisons decided by ranges, or with the terms both sides share cancelled.
Expr Simplifier::ordered_comparison(IRKind kind, const Expr& a, const Expr& b) {
    // a op b is 0 op (b - a), in exact arithmetic.
    if (auto d = difference_range(a, b)) {
        if (auto decided = decide(kind, ConstantInterval::point(0), *d)) return make_bool(*decided);
    }
    if (!assumes_no_overflow(a.type())) return Expr();
    return cancel_common_terms(kind, a, b);
}

// a op b as (a - c) op (b - c), where c is what a and b share with the same sign: x + 1 < x + y is
// 1 < y. Coefficients only shrink and no term moves to the other side (y - x <= x is not made
// y <= x*2). What remains of a sum could overflow where the sum did not (min(z, INT_MIN + 1) + (z +
// y) is not safely y + min(z, INT_MIN + 1)): both new sides must be proved to fit the type.
Expr Simplifier::cancel_common_terms(IRKind kind, const Expr& a, const Expr& b) {
    LinearForm fa = linear_form_of(a), fb = linear_form_of(b);
    if (!fa.exact || !fb.exact) return Expr();
    auto common_part = [](int64_t x, int64_t y) -> int64_t {
        if ((x > 0) != (y > 0) || x == 0 || y == 0) return 0;
        return x > 0 ? std::min(x, y) : std::max(x, y);
    };
    LinearForm n(a.type()), p(a.type());
    bool cancelled = false;
    for (const auto& [term, c] : fa.terms) {
        auto other = fb.terms.find(term);
        const int64_t common = other == fb.terms.end() ? 0 : common_part(c, other->second);
        cancelled = cancelled || common != 0;
        n.add_term(term, c - common);
    }
    for (const auto& [term, c] : fb.terms) {
        auto other = fa.terms.find(term);
        p.add_term(term, c - (other == fa.terms.end() ? 0 : common_part(other->second, c)));
    }
    if (!cancelled) return Expr();
    // The constants net out on one side or the other, whichever keeps both sides within the type.
    const ConstantInterval all = ConstantInterval::of_type(a.type());
    const Int128 net = Int128(fb.constant) - Int128(fa.constant);
    if (!all.contains(net) || !all.contains(-net)) return Expr();
    auto fits = [&](const LinearForm& f) {
        const ConstantInterval r = form_range(f);
        return r.min >= all.min && r.max <= all.max;
    };
    for (const bool constant_right : {true, false}) {
        LinearForm left = n, right = p;
        (constant_right ? right : left).add_constant(int64_t(constant_right ? net : -net));
        if (fits(left) && fits(right)) return make_binary(kind, left.to_expr(), right.to_expr());
    }
    return Expr();
}

Expr Simplifier::visit(const And* op) {
    Expr a = mutate(op->a), b = mutate(op->b);
    if (Expr f = fold_binary(IRKind::And, a, b); f.defined()) return f;
    const int lanes = op->type.lanes();
    if (is_const_zero(a) || is_const_zero(b)) return const_false(lanes);
    if (is_const_one(a)) return b;
    if (is_const_one(b)) return a;
    if (equal(a, b)) return a;
    if (equal(negation(a, Expr()), b)) return const_false(lanes);
    return rebuild(handle_of(op), a, b);
}

Expr Simplifier::visit(const Or* op) {
    Expr a = mutate(op->a), b = mutate(op->b);
    if (Expr f = fold_binary(IRKind::Or, a, b); f.defined()) return f;
    const int lanes = op->type.lanes();
    if (is_const_one(a) || is_const_one(b)) return const_true(lanes);
    if (is_const_zero(a)) return b;
    if (is_const_zero(b)) return a;
    if (equal(a, b)) return a;
    if (equal(negation(a, Expr()), b)) return const_true(lanes);
    return rebuild(handle_of(op), a, b);
}

Expr Simplifier::visit(const Not* op) {
    Expr a = mutate(op->a);
    return negation(a, a.same_as(op->a) ? handle_of(op) : Expr());
}

// !a for a simplified a; `original` is the node to return when nothing applies, if there is one.
Expr Simplifier::negation(const Expr& a, const Expr& original) {
    if (Expr f = fold_not(a); f.defined()) return f;
    if (const Broadcast* b = a.as<Broadcast>()) return Broadcast::make(negation(b->value, Expr()), b->lanes);
    if (const Not* n = a.as<Not>()) return n->a;
    IRKind kind;
    Expr x, y;
    // Integer comparisons negate exactly; float ones only == and != (!(x < y) is not x >= y for NaN).
    if (comparison_operands(a, kind, x, y) &&
        (x.type().is_int_or_uint() || kind == IRKind::EQ || kind == IRKind::NE)) {
        return make_binary(*negated_comparison(kind), x, y);
    }
    return original.defined() ? original : Not::make(a);
}

// ---- Select ----

Expr Simplifier::visit(const Select* op) {
    return select(handle_of(op), mutate(op->condition), mutate(op->true_value), mutate(op->false_value));
}

Expr Simplifier::select(const Expr& original, const Expr& c, const Expr& t0, const Expr& f0) {
    if (auto k = as_const_uint(c)) return *k ? t0 : f0;
    if (equal(t0, f0)) return t0;
    if (const Not* n = c.as<Not>()) return select(Expr(), n->a, f0, t0);
    const Type type = t0.type();
    if (type.is_bool() && c.type() == type) {
        if (is_const_one(t0) && is_const_zero(f0)) return c;
        if (is_const_zero(t0) && is_const_one(f0)) return negation(c, Expr());
    }
    // A select nested under the same condition takes the same branch.
    Expr t = t0, f = f0;
    if (const Select* s = t.as<Select>(); s && equal(s->condition, c)) t = s->true_value;
    if (const Select* s = f.as<Select>(); s && equal(s->condition, c)) f = s->false_value;
    // select(x < y, x, y) is min(x, y), and the like (integers: floats differ on NaN).
    IRKind kind;
    Expr x, y;
    if (type.is_int_or_uint() && type.is_scalar() && comparison_operands(c, kind, x, y)) {
        const bool less = kind == IRKind::LT || kind == IRKind::LE;
        const bool greater = kind == IRKind::GT || kind == IRKind::GE;
        if ((less || greater) && equal(t, x) && equal(f, y))
            return min_max(make_binary(less ? IRKind::Min : IRKind::Max, x, y), less, x, y);
        if ((less || greater) && equal(t, y) && equal(f, x))
            return min_max(make_binary(less ? IRKind::Max : IRKind::Min, x, y), !less, x, y);
    }
    if (original.defined()) {
        const Select* op = original.as<Select>();
        if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
            return original;
    }
    return Select::make(c, t, f);
}

}  // namespace tessera::ir
