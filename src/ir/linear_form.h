#pragma once
// Sums of terms with constant coefficients: the canonical form the simplifier gives integer
// arithmetic, and the way it cancels terms ((x + 3) - (x + 1) is 2).

#include <functional>
#include <map>
#include <optional>

#include "ir/equal.h"

namespace tessera::ir {

// Whether linear forms apply to values of type t: scalar integers other than bool.
bool has_linear_form(Type t);

// sum(coefficient * term) + constant. The arithmetic is that of the integers modulo 2^bits of the
// type, which is how generated code computes, so rewriting an expression into its linear form is
// exact for wrapping and non-wrapping types alike. Coefficients are stored sign-extended from the
// type's width and are never zero.
struct LinearForm {
    Type type;
    std::map<Expr, int64_t, ExprLess> terms;
    int64_t constant = 0;
    // For types assumed not to overflow (Int(32), Int(64)): false once the exact value of a
    // coefficient or of the constant left the type's range. The form still equals the expression
    // in wrapping arithmetic, but evaluating it could overflow where the expression did not, so
    // the simplifier does not use it.
    bool exact = true;

    explicit LinearForm(Type t) : type(t) {}
    void add_term(const Expr& term, int64_t coefficient);
    void add_constant(int64_t c);
    void add(const LinearForm& other, int64_t scale);
    bool is_constant() const { return terms.empty(); }
    // The expression: terms with positive coefficients first (in the order of ExprLess), then those
    // with negative ones subtracted, then the constant. Deterministic and readable: "x*2 + y - z + 3".
    Expr to_expr() const;
};

// The linear form of e, whose Add, Sub and Mul nodes are taken apart here. Other subexpressions
// (and Add/Sub/Mul nodes shared with other trees, to keep DAGs from being walked once per path) are
// first rewritten by `simplify`, and taken apart further if that makes them sums.
LinearForm gather_linear_form(const Expr& e, const std::function<Expr(const Expr&)>& simplify);

// The linear form of an expression that is already simplified; nothing is rewritten.
LinearForm linear_form_of(const Expr& e);

// x + min(y - x, z) as min(y, x + z): a sum with a min or max term (of coefficient 1 or -1) whose
// other terms cancel inside an operand of it, or inside a min or max there, with those terms taken
// inside the min or max; undefined where there is none. Equal as integers, for types assumed not
// to overflow only, and used by interval arithmetic: taken apart, a tile's start x * 16 and its
// shift min(0, e - x * 16 - 16) forget that they move together, and the distributed form
// min(x * 16, e - 16) does not. (Not a simplification: x + z may overflow where y - x did not.)
Expr sum_into_min_max(const Expr& sum);

// a - b as a linear form computed exactly, for expressions the compiler builds to reason with
// (not arithmetic of the program, which wraps). Empty where a coefficient or the constant of the
// exact difference does not fit the type, or where a or b folds to a form that is not exact.
std::optional<LinearForm> exact_difference(const Expr& a, const Expr& b);

}  // namespace tessera::ir
