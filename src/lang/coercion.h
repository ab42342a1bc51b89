#pragma once
// The type coercion of the front end's operators (the rules at the top of tessera/operators.h),
// shared by the files that build operator and math expressions.

#include "tessera/expr.h"

namespace tessera::lang {

// Throws CompileError naming op when e is undefined.
void check_defined(const Expr& e, const char* op);
// e broadcast to the given number of lanes (unchanged when it has them).
Expr broadcast_to(Expr e, int lanes);
// Coerces a and b to their common type.
void match_types(Expr& a, Expr& b, const char* op);
// x when it is a float, otherwise x converted to float32.
Expr float_of(Expr x, const char* fn);

}  // namespace tessera::lang
