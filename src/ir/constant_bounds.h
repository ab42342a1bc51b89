#pragma once
// Exact integer ranges of integer expressions. The cheap, constant-only companion of bounds_of_expr
// (ir/interval.h): the simplifier uses it to prove comparisons, and interval arithmetic falls back
// on it where symbolic bounds would be unsound or too large.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/stmt.h"

namespace tessera::ir {

// Wide enough for every 64-bit value, signed or not, and for sums of a few of them.
__extension__ typedef __int128 Int128;

// Whether arithmetic of type t is assumed never to overflow when reasoning about order (bounds,
// min/max, comparisons, division rewrites). True for Int(32) and Int(64), where index arithmetic
// lives, as in Halide. Narrower integers and all unsigned types wrap, and every analysis accounts
// for the wrap. Constant folding always wraps, whatever the type.
bool assumes_no_overflow(Type t);

// The value of an integer immediate (or a broadcast of one), of any width and signedness.
std::optional<Int128> as_exact_int(const Expr& e);

// Euclidean division and remainder (the remainder is never negative) on exact integers; by zero both
// give zero, as the language defines.
Int128 euclidean_div(Int128 a, Int128 b);
Int128 euclidean_mod(Int128 a, Int128 b);

// A closed range [min, max] of integers, held exactly.
struct ConstantInterval {
    Int128 min = 0, max = 0;

    static ConstantInterval point(Int128 v) { return {v, v}; }
    // Every value of an integer type (bool is [0, 1]); t must be an integer type.
    static ConstantInterval of_type(Type t);
    bool is_point() const { return min == max; }
    bool contains(Int128 v) const { return min <= v && v <= max; }
};

// What an operation can give on operands in the given ranges, in exact arithmetic. Results are
// saturated far beyond any 64-bit value; pass them through fit_to_type() for a type's wrapping.
ConstantInterval operator+(const ConstantInterval& a, const ConstantInterval& b);
ConstantInterval operator-(const ConstantInterval& a, const ConstantInterval& b);
ConstantInterval operator*(const ConstantInterval& a, const ConstantInterval& b);
ConstantInterval euclidean_div(const ConstantInterval& a, const ConstantInterval& b);
ConstantInterval euclidean_mod(const ConstantInterval& a, const ConstantInterval& b);
ConstantInterval range_min(const ConstantInterval& a, const ConstantInterval& b);
ConstantInterval range_max(const ConstantInterval& a, const ConstantInterval& b);
ConstantInterval range_union(const ConstantInterval& a, const ConstantInterval& b);

// The values an operation of type t really gives, given the values it would give without wrapping.
// For wrapping types: the range itself when it fits, the whole type otherwise. For types assumed not
// to overflow: the exact range as it is, even past the type's range. (Clamping it to the type would
// be wrong for the partial sums of a reordered linear form, whose exact values can leave the range
// although the program's values do not.) Callers treat ends at or past the type's extremes as
// unbounded.
ConstantInterval fit_to_type(const ConstantInterval& r, Type t);

// A stand-in for an unbounded end, far beyond any 64-bit value.
constexpr Int128 kUnboundedEnd = Int128(1) << 100;

// The range of an integer or bool expression (of the elements, for a vector), given ranges of some
// variables; any other variable spans its type. Empty for expressions of other types.
using ConstantScope = std::unordered_map<std::string, ConstantInterval>;
std::optional<ConstantInterval> constant_bounds(const Expr& e, const ConstantScope& vars = {});

// The same, with variables looked up by a function (which returns nothing for a variable that spans
// its type).
using ConstantLookup = std::function<std::optional<ConstantInterval>(const std::string& name)>;
std::optional<ConstantInterval> constant_bounds(const Expr& e, const ConstantLookup& lookup);

}  // namespace tessera::ir
