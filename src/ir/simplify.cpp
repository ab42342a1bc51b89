#include "ir/simplify.h"

#include "ir/ir_util.h"
#include "ir/simplifier.h"

namespace tessera::ir {

Expr simplify(const Expr& e, const std::map<std::string, Interval>& known) {
    if (!e.defined()) return e;
    Simplifier s(/*use_intervals=*/true);
    s.assume(known);
    s.count_binders(e);
    return s.mutate(e);
}

Stmt simplify(const Stmt& stmt, const std::map<std::string, Interval>& known) {
    if (!stmt.defined()) return stmt;
    Simplifier s(/*use_intervals=*/true);
    s.assume(known);
    s.count_binders(stmt);
    Stmt r = s.mutate(stmt);
    return r.defined() ? r : Evaluate::make(make_zero(Int(32)));
}

bool can_prove(const Expr& cond, const std::map<std::string, Interval>& known) {
    return is_const_one(simplify(cond, known));
}

Expr simplify_local(const Expr& e) {
    if (!e.defined()) return e;
    return Simplifier(/*use_intervals=*/false).mutate(e);
}

Expr simplify_root(const Expr& e) {
    if (!e.defined()) return e;
    Simplifier s(/*use_intervals=*/false);
    s.simplify_root_only();
    return s.mutate(e);
}

}  // namespace tessera::ir
