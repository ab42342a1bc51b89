#pragma once
// The simplifier: constant folding with the exact semantics of generated code, canonical linear
// forms for integer arithmetic, and min/max/comparison/select rewrites proved with interval
// arithmetic.

#include <map>
#include <string>

#include "ir/interval.h"
#include "ir/stmt.h"

namespace tessera::ir {

// An equivalent expression, simplified. `known` gives intervals some variables are known to lie in
// (for example loop variables), which min, max, comparisons, division and modulo use:
// with x in [0, 10], min(x, 20) is x.
//
// Integer sums come back in a canonical linear form: terms in a stable order (see ExprLess), each
// with a constant coefficient, the constant last: ((x + 1) + (y - 1)) is (x + y), and
// (x*2 + y) - y is x*2. Float arithmetic is only folded, never reassociated.
//
// Int(32) and Int(64) arithmetic is assumed not to overflow when proving order (min(x, x + 1) is x),
// as in Halide; every rewrite of other types is exact under wrapping.
Expr simplify(const Expr& e, const std::map<std::string, Interval>& known = {});

// Simplifies every expression of s, in the scope of the loops, lets and ifs around it, and the
// statements themselves: lets of constants and variables are substituted and unused lets dropped;
// loops with no iterations are removed and loops of one iteration become a let of the loop
// variable; ifs with a constant condition and asserts of a condition proved true disappear. Walks
// long LetStmt chains and Blocks without recursion. A statement that simplifies to nothing comes
// back as Evaluate(0).
Stmt simplify(const Stmt& s, const std::map<std::string, Interval>& known = {});

// Whether cond (a bool, or a vector of bools) is certainly true wherever the variables lie in their
// known intervals. False means "not proved", not "false".
bool can_prove(const Expr& cond, const std::map<std::string, Interval>& known = {});

// The rewrites of simplify() that need no intervals: constant folding, linear forms, and the
// min/max/select rules that compare expressions structurally (min(x, x + 1) is still x). Cheap;
// interval arithmetic applies it to every bound it builds.
Expr simplify_local(const Expr& e);

}  // namespace tessera::ir
