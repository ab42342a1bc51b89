#pragma once
// Replacing variables by expressions.

#include <map>
#include <string>

#include "ir/stmt.h"

namespace tessera::ir {

// Replaces free occurrences of the named variables (those not rebound by an inner Let, LetStmt
// or For) by the given expressions.
Expr substitute(const std::string& name, const Expr& replacement, const Expr& e);
Stmt substitute(const std::string& name, const Expr& replacement, const Stmt& s);
Expr substitute(const std::map<std::string, Expr>& replacements, const Expr& e);
Stmt substitute(const std::map<std::string, Expr>& replacements, const Stmt& s);

}  // namespace tessera::ir
