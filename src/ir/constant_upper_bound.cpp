#include "ir/constant_upper_bound.h"

#include <algorithm>
#include <limits>

#include "ir/constant_bounds.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessera::ir {
namespace {

// The positive constant that e is a product or quotient by, if it is one.
std::optional<int64_t> positive_factor(const Expr& e) {
    const Expr& factor = e.as<Mul>() ? e.as<Mul>()->b : e.as<Div>() ? e.as<Div>()->b : Expr();
    std::optional<int64_t> c = factor.defined() ? as_const_int(factor) : std::nullopt;
    return c && *c > 0 ? c : std::nullopt;
}

// e with its let expressions substituted into their bodies, so that the terms they name can
// cancel with the rest (bounds inference names the shared ends of intervals so).
class InlineLets : public Mutator {
    using Mutator::visit;
    Expr visit(const Let* op) override { return mutate(substitute(op->name, mutate(op->value), op->body)); }
};

// Whether e, walked as a tree (a shared subexpression counted at each use), has fewer nodes.
bool is_smaller_than(const Expr& e, int nodes) {
    class Count : public Visitor {
    public:
        explicit Count(int limit) : left(limit) {}
        int left;

    private:
        using Visitor::visit;
        void include_expr(const Expr& e) {
            if (--left > 0) Visitor::include(e);
        }
        void visit(const Add* op) override { include_expr(op->a), include_expr(op->b); }
        void visit(const Sub* op) override { include_expr(op->a), include_expr(op->b); }
        void visit(const Mul* op) override { include_expr(op->a), include_expr(op->b); }
        void visit(const Div* op) override { include_expr(op->a), include_expr(op->b); }
        void visit(const Min* op) override { include_expr(op->a), include_expr(op->b); }
        void visit(const Max* op) override { include_expr(op->a), include_expr(op->b); }
    } count(nodes);
    count.include(e);
    return count.left > 0;
}

// x - min(y, x + c) as max(x - y, -c), and x - max(y, x + c) as min(x - y, -c), if m is such a
// min or max of x: the terms that vary cancel before the min is carried out, which would lose
// that both of its sides hold x (a tile's extent clamped at both ends is written so).
std::optional<Expr> cancel_common_term(const Expr& x, const Expr& m) {
    const bool is_min = m.as<Min>() != nullptr;
    if (!is_min && !m.as<Max>()) return std::nullopt;
    const Expr sides[2] = {is_min ? m.as<Min>()->a : m.as<Max>()->a,
                           is_min ? m.as<Min>()->b : m.as<Max>()->b};
    for (int i = 0; i < 2; i++) {
        const std::optional<int64_t> c = as_const_int(simplify(Sub::make(sides[i], x)));
        if (!c) continue;
        const Expr rest = Sub::make(x, sides[1 - i]), bound = make_const(x.type(), -*c);
        return is_min ? Max::make(rest, bound) : Min::make(rest, bound);
    }
    return std::nullopt;
}

// e with additions and subtractions of a min or a max, and products and quotients of one by a
// positive constant (which keep order), carried inside it.
Expr distribute_over_min_max(const Expr& e) {
    if (std::optional<int64_t> c = positive_factor(e)) {
        const bool mul = e.as<Mul>() != nullptr;
        const Expr a = distribute_over_min_max(mul ? e.as<Mul>()->a : e.as<Div>()->a);
        auto scale = [&](const Expr& x) {
            const Expr k = make_const(x.type(), *c);
            return distribute_over_min_max(mul ? Mul::make(x, k) : Div::make(x, k));
        };
        if (const Min* m = a.as<Min>()) return Min::make(scale(m->a), scale(m->b));
        if (const Max* m = a.as<Max>()) return Max::make(scale(m->a), scale(m->b));
        return mul ? Mul::make(a, make_const(a.type(), *c)) : Div::make(a, make_const(a.type(), *c));
    }
    const bool add = e.as<Add>() != nullptr, sub = e.as<Sub>() != nullptr;
    if (sub) {
        if (std::optional<Expr> cancelled = cancel_common_term(e.as<Sub>()->a, e.as<Sub>()->b))
            return distribute_over_min_max(*cancelled);
    }
    if (!add && !sub) {
        if (const Min* m = e.as<Min>())
            return Min::make(distribute_over_min_max(m->a), distribute_over_min_max(m->b));
        if (const Max* m = e.as<Max>())
            return Max::make(distribute_over_min_max(m->a), distribute_over_min_max(m->b));
        return e;
    }
    const Expr a = distribute_over_min_max(add ? e.as<Add>()->a : e.as<Sub>()->a);
    const Expr b = distribute_over_min_max(add ? e.as<Add>()->b : e.as<Sub>()->b);
    auto combine = [&](const Expr& x, const Expr& y) {
        return distribute_over_min_max(add ? Add::make(x, y) : Sub::make(x, y));
    };
    if (const Min* m = a.as<Min>()) return Min::make(combine(m->a, b), combine(m->b, b));
    if (const Max* m = a.as<Max>()) return Max::make(combine(m->a, b), combine(m->b, b));
    // a + min(p, q) = min(a + p, a + q); a - min(p, q) = max(a - p, a - q).
    if (const Min* m = b.as<Min>()) {
        return add ? Min::make(combine(a, m->a), combine(a, m->b))
                   : Max::make(combine(a, m->a), combine(a, m->b));
    }
    if (const Max* m = b.as<Max>()) {
        return add ? Max::make(combine(a, m->a), combine(a, m->b))
                   : Min::make(combine(a, m->a), combine(a, m->b));
    }
    return add ? Add::make(a, b) : Sub::make(a, b);
}

std::optional<int64_t> upper_bound(const Expr& e) {
    if (const Min* m = e.as<Min>()) {
        std::optional<int64_t> a = upper_bound(m->a), b = upper_bound(m->b);
        if (a && b) return std::min(*a, *b);
        return a ? a : b;
    }
    if (const Max* m = e.as<Max>()) {
        std::optional<int64_t> a = upper_bound(m->a), b = upper_bound(m->b);
        if (a && b) return std::max(*a, *b);
        return std::nullopt;
    }
    // Products and quotients by a positive constant keep order.
    if (std::optional<int64_t> c = positive_factor(e)) {
        const bool mul = e.as<Mul>() != nullptr;
        std::optional<int64_t> a = upper_bound(mul ? e.as<Mul>()->a : e.as<Div>()->a);
        if (a) return mul ? *a * *c : int64_t(euclidean_div(Int128(*a), Int128(*c)));
    }
    const Expr simplified = simplify(e);
    if (std::optional<int64_t> c = as_const_int(simplified)) return c;
    if (simplified.as<Min>() || simplified.as<Max>()) return upper_bound(simplified);
    std::optional<ConstantInterval> range = constant_bounds(simplified);
    // The largest value of the type is no bound: the expression may be as large as anything.
    if (range && range->max < std::numeric_limits<int32_t>::max()) return int64_t(range->max);
    return std::nullopt;
}

}  // namespace

std::optional<int64_t> constant_upper_bound(const Expr& e) {
    if (std::optional<int64_t> c = as_const_int(e)) return c;
    // Lets share their values, which substituted appear at every use: an expression that grows too
    // large then keeps its lets.
    Expr inlined = InlineLets().mutate(e);
    if (!is_smaller_than(inlined, 2000)) inlined = e;
    return upper_bound(distribute_over_min_max(simplify(inlined)));
}

}  // namespace tessera::ir
