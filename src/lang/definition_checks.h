#pragma once
// The checks that turn a wrong definition into a CompileError at the line that makes it.

#include <string>
#include <vector>

#include "lang/function.h"

namespace tessera::lang {

// The arguments of a call or a definition of f: right count, integer types; converted to Int(32).
std::vector<Expr> checked_call_args(const FunctionContents& f, const std::vector<Expr>& args,
                                    const char* what);

// A pure definition f(vars) = values: distinct Vars, no free Vars or RVars on the right.
void check_pure_definition(const FunctionContents& f, const std::vector<Expr>& args,
                           const std::vector<Expr>& values);

// An update f(args) = values: types match the pure definition, Vars on the right appear bare on
// the left, all RVars come from one RDom. Returns that RDom (null if none).
std::shared_ptr<ReductionDomainContents> check_update_definition(const FunctionContents& f,
                                                                 const std::vector<Expr>& args,
                                                                 const std::vector<Expr>& values);

// "f(x, y) = x + y", for messages.
std::string describe_definition(const std::string& name, const std::vector<Expr>& args,
                                const std::vector<Expr>& values);

}  // namespace tessera::lang
