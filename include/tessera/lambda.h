#pragma once
// lambda(x, y, e): an anonymous Func defined as f(x, y) = e, as Halide's lambda() helper. With no
// Vars, lambda(e) is defined over the implicit Vars _0, _1, ... that e uses (none: zero
// dimensions).

#include "tessera/expr.h"
#include "tessera/func.h"
#include "tessera/var.h"

namespace tessera {

Func lambda(const Expr& e);
Func lambda(const Var& x, const Expr& e);
Func lambda(const Var& x, const Var& y, const Expr& e);
Func lambda(const Var& x, const Var& y, const Var& z, const Expr& e);
Func lambda(const Var& x, const Var& y, const Var& z, const Var& w, const Expr& e);
Func lambda(const Var& x, const Var& y, const Var& z, const Var& w, const Var& v, const Expr& e);

}  // namespace tessera
