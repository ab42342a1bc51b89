#include "ir/constant_bounds.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "util/error_stream.h"

namespace tessera::ir {
namespace {

// Results are saturated here, far beyond any 64-bit value, so that products of saturated values
// cannot overflow 128 bits.
constexpr Int128 kLimit = Int128(1) << 120;

Int128 saturate(Int128 v) { return std::clamp(v, -kLimit, kLimit); }

Int128 saturating_mul(Int128 a, Int128 b) {
    if (a == 0 || b == 0) return 0;
    const Int128 abs_a = a < 0 ? -a : a, abs_b = b < 0 ? -b : b;
    const bool negative = (a < 0) != (b < 0);
    if (abs_a > kLimit / abs_b) return negative ? -kLimit : kLimit;
    return a * b;
}

ConstantInterval hull4(Int128 a, Int128 b, Int128 c, Int128 d) {
    return {std::min({a, b, c, d}), std::max({a, b, c, d})};
}

ConstantInterval hull_with(const std::optional<ConstantInterval>& r, const ConstantInterval& s) {
    return r ? range_union(*r, s) : s;
}

}  // namespace

bool assumes_no_overflow(Type t) { return t.is_int() && t.bits() >= 32; }

std::optional<Int128> as_exact_int(const Expr& e) {
    if (const IntImm* i = e.as<IntImm>()) return Int128(i->value);
    if (const UIntImm* u = e.as<UIntImm>()) return Int128(u->value);
    if (const Broadcast* b = e.as<Broadcast>()) return as_exact_int(b->value);
    return std::nullopt;
}

Int128 euclidean_div(Int128 a, Int128 b) {
    if (b == 0) return 0;
    Int128 q = a / b, r = a % b;
    // C++ truncates toward zero; a negative remainder moves the quotient one step away from it.
    if (r < 0) q = b > 0 ? q - 1 : q + 1;
    return q;
}

Int128 euclidean_mod(Int128 a, Int128 b) {
    if (b == 0) return 0;
    Int128 r = a % b;
    if (r < 0) r += b < 0 ? -b : b;
    return r;
}

ConstantInterval ConstantInterval::of_type(Type t) {
    TESSERA_INTERNAL_CHECK(t.is_int_or_uint()) << "constant range of type " << type_name(t);
    const int bits = t.bits();
    if (t.is_uint()) return {0, (Int128(1) << bits) - 1};
    return {-(Int128(1) << (bits - 1)), (Int128(1) << (bits - 1)) - 1};
}

ConstantInterval operator+(const ConstantInterval& a, const ConstantInterval& b) {
    return {saturate(a.min + b.min), saturate(a.max + b.max)};
}

ConstantInterval operator-(const ConstantInterval& a, const ConstantInterval& b) {
    return {saturate(a.min - b.max), saturate(a.max - b.min)};
}

ConstantInterval operator*(const ConstantInterval& a, const ConstantInterval& b) {
    return hull4(saturating_mul(a.min, b.min), saturating_mul(a.min, b.max), saturating_mul(a.max, b.min),
                 saturating_mul(a.max, b.max));
}

// For a divisor of one sign, the quotient is monotonic in each operand, so the corners bound it.
// A divisor range that spans zero is split at zero (where the quotient is zero).
ConstantInterval euclidean_div(const ConstantInterval& a, const ConstantInterval& b) {
    // A divisor range that holds no value (an empty loop's variable, say) leaves no quotient to bound;
    // the point zero, as for a zero divisor, keeps the answer a well-formed range.
    if (b.min > b.max) return ConstantInterval::point(0);
    std::optional<ConstantInterval> r;
    auto corners = [&](Int128 lo, Int128 hi) {
        r = hull_with(r, hull4(euclidean_div(a.min, lo), euclidean_div(a.min, hi), euclidean_div(a.max, lo),
                               euclidean_div(a.max, hi)));
    };
    if (b.max >= 1) corners(std::max<Int128>(b.min, 1), b.max);
    if (b.min <= -1) corners(b.min, std::min<Int128>(b.max, -1));
    if (b.contains(0)) r = hull_with(r, ConstantInterval::point(0));
    return *r;
}

ConstantInterval euclidean_mod(const ConstantInterval& a, const ConstantInterval& b) {
    const Int128 largest = std::max(b.max, -b.min);  // the largest |divisor|
    if (largest == 0) return ConstantInterval::point(0);
    const Int128 smallest = b.contains(0) ? 0 : std::min(b.min < 0 ? -b.max : b.min, largest);
    // Within one period of a single divisor the remainder is a shifted copy of a.
    if (b.is_point() && euclidean_div(a.min, largest) == euclidean_div(a.max, largest)) {
        return {euclidean_mod(a.min, largest), euclidean_mod(a.max, largest)};
    }
    if (a.min >= 0 && a.max < smallest) return a;
    ConstantInterval r{0, largest - 1};
    if (a.min >= 0) r.max = std::min(r.max, a.max);
    return r;
}

ConstantInterval range_min(const ConstantInterval& a, const ConstantInterval& b) {
    return {std::min(a.min, b.min), std::min(a.max, b.max)};
}

ConstantInterval range_max(const ConstantInterval& a, const ConstantInterval& b) {
    return {std::max(a.min, b.min), std::max(a.max, b.max)};
}

ConstantInterval range_union(const ConstantInterval& a, const ConstantInterval& b) {
    return {std::min(a.min, b.min), std::max(a.max, b.max)};
}

ConstantInterval fit_to_type(const ConstantInterval& r, Type t) {
    const ConstantInterval all = ConstantInterval::of_type(t.element_of());
    if (assumes_no_overflow(t)) return r;
    if (r.min >= all.min && r.max <= all.max) return r;
    return all;
}

namespace {

class ConstantBounder {
public:
    explicit ConstantBounder(const ConstantLookup& l) : lookup(l) {}

    std::optional<ConstantInterval> bounds(const Expr& e) {
        Type t = e.type().element_of();
        if (!t.is_int_or_uint()) return std::nullopt;
        return range_of(e);
    }

private:
    const ConstantLookup& lookup;
    // Ranges of variables bound by Lets inside the expression; empty where a let is not an integer.
    std::map<std::string, std::vector<std::optional<ConstantInterval>>> lets;
    // Results for nodes shared within the expression, so that a DAG is walked once per node.
    std::unordered_map<const ExprNode*, ConstantInterval> shared;

    // The range of an integer-typed expression.
    ConstantInterval range_of(const Expr& e) {
        const bool is_shared = e.node().use_count() > 1;
        if (is_shared) {
            auto it = shared.find(e.get());
            if (it != shared.end()) return it->second;
        }
        ConstantInterval r = compute(e, e.type().element_of());
        if (is_shared) shared.emplace(e.get(), r);
        return r;
    }

    template <typename T>
    ConstantInterval arithmetic(const Expr& e, Type t) {
        const T* op = e.as<T>();
        ConstantInterval a = range_of(op->a), b = range_of(op->b);
        if constexpr (std::is_same_v<T, Add>) return fit_to_type(a + b, t);
        if constexpr (std::is_same_v<T, Sub>) return fit_to_type(a - b, t);
        if constexpr (std::is_same_v<T, Mul>) return fit_to_type(a * b, t);
        if constexpr (std::is_same_v<T, Div>) return fit_to_type(euclidean_div(a, b), t);
        if constexpr (std::is_same_v<T, Mod>) return fit_to_type(euclidean_mod(a, b), t);
        if constexpr (std::is_same_v<T, Min>) return range_min(a, b);
        if constexpr (std::is_same_v<T, Max>) return range_max(a, b);
        return ConstantInterval::of_type(t);
    }

    ConstantInterval compute(const Expr& e, Type t) {
        switch (e.get()->kind) {
            case IRKind::IntImm:
            case IRKind::UIntImm: return ConstantInterval::point(*as_exact_int(e));
            case IRKind::Variable: return variable(e.as<Variable>(), t);
            case IRKind::Cast: return cast(e.as<Cast>(), t);
            case IRKind::Add: return arithmetic<Add>(e, t);
            case IRKind::Sub: return arithmetic<Sub>(e, t);
            case IRKind::Mul: return arithmetic<Mul>(e, t);
            case IRKind::Div: return arithmetic<Div>(e, t);
            case IRKind::Mod: return arithmetic<Mod>(e, t);
            case IRKind::Min: return arithmetic<Min>(e, t);
            case IRKind::Max: return arithmetic<Max>(e, t);
            case IRKind::EQ: return compare<EQ>(e);
            case IRKind::NE: return compare<NE>(e);
            case IRKind::LT: return compare<LT>(e);
            case IRKind::LE: return compare<LE>(e);
            case IRKind::GT: return compare<GT>(e);
            case IRKind::GE: return compare<GE>(e);
            case IRKind::And: {
                ConstantInterval a = range_of(e.as<And>()->a), b = range_of(e.as<And>()->b);
                return {std::min(a.min, b.min), std::min(a.max, b.max)};
            }
            case IRKind::Or: {
                ConstantInterval a = range_of(e.as<Or>()->a), b = range_of(e.as<Or>()->b);
                return {std::max(a.min, b.min), std::max(a.max, b.max)};
            }
            case IRKind::Not: {
                ConstantInterval a = range_of(e.as<Not>()->a);
                return {1 - a.max, 1 - a.min};
            }
            case IRKind::Select: return select(e.as<Select>());
            case IRKind::Broadcast: return range_of(e.as<Broadcast>()->value);
            case IRKind::Ramp: {
                const Ramp* r = e.as<Ramp>();
                return fit_to_type(
                    range_of(r->base) + range_of(r->stride) * ConstantInterval{0, r->lanes - 1}, t);
            }
            case IRKind::Let: return let(e.as<Let>());
            case IRKind::Call: return call(e.as<Call>(), t);
            default: return ConstantInterval::of_type(t);  // loads, reinterprets: anything of the type
        }
    }

    ConstantInterval variable(const Variable* op, Type t) {
        std::optional<ConstantInterval> r;
        auto it = lets.find(op->name);
        if (it != lets.end() && !it->second.empty())
            r = it->second.back();
        else
            r = lookup ? lookup(op->name) : std::nullopt;
        const ConstantInterval all = ConstantInterval::of_type(t);
        if (!r) return all;
        ConstantInterval clamped{std::max(r->min, all.min), std::min(r->max, all.max)};
        return clamped.min <= clamped.max ? clamped : all;
    }

    // Casts wrap, even to types assumed not to overflow: keep the range only where it fits.
    ConstantInterval cast(const Cast* op, Type t) {
        const ConstantInterval all = ConstantInterval::of_type(t);
        Type from = op->value.type().element_of();
        if (from.is_int_or_uint()) {
            ConstantInterval r = range_of(op->value);
            return r.min >= all.min && r.max <= all.max ? r : all;
        }
        return all;
    }

    template <typename T>
    ConstantInterval compare(const Expr& e) {
        const T* op = e.as<T>();
        const ConstantInterval unknown{0, 1};
        if (!op->a.type().element_of().is_int_or_uint()) return unknown;
        ConstantInterval a = range_of(op->a), b = range_of(op->b);
        auto decide = [&](bool surely_true, bool surely_false) {
            return surely_true    ? ConstantInterval::point(1)
                   : surely_false ? ConstantInterval::point(0)
                                  : unknown;
        };
        const bool same_point = a.is_point() && b.is_point() && a.min == b.min;
        const bool disjoint = a.max < b.min || b.max < a.min;
        if constexpr (std::is_same_v<T, LT>) return decide(a.max < b.min, a.min >= b.max);
        if constexpr (std::is_same_v<T, LE>) return decide(a.max <= b.min, a.min > b.max);
        if constexpr (std::is_same_v<T, GT>) return decide(a.min > b.max, a.max <= b.min);
        if constexpr (std::is_same_v<T, GE>) return decide(a.min >= b.max, a.max < b.min);
        if constexpr (std::is_same_v<T, EQ>) return decide(same_point, disjoint);
        if constexpr (std::is_same_v<T, NE>) return decide(disjoint, same_point);
        return unknown;
    }

    ConstantInterval select(const Select* op) {
        ConstantInterval c = range_of(op->condition);
        if (c.min == 1) return range_of(op->true_value);
        if (c.max == 0) return range_of(op->false_value);
        return range_union(range_of(op->true_value), range_of(op->false_value));
    }

    ConstantInterval let(const Let* op) {
        std::vector<std::string> names;
        const Let* let = op;
        while (true) {
            std::optional<ConstantInterval> value = bounds(let->value);
            lets[let->name].push_back(value);
            names.push_back(let->name);
            shared.clear();  // cached results may depend on an outer variable of this name
            const Let* next = let->body.as<Let>();
            if (!next) break;
            let = next;
        }
        ConstantInterval r = range_of(let->body);
        for (auto it = names.rbegin(); it != names.rend(); ++it) lets[*it].pop_back();
        shared.clear();
        return r;
    }

    ConstantInterval call(const Call* op, Type t) {
        const ConstantInterval all = ConstantInterval::of_type(t);
        if (op->call_type != CallType::Intrinsic || op->args.empty()) return all;
        const Expr& x = op->args[0];
        if (!x.type().element_of().is_int_or_uint()) return all;
        switch (op->intrinsic) {
            case Intrinsic::Likely:
            case Intrinsic::LikelyIfInnermost: return range_of(x);
            case Intrinsic::Abs: {
                ConstantInterval r = range_of(x);
                if (r.min >= 0) return fit_to_type(r, t);
                if (r.max <= 0) return fit_to_type({-r.max, -r.min}, t);
                return fit_to_type({0, std::max(-r.min, r.max)}, t);
            }
            case Intrinsic::BitAnd: {
                // x & y lies in [0, y] when y is not negative, whatever x is.
                if (op->args.size() != 2) return all;
                ConstantInterval a = range_of(x), b = range_of(op->args[1]);
                if (a.min >= 0 && b.min >= 0) return {0, std::min(a.max, b.max)};
                if (a.min >= 0) return {0, a.max};
                if (b.min >= 0) return {0, b.max};
                return all;
            }
            default: return all;
        }
    }
};

}  // namespace

std::optional<ConstantInterval> constant_bounds(const Expr& e, const ConstantLookup& lookup) {
    if (!e.defined()) return std::nullopt;
    return ConstantBounder(lookup).bounds(e);
}

std::optional<ConstantInterval> constant_bounds(const Expr& e, const ConstantScope& vars) {
    ConstantLookup lookup;
    if (!vars.empty()) {
        lookup = [&vars](const std::string& name) -> std::optional<ConstantInterval> {
            auto it = vars.find(name);
            if (it == vars.end()) return std::nullopt;
            return it->second;
        };
    }
    return constant_bounds(e, lookup);
}

}  // namespace tessera::ir
