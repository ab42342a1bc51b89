#pragma once
// The rest of Halide's inline reductions (sum, product, maximum, minimum, argmax and argmin of one
// expression are declared in <tessera/func.h>):
//   - with the RDom stated first, sum(r, e): only r is reduced over; any other RDom that e uses
//     stays free in the result, which can then be used inside a reduction over that RDom;
//   - with a Func to use for the reduction instead of an anonymous one, sum(e, f) (f must have no
//     definition yet; it can then be scheduled);
//   - saturating_sum, a sum that clamps to the type's range instead of wrapping.

#include <string>

#include "tessera/expr.h"
#include "tessera/func.h"
#include "tessera/rdom.h"
#include "tessera/tuple.h"

namespace tessera {

Expr saturating_sum(Expr e, const std::string& name = "saturating_sum");

Expr sum(const RDom& r, Expr e, const std::string& name = "sum");
Expr saturating_sum(const RDom& r, Expr e, const std::string& name = "saturating_sum");
Expr product(const RDom& r, Expr e, const std::string& name = "product");
Expr maximum(const RDom& r, Expr e, const std::string& name = "maximum");
Expr minimum(const RDom& r, Expr e, const std::string& name = "minimum");
Tuple argmax(const RDom& r, Expr e, const std::string& name = "argmax");
Tuple argmin(const RDom& r, Expr e, const std::string& name = "argmin");

Expr sum(Expr e, const Func& f);
Expr saturating_sum(Expr e, const Func& f);
Expr product(Expr e, const Func& f);
Expr maximum(Expr e, const Func& f);
Expr minimum(Expr e, const Func& f);
Tuple argmax(Expr e, const Func& f);
Tuple argmin(Expr e, const Func& f);
Expr sum(const RDom& r, Expr e, const Func& f);
Expr saturating_sum(const RDom& r, Expr e, const Func& f);
Expr product(const RDom& r, Expr e, const Func& f);
Expr maximum(const RDom& r, Expr e, const Func& f);
Expr minimum(const RDom& r, Expr e, const Func& f);
Tuple argmax(const RDom& r, Expr e, const Func& f);
Tuple argmin(const RDom& r, Expr e, const Func& f);

}  // namespace tessera
