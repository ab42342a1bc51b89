#include "ir/modulus_remainder.h"

#include <limits>
#include <vector>

#include "ir/constant_bounds.h"
#include "ir/ir_util.h"

namespace tessera::ir {
namespace {

Int128 gcd(Int128 a, Int128 b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b != 0) {
        const Int128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

const ModulusRemainder unknown{1, 0};

// modulus * q + remainder in canonical form, or unknown if it does not fit in 64 bits.
ModulusRemainder make(Int128 modulus, Int128 remainder) {
    constexpr Int128 largest = std::numeric_limits<int64_t>::max();
    if (modulus < 0) modulus = -modulus;
    if (modulus != 0) remainder = euclidean_mod(remainder, modulus);
    if (modulus > largest || remainder > largest || remainder < -largest) return unknown;
    return {int64_t(modulus), int64_t(remainder)};
}

// Both a and b are possible: what they have in common.
ModulusRemainder either(ModulusRemainder a, ModulusRemainder b) {
    const Int128 m = gcd(gcd(a.modulus, b.modulus), Int128(a.remainder) - b.remainder);
    return make(m, a.remainder);
}

class Analysis {
public:
    explicit Analysis(const std::map<std::string, Interval>& scope) : scope(scope) {}

    ModulusRemainder of(const Expr& e) {
        const Type t = e.type().element_of();
        if (!t.is_int_or_uint() || !assumes_no_overflow(t) || --budget < 0) return unknown;
        return of_node(e);
    }

private:
    const std::map<std::string, Interval>& scope;
    std::vector<std::pair<std::string, Expr>> lets;  // innermost last
    // Nodes left to visit: lets that read each other can make the tree of values exponential.
    int budget = 512;

    ModulusRemainder of_node(const Expr& e) {
        if (auto c = as_exact_int(e); c && e.type().is_scalar()) return make(0, *c);
        if (const Variable* v = e.as<Variable>()) return of_variable(v->name);
        if (const Broadcast* b = e.as<Broadcast>()) return of(b->value);
        if (is_likely(e)) return of(without_likely(e));
        if (const Cast* c = e.as<Cast>()) return of_cast(c);
        if (const Let* l = e.as<Let>()) {
            lets.emplace_back(l->name, l->value);
            ModulusRemainder r = of(l->body);
            lets.pop_back();
            return r;
        }
        if (const Add* op = e.as<Add>()) return sum(of(op->a), of(op->b), +1);
        if (const Sub* op = e.as<Sub>()) return sum(of(op->a), of(op->b), -1);
        if (const Mul* op = e.as<Mul>()) return product(of(op->a), of(op->b));
        if (const Div* op = e.as<Div>()) return quotient(of(op->a), as_exact_int(op->b));
        if (const Mod* op = e.as<Mod>()) return remainder(of(op->a), as_exact_int(op->b));
        if (const Min* op = e.as<Min>()) return either(of(op->a), of(op->b));
        if (const Max* op = e.as<Max>()) return either(of(op->a), of(op->b));
        if (const Select* op = e.as<Select>()) return either(of(op->true_value), of(op->false_value));
        return unknown;
    }

    ModulusRemainder of_variable(const std::string& name) {
        for (size_t i = lets.size(); i-- > 0;) {
            if (lets[i].first != name) continue;
            // The value is read in the scope of the lets outside this one.
            std::vector<std::pair<std::string, Expr>> inner(lets.begin() + i, lets.end());
            lets.resize(i);
            ModulusRemainder r = of(inner.front().second);
            lets.insert(lets.end(), inner.begin(), inner.end());
            return r;
        }
        auto it = scope.find(name);
        if (it == scope.end()) return unknown;
        const Interval& i = it->second;
        if (i.is_single_point()) return of(i.min);
        auto lo = i.min.defined() ? as_exact_int(i.min) : std::nullopt;
        auto hi = i.max.defined() ? as_exact_int(i.max) : std::nullopt;
        return lo && hi && *lo == *hi ? make(0, *lo) : unknown;
    }

    ModulusRemainder of_cast(const Cast* c) {
        const Type from = c->value.type().element_of(), to = c->type.element_of();
        // Widening between types that do not overflow keeps the value.
        if (from.is_int_or_uint() && assumes_no_overflow(from) && to.bits() >= from.bits())
            return of(c->value);
        return unknown;
    }

    static ModulusRemainder sum(ModulusRemainder a, ModulusRemainder b, int sign) {
        return make(gcd(a.modulus, b.modulus), Int128(a.remainder) + sign * Int128(b.remainder));
    }

    // (ma q + ra)(mb p + rb) = ma mb qp + ma rb q + mb ra p + ra rb.
    static ModulusRemainder product(ModulusRemainder a, ModulusRemainder b) {
        const Int128 ma = a.modulus, mb = b.modulus, ra = a.remainder, rb = b.remainder;
        return make(gcd(gcd(ma * mb, ma * rb), mb * ra), ra * rb);
    }

    // (m q + r) / k with k dividing m is (m / k) q + r / k, the remainder taken in [0, m).
    static ModulusRemainder quotient(ModulusRemainder a, std::optional<Int128> k) {
        if (!k || *k <= 0 || a.modulus % *k != 0) return unknown;
        return make(a.modulus / *k, euclidean_div(a.remainder, *k));
    }

    // (m q + r) % k is congruent to r modulo gcd(m, k); when k divides m it is r % k exactly.
    static ModulusRemainder remainder(ModulusRemainder a, std::optional<Int128> k) {
        if (!k || *k <= 0) return unknown;
        const Int128 g = gcd(a.modulus, *k);
        if (g == *k) return make(0, euclidean_mod(a.remainder, *k));
        return make(g, a.remainder);
    }
};

}  // namespace

ModulusRemainder modulus_remainder(const Expr& e, const std::map<std::string, Interval>& scope) {
    return Analysis(scope).of(e);
}

}  // namespace tessera::ir
