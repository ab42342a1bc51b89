#pragma once
// The simplifier's machinery, shared by simplify_expr.cpp (expression rules), simplify_scope.cpp
// (lets, loops and what they let it know) and simplify.cpp (the entry points). Not for other passes:
// call the functions of ir/simplify.h.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/constant_bounds.h"
#include "ir/equal.h"
#include "ir/interval.h"
#include "ir/linear_form.h"
#include "ir/modulus_remainder.h"
#include "ir/mutator.h"

namespace tessera::ir {

class Simplifier : public Mutator {
public:
    // With use_intervals false the simplifier proves nothing from ranges of values: that is
    // simplify_local, which interval arithmetic calls on every bound it builds.
    explicit Simplifier(bool use_intervals) : use_intervals(use_intervals) {}
    // Only the root is rewritten: its operands are taken as simplified already (interval
    // arithmetic, combining bounds it has simplified).
    void simplify_root_only() { shallow = true; }

    // Facts that hold throughout: intervals of free variables.
    void assume(const std::map<std::string, Interval>& known);
    // How often each name is bound (by Let, LetStmt or For) in what is about to be simplified:
    // a let of a variable is substituted only where no inner binder can capture that variable.
    void count_binders(const Expr& e);
    void count_binders(const Stmt& s);

    using Mutator::mutate;
    Expr mutate(const Expr& e) override;

protected:
    // ---- Expressions (simplify_expr.cpp) ----
    Expr visit(const Variable* op) override;
    Expr visit(const Cast* op) override;
    Expr visit(const Reinterpret* op) override;
    Expr visit(const Add* op) override;
    Expr visit(const Sub* op) override;
    Expr visit(const Mul* op) override;
    Expr visit(const Div* op) override;
    Expr visit(const Mod* op) override;
    Expr visit(const Min* op) override;
    Expr visit(const Max* op) override;
    Expr visit(const EQ* op) override;
    Expr visit(const NE* op) override;
    Expr visit(const LT* op) override;
    Expr visit(const LE* op) override;
    Expr visit(const GT* op) override;
    Expr visit(const GE* op) override;
    Expr visit(const And* op) override;
    Expr visit(const Or* op) override;
    Expr visit(const Not* op) override;
    Expr visit(const Select* op) override;
    Expr visit(const Ramp* op) override;
    Expr visit(const Call* op) override;

    // ---- Scopes (simplify_scope.cpp) ----
    Expr visit(const Let* op) override;
    Stmt visit(const LetStmt* op) override;
    Stmt visit(const For* op) override;
    Stmt visit(const IfThenElse* op) override;
    Stmt visit(const AssertStmt* op) override;
    Stmt visit(const Evaluate* op) override;

private:
    const bool use_intervals;
    bool shallow = false, root_done = false;
    // Inside the condition of a require(): see visit(const Call*).
    int in_requirement = 0;
    // Intervals of the variables in scope (known facts, loop variables, let-bound names), their
    // constant ranges, and the lets substituted by their values.
    std::map<std::string, Interval> scope;
    ConstantScope constants;
    std::unordered_map<std::string, Expr> replacements;
    // How often each name appears in the ends of the intervals in scope, and how many intervals have
    // an end that is not a constant.
    std::unordered_map<std::string, int> referenced;
    std::unordered_set<std::string> symbolic_names;
    // When each name in scope was bound: intervals are written in terms of names bound before them,
    // so proofs eliminate variables from the latest bound to the earliest.
    std::unordered_map<std::string, int> binding_order;
    int bindings = 0;
    std::unordered_map<std::string, int> binder_count;
    std::unordered_map<std::string, int> bound_now;  // binders of each name around the current node
    // Results for nodes shared with other trees, valid until the scope changes.
    std::unordered_map<const ExprNode*, std::pair<Expr, Expr>> memo;
    // Each name's version: a new one whenever its interval, constant range or binding order
    // changes. A proof depends only on the names it reads and, transitively, the names their
    // intervals read.
    std::unordered_map<std::string, uint64_t> versions;
    uint64_t clock = 0;
    // Bounds found by eliminate_scope_variables, lower [0] and upper [1], with the versions of the
    // names they depend on. The same bound is asked for under many scopes that differ only in names
    // it does not read (each Let inside an expression is a new scope).
    struct Eliminated {
        std::vector<std::pair<std::string, uint64_t>> depends_on;
        Expr bound;
    };
    std::map<Expr, Eliminated, ExprLess> eliminated[2];

    // ---- Binding names (simplify_scope.cpp) ----
    struct Saved {
        std::string name;
        std::optional<Interval> interval;
        std::optional<ConstantInterval> constant;
        std::optional<int> order;
        std::optional<Expr> replacement;
        std::vector<std::pair<std::string, Interval>> hidden;
        std::vector<int> hidden_order;
    };
    // Enters the scope of a binder of `name`: either substituted by `replacement`, or ranging over
    // `interval` (or over anything, if it has none).
    Saved enter(const std::string& name, const std::optional<Interval>& interval,
                const Expr& replacement = Expr());
    void leave(Saved& saved);
    // Sets (or, with no interval, removes) the interval of a name, keeping the bookkeeping above.
    void set_interval(const std::string& name, const std::optional<Interval>& interval,
                      bool with_constant = true);
    void count_references(const Interval& i, int delta);
    void touch(const std::string& name) { versions[name] = ++clock; }
    std::vector<std::pair<std::string, uint64_t>> dependencies(const Expr& e) const;
    bool still_valid(const Eliminated& cached) const;
    std::optional<ConstantInterval> constant_range(const Interval& i) const;
    std::optional<Interval> binding_interval(const Expr& value);
    bool can_substitute(const Expr& value) const;
    Stmt in_branch(const Expr& condition, bool holds, const Stmt& s);

    // ---- Proofs (simplify_expr.cpp) ----
    // Which ends of a range a proof needs: refining an end from symbolic intervals is the costly
    // part, and a proof of a <= b only needs the lower end of b - a.
    enum class Ends { both, lower };
    // The constant range e is proved to lie in, using the intervals in scope; empty if e is not an
    // integer. An end not asked for may be looser than it could be.
    std::optional<ConstantInterval> proven_range(const Expr& e, Ends ends = Ends::both);
    void refine_range(ConstantInterval& r, const Expr& e, Ends ends);
    Expr eliminate_scope_variables(const Expr& e, bool lower);
    Expr eliminate_uncached(Expr e, bool lower);
    ConstantInterval form_range(const LinearForm& f);
    // Whether a <= b is proved (integers only).
    bool prove_le(const Expr& a, const Expr& b);
    std::optional<ConstantInterval> difference_range(const Expr& a, const Expr& b, Ends ends = Ends::both);
    bool mentions_symbolic_interval(const Expr& e);

    // ---- Rules (simplify_expr.cpp) ----
    Expr linear(const Expr& original);
    Expr as_written(const Expr& original);
    Expr arithmetic(const Expr& original, IRKind kind, const Expr& a, const Expr& b);
    Expr vector_arithmetic(IRKind kind, const Expr& a, const Expr& b);
    Expr div_mod(const Expr& original, IRKind kind, const Expr& a, const Expr& b);
    Expr div_mod_by_constant(IRKind kind, const Expr& a, Int128 k);
    Expr div_mod_of_aligned_ramp(IRKind kind, const Expr& a, Int128 k);
    Expr split_multiples(IRKind kind, const Expr& a, Int128 k);
    Expr min_max(const Expr& original, bool is_min, const Expr& a, const Expr& b);
    Expr nested_min_max(bool is_min, const Expr& a, const Expr& b);
    Expr comparison(const Expr& original, IRKind kind, const Expr& a, const Expr& b);
    Expr ordered_comparison(IRKind kind, const Expr& a, const Expr& b);
    Expr cancel_common_terms(IRKind kind, const Expr& a, const Expr& b);
    Expr negation(const Expr& a, const Expr& original);
    Expr select(const Expr& original, const Expr& c, const Expr& t, const Expr& f);
};

// simplify_local of an expression whose operands are simplified already: only its root is rewritten.
Expr simplify_root(const Expr& e);

}  // namespace tessera::ir
