#pragma once
// Intervals of values and the interval arithmetic of bounds inference: the range an expression
// takes as its variables range over intervals, and the boxes of Funcs and buffers a piece of IR
// touches.
//
// Over-approximation is allowed everywhere (an interval may be wider than the true range); an
// interval that misses a value the expression can take is a bug. Int(32) and Int(64) arithmetic is
// assumed not to overflow (see assumes_no_overflow); narrower and unsigned types wrap, and their
// intervals account for it.

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "ir/constant_bounds.h"
#include "ir/stmt.h"

namespace tessera::ir {

// The values [min, max]. An undefined end is unbounded on that side (-inf or +inf).
struct Interval {
    Expr min, max;

    Interval() = default;
    Interval(Expr lo, Expr hi) : min(std::move(lo)), max(std::move(hi)) {}
    static Interval everything() { return Interval(); }
    static Interval single_point(const Expr& e) { return Interval(e, e); }

    bool has_lower_bound() const { return min.defined(); }
    bool has_upper_bound() const { return max.defined(); }
    bool is_bounded() const { return min.defined() && max.defined(); }
    bool is_everything() const { return !min.defined() && !max.defined(); }
    // Whether both ends are the same expression object (as single_point() makes them).
    bool is_single_point() const { return min.defined() && min.same_as(max); }
};

// One interval per dimension of a Func's or buffer's coordinates.
using Box = std::vector<Interval>;

// The smallest interval holding both (ends simplified; unbounded wins).
Interval interval_union(const Interval& a, const Interval& b);
// The values in both (ends simplified; a bounded end wins over an unbounded one).
Interval interval_intersection(const Interval& a, const Interval& b);

// The range of values e takes as each variable in scope ranges over its interval. Variables not in
// scope stand for themselves: bounds of x + 1 with x in [a, b] are [a + 1, b + 1], and with x not in
// scope they are [x + 1, x + 1]. The ends are simplified and have e's element type.
//
// What is unknown: calls to Funcs and images, loads and other opaque values span their type. For
// 8- and 16-bit and unsigned types (and bool) that is a finite range, e.g. [0, 255] for uint8, so
// results of those types are always bounded. For Int(32), Int(64) and floats an unknown end is
// left undefined (unbounded) rather than set to the type's extreme, so that is_bounded() tells
// bounds inference whether it has a usable region.
Interval bounds_of_expr(const Expr& e, const std::map<std::string, Interval>& scope = {});

// Knobs for callers that bound many expressions in one scope, like the simplifier.
struct BoundsOptions {
    // The constant ranges of the scope's variables, if the caller keeps them up to date (see
    // constant_scope); they are derived from the scope on demand otherwise.
    const ConstantScope* constant_scope = nullptr;
    // A bound whose expression grows past this many nodes is replaced by a constant bound (or
    // dropped), so that nested products and quotients of intervals cannot blow up.
    int max_size = 1000;
};
Interval bounds_of_expr(const Expr& e, const std::map<std::string, Interval>& scope,
                        const BoundsOptions& options);

// The constant range of each integer variable of a scope whose interval, bounded in turn, gives one.
ConstantScope constant_scope(const std::map<std::string, Interval>& scope);

// For each Func or image called (Call nodes of CallType::Func or CallType::Image, keyed by the
// call's name) or provided (Provide nodes, keyed by name), the per-dimension union of the intervals
// of its coordinates over every site. Walking a Stmt, a For loop's variable ranges over [min, min +
// extent - 1] (with min and extent themselves bounded in the enclosing scope), Let and LetStmt bind
// the intervals of their values, and IfThenElse and Select narrow, in each branch, the intervals of
// the variables their condition compares. The boxes are in terms of the variables free in s (and those in
// scope's intervals).
std::map<std::string, Box> boxes_touched(const Expr& e, const std::map<std::string, Interval>& scope = {});
std::map<std::string, Box> boxes_touched(const Stmt& s, const std::map<std::string, Interval>& scope = {});
// The box of one Func or image in boxes_touched(s), or an empty box where s does not touch it; faster,
// as it bounds only the lets and loops that box depends on.
Box box_touched(const Stmt& s, const std::string& name);

// Narrowing a scope by a condition known to be true (or false) where some code runs: `x < n`
// bounds x above by the upper bound of n - 1, and so on for the variables in scope that the
// condition's comparisons (possibly inside && or, negated, ||) isolate with coefficient +-1.
enum class Narrowing {
    Intersect,        // the new end is min/max of the old one and the condition's (tightest)
    PreferCondition,  // the condition's end replaces the old one unless both are constants
};
struct ScopeChange {
    std::string name;
    Interval previous;
};
// Narrows scope in place and returns the changes, for restore_scope().
std::vector<ScopeChange> narrow_scope(const Expr& condition, bool holds,
                                      std::map<std::string, Interval>& scope,
                                      Narrowing how = Narrowing::Intersect);
void restore_scope(const std::vector<ScopeChange>& changes, std::map<std::string, Interval>& scope);

// "[min, max]", with "-inf" and "+inf" for unbounded ends.
std::ostream& operator<<(std::ostream& out, const Interval& i);

}  // namespace tessera::ir
