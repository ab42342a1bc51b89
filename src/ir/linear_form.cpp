#include "ir/linear_form.h"

#include <deque>
#include <limits>
#include <optional>
#include <vector>

#include "ir/constant_bounds.h"
#include "ir/ir_util.h"

namespace tessera::ir {
namespace {

// Arithmetic modulo 2^bits, held sign-extended.
int64_t wrap_coefficient(Type t, uint64_t v) {
    const int bits = t.bits();
    if (bits >= 64) return int64_t(v);
    const int shift = 64 - bits;
    return int64_t(v << shift) >> shift;
}

int64_t multiply(Type t, int64_t a, int64_t b) { return wrap_coefficient(t, uint64_t(a) * uint64_t(b)); }

// Whether the exact value v fits a type assumed not to overflow (other types wrap by design).
bool fits_exactly(Type t, Int128 v) {
    if (!assumes_no_overflow(t)) return true;
    return v >= -(Int128(1) << (t.bits() - 1)) && v < (Int128(1) << (t.bits() - 1));
}

// The one coefficient whose negation is itself.
int64_t most_negative(Type t) {
    return t.bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (t.bits() - 1));
}

std::optional<int64_t> constant_value(const Expr& e) {
    if (const IntImm* i = e.as<IntImm>()) return i->value;
    if (const UIntImm* u = e.as<UIntImm>()) return int64_t(u->value);
    return std::nullopt;
}

bool is_sum_node(const Expr& e) { return e.as<Add>() || e.as<Sub>() || e.as<Mul>(); }

// Products of two non-constant factors are terms; ordering the factors makes x*y and y*x one term.
Expr ordered_product(const Expr& a, const Expr& b) {
    return compare(a, b) <= 0 ? Mul::make(a, b) : Mul::make(b, a);
}

class Gatherer {
public:
    Gatherer(Type t, const std::function<Expr(const Expr&)>* s) : form(t), simplify(s) {}

    LinearForm run(const Expr& root) {
        stack.push_back({&root, 1, simplify == nullptr, true});
        while (!stack.empty()) {
            Item item = stack.back();
            stack.pop_back();
            step(item);
        }
        return std::move(form);
    }

private:
    struct Item {
        const Expr* e;
        int64_t coefficient;
        bool simplified;  // whether *e is already simplified
        bool root;
    };
    LinearForm form;
    const std::function<Expr(const Expr&)>* simplify;
    std::deque<Expr> keep;  // rewritten subexpressions, alive while the stack points into them
    std::vector<Item> stack;

    void push(const Expr* e, int64_t c, bool simplified) { stack.push_back({e, c, simplified, false}); }

    int64_t scaled(int64_t c, int64_t k) {
        if (!fits_exactly(form.type, Int128(c) * Int128(k))) form.exact = false;
        return multiply(form.type, c, k);
    }

    const Expr* rewritten(const Expr& e) { return &keep.emplace_back((*simplify)(e)); }

    void step(const Item& item) {
        const Expr& e = *item.e;
        const int64_t c = item.coefficient;
        if (c == 0) return;
        if (auto k = constant_value(e)) {
            form.add_constant(scaled(c, *k));
            return;
        }
        const bool take_apart = item.simplified || item.root || e.node().use_count() == 1;
        if (take_apart) {
            if (const Add* op = e.as<Add>()) {
                push(&op->a, c, item.simplified);
                push(&op->b, c, item.simplified);
                return;
            }
            if (const Sub* op = e.as<Sub>()) {
                push(&op->a, c, item.simplified);
                push(&op->b, scaled(c, -1), item.simplified);
                return;
            }
            if (const Mul* op = e.as<Mul>()) {
                product(e, op, c, item.simplified);
                return;
            }
        }
        if (item.simplified) {
            form.add_term(e, c);
            return;
        }
        const Expr* s = rewritten(e);
        if (constant_value(*s) || is_sum_node(*s))
            push(s, c, true);
        else
            form.add_term(*s, c);
    }

    void product(const Expr& e, const Mul* op, int64_t c, bool simplified) {
        const Expr* a = simplified ? &op->a : rewritten(op->a);
        const Expr* b = simplified ? &op->b : rewritten(op->b);
        if (auto k = constant_value(*b)) return push(a, scaled(c, *k), true);
        if (auto k = constant_value(*a)) return push(b, scaled(c, *k), true);
        const bool unchanged = a->same_as(op->a) && b->same_as(op->b) && compare(*a, *b) <= 0;
        form.add_term(unchanged ? e : ordered_product(*a, *b), c);
    }
};

}  // namespace

bool has_linear_form(Type t) { return t.is_scalar() && t.is_int_or_uint() && !t.is_bool(); }

void LinearForm::add_term(const Expr& term, int64_t coefficient) {
    coefficient = wrap_coefficient(type, uint64_t(coefficient));
    if (coefficient == 0) return;
    auto [it, inserted] = terms.emplace(term, coefficient);
    if (inserted) return;
    if (!fits_exactly(type, Int128(it->second) + Int128(coefficient))) exact = false;
    it->second = wrap_coefficient(type, uint64_t(it->second) + uint64_t(coefficient));
    if (it->second == 0) terms.erase(it);
}

void LinearForm::add_constant(int64_t c) {
    if (!fits_exactly(type, Int128(constant) + Int128(c))) exact = false;
    constant = wrap_coefficient(type, uint64_t(constant) + uint64_t(c));
}

void LinearForm::add(const LinearForm& other, int64_t scale) {
    exact = exact && other.exact;
    for (const auto& [term, c] : other.terms) {
        if (!fits_exactly(type, Int128(c) * Int128(scale))) exact = false;
        add_term(term, multiply(type, c, scale));
    }
    if (!fits_exactly(type, Int128(other.constant) * Int128(scale))) exact = false;
    add_constant(multiply(type, other.constant, scale));
}

Expr LinearForm::to_expr() const {
    auto scaled = [this](const Expr& term, int64_t c) {
        return c == 1 ? term : Mul::make(term, make_const(type, c));
    };
    const int64_t unnegatable = most_negative(type);
    Expr sum;
    int64_t k = constant;
    auto plus = [&](const Expr& x) { sum = sum.defined() ? Add::make(sum, x) : x; };
    for (const auto& [term, c] : terms) {
        if (c > 0 || c == unnegatable) plus(scaled(term, c));
    }
    for (const auto& [term, c] : terms) {
        if (c > 0 || c == unnegatable) continue;
        if (!sum.defined()) {
            // With nothing positive to subtract from, start from the constant when it is positive: 3 - x.
            sum = make_const(type, k > 0 ? k : 0);
            if (k > 0) k = 0;
        }
        sum = Sub::make(sum, scaled(term, -c));
    }
    if (!sum.defined()) return make_const(type, k);
    if (k == 0) return sum;
    if (k < 0 && k != unnegatable) return Sub::make(sum, make_const(type, -k));
    return Add::make(sum, make_const(type, k));
}

LinearForm gather_linear_form(const Expr& e, const std::function<Expr(const Expr&)>& simplify) {
    return Gatherer(e.type(), &simplify).run(e);
}

LinearForm linear_form_of(const Expr& e) { return Gatherer(e.type(), nullptr).run(e); }

namespace {

// Whether adding c times operand to rest cancels a term of rest: in the sum itself, or in an
// operand of a min or max that operand is (up to a constant), where distributing would cancel it.
bool cancels_in(const LinearForm& rest, int64_t c, const Expr& operand, int depth) {
    const LinearForm o = linear_form_of(operand);
    LinearForm sum = rest;
    sum.add(o, c);
    if (sum.terms.size() < rest.terms.size() + o.terms.size()) return true;
    if (depth == 0 || o.terms.size() != 1) return false;
    const auto& [term, k] = *o.terms.begin();
    if (k != 1 && k != -1) return false;
    const Min* as_min = term.as<Min>();
    const Max* as_max = term.as<Max>();
    if (!as_min && !as_max) return false;
    return cancels_in(rest, c * k, as_min ? as_min->a : as_max->a, depth - 1) ||
           cancels_in(rest, c * k, as_min ? as_min->b : as_max->b, depth - 1);
}

}  // namespace

Expr sum_into_min_max(const Expr& sum) {
    // The other terms are copied into both operands: only for short sums.
    constexpr size_t kMostTerms = 8;
    constexpr int kNestedDepth = 2;
    if (!(sum.as<Add>() || sum.as<Sub>()) || !assumes_no_overflow(sum.type())) return Expr();
    const LinearForm f = linear_form_of(sum);
    if (!f.exact || f.terms.size() < 2 || f.terms.size() > kMostTerms) return Expr();
    for (const auto& [term, c] : f.terms) {
        const Min* as_min = term.as<Min>();
        const Max* as_max = term.as<Max>();
        if ((!as_min && !as_max) || (c != 1 && c != -1)) continue;
        const Expr& p = as_min ? as_min->a : as_max->a;
        const Expr& q = as_min ? as_min->b : as_max->b;
        LinearForm rest = f;
        rest.terms.erase(term);
        if (!cancels_in(rest, c, p, kNestedDepth) && !cancels_in(rest, c, q, kNestedDepth)) continue;
        LinearForm a = rest, b = rest;
        a.add(linear_form_of(p), c);
        b.add(linear_form_of(q), c);
        if (!a.exact || !b.exact) continue;
        // -min(p, q) is max(-p, -q).
        const bool is_min = (as_min != nullptr) == (c == 1);
        return is_min ? Min::make(a.to_expr(), b.to_expr()) : Max::make(a.to_expr(), b.to_expr());
    }
    return Expr();
}

std::optional<LinearForm> exact_difference(const Expr& a, const Expr& b) {
    const Type t = a.type();
    if (!has_linear_form(t) || !t.is_int()) return std::nullopt;
    const LinearForm fa = linear_form_of(a), fb = linear_form_of(b);
    if (!fa.exact || !fb.exact) return std::nullopt;
    const Int128 lo = -(Int128(1) << (t.bits() - 1)), hi = (Int128(1) << (t.bits() - 1)) - 1;
    auto fits = [&](Int128 v) { return v >= lo && v <= hi; };
    std::map<Expr, Int128, ExprLess> exact;
    for (const auto& [term, c] : fa.terms) exact[term] += c;
    for (const auto& [term, c] : fb.terms) exact[term] -= c;
    const Int128 constant = Int128(fa.constant) - Int128(fb.constant);
    if (!fits(constant)) return std::nullopt;
    LinearForm d(t);
    d.add_constant(int64_t(constant));
    for (const auto& [term, c] : exact) {
        if (!fits(c)) return std::nullopt;
        d.add_term(term, int64_t(c));
    }
    return d;
}

}  // namespace tessera::ir
