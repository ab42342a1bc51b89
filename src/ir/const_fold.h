#pragma once
// Constant folding with exactly the semantics of generated code: integers wrap at their width,
// integer division and modulo are Euclidean and give zero for a zero divisor, float arithmetic is
// IEEE in the type's precision. Each function returns an undefined Expr where it does not fold:
// operands that are not scalar immediates, or a result that generated code might compute
// differently (a float cast out of the integer's range, min of NaN, float16).

#include <vector>

#include "ir/stmt.h"

namespace tessera::ir {

// A binary operation (Add ... Or) on two scalar immediates of the same type.
Expr fold_binary(IRKind op, const Expr& a, const Expr& b);
Expr fold_not(const Expr& a);
Expr fold_cast(Type t, const Expr& value);
Expr fold_reinterpret(Type t, const Expr& value);
// abs, floor, ceil, trunc and the bitwise operations on immediates; all_lanes_true and extract_lane
// of a broadcast.
Expr fold_intrinsic(const Call* op, const std::vector<Expr>& args);

}  // namespace tessera::ir
