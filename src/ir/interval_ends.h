#pragma once
// Arithmetic on the ends of intervals, where an undefined end is infinite. Shared by the files of
// interval arithmetic; not for other passes.

#include "ir/interval.h"

namespace tessera::ir::interval_ends {

// Whether intervals of type t keep symbolic ends: Int(32)/Int(64), assumed not to overflow, and
// floats. Wrapping types are bounded by constants, or by the expression itself.
bool keeps_symbolic_ends(Type t);

// Whether the interval is one value: both ends the same expression or the same constant.
bool is_point(const Interval& i);

// Sums, differences and products of ends, simplified; undefined where an operand is, or where
// folding the constants of an Int(32)/Int(64) end could wrap (any coefficient or constant at or
// beyond a quarter of the type's range counts as infinite).
Expr add(const Expr& a, const Expr& b);
Expr sub(const Expr& a, const Expr& b);
Expr mul(const Expr& a, const Expr& b);
Expr div(const Expr& a, const Expr& b);

// min and max of two lower ends (where undefined is -inf) or of two upper ends (+inf).
Expr min_of_lower(const Expr& a, const Expr& b);
Expr min_of_upper(const Expr& a, const Expr& b);
Expr max_of_lower(const Expr& a, const Expr& b);
Expr max_of_upper(const Expr& a, const Expr& b);

// The interval of constants r of type t; for types assumed not to overflow, an end at the type's
// extreme means "anywhere" and becomes unbounded.
Interval from_constant(const ConstantInterval& r, Type t);

// Whether the expression has more than `limit` nodes (counting shared subtrees once per use).
bool larger_than(const Expr& e, int limit);

}  // namespace tessera::ir::interval_ends
