#pragma once
// Small helpers for building and inspecting IR.

#include <optional>
#include <string>
#include <unordered_set>

#include "ir/stmt.h"

namespace tessera::ir {

// The constant value of an immediate (or of a broadcast of one), if it is one.
std::optional<int64_t> as_const_int(const Expr& e);
std::optional<uint64_t> as_const_uint(const Expr& e);
std::optional<double> as_const_float(const Expr& e);
bool is_const(const Expr& e);
bool is_const(const Expr& e, int64_t value);
bool is_const_zero(const Expr& e);
bool is_const_one(const Expr& e);

// An immediate of type t (broadcast if t is a vector) holding value, wrapped to t's width.
Expr make_const(Type t, int64_t value);
Expr make_const(Type t, double value);
Expr make_zero(Type t);
Expr make_one(Type t);
Expr make_bool(bool value, int lanes = 1);
Expr const_true(int lanes = 1);
Expr const_false(int lanes = 1);

// The smallest and largest values of t, as constants.
Expr type_min(Type t);
Expr type_max(Type t);

// An Int(32) variable reference, the most common kind in lowering.
Expr int_var(const std::string& name);

// Whether e is a likely() or likely_if_innermost() mark, and e without the marks around it: a mark
// says which value a min, max or select likely takes, for loop partitioning, and never changes a
// value.
bool is_likely(const Expr& e);
Expr without_likely(Expr e);

// Whether the expression or statement mentions the variable.
bool uses_var(const Expr& e, const std::string& name);
bool uses_var(const Stmt& s, const std::string& name);

// The names of the variables an expression or statement mentions (shared subtrees walked once).
std::unordered_set<std::string> variables_read(const Expr& e);
std::unordered_set<std::string> variables_read(const Stmt& s);

// The names that the lets (of expressions and statements) and the loops inside a statement bind.
std::unordered_set<std::string> names_bound(const Stmt& s);

// The loop s is, or the one that s's chain of lets wraps; null if there is none.
const For* loop_under_lets(const Stmt& s);

}  // namespace tessera::ir
