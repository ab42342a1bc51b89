#pragma once
// Common-subexpression elimination: an expression written as a tree, where the same subtree occurs
// many times, rewritten so that each is computed once.

#include "ir/stmt.h"

namespace tessera::ir {

// e with every compound subexpression that occurs more than once (as equal trees, wherever they
// are) bound once by a Let around the result and read through its variable; the Lets come in order,
// each reading only those before it. The Lets of e are inlined first, so that repeats across them
// are found too. The value is e's. An expression that reads memory or calls anything impure is
// returned as it is. The names bound are fresh ("cse$<n>").
Expr eliminate_common_subexpressions(const Expr& e);

}  // namespace tessera::ir
