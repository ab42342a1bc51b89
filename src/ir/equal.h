#pragma once
// Structural equality and a deep order on IR.

#include "ir/stmt.h"

namespace tessera::ir {

// Whether two trees are the same: same node kinds, types, names, constant values (bit for bit, so
// 0.0 and -0.0 differ and a NaN equals the same NaN) and children. Undefined equals undefined.
bool equal(const Expr& a, const Expr& b);
bool equal(const Stmt& a, const Stmt& b);

// A total order on expressions consistent with equal(): negative, zero or positive. Variables order
// by name, so orders built from it are stable from run to run.
int compare(const Expr& a, const Expr& b);

// compare() as a strict weak order, for std::map and std::sort.
struct ExprLess {
    bool operator()(const Expr& a, const Expr& b) const { return compare(a, b) < 0; }
};

}  // namespace tessera::ir
