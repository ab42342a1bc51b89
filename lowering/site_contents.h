#pragma once
// What is computed and stored directly at one site of the loop nest: the body of a loop, or the
// whole pipeline. Productions inside an inner loop belong to that loop's site, not this one.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/stmt.h"
#include "lang/function.h"

namespace tessera::lowering {

struct SiteContents {
    std::vector<std::string> produced;  // in order of nesting: producers before their consumers
    std::map<std::string, ir::Stmt> produce, consume, realize;  // the bodies, by Func
};

SiteContents site_contents(const ir::Stmt& site_body);

// The chain of lets at the start of a site's body (bounds inference puts each Func's bounds
// there), outermost first, with each value expanded in terms of the variables outside the chain.
std::map<std::string, ir::Expr> expanded_site_lets(const ir::Stmt& site_body);

// Whether the pure definition's loop over var is split or fused. Its loop then may compute points
// outside [min, max] of the lets (RoundUp computes whole multiples of the factor), so sliding
// windows and folded storage, which trust those lets, do not apply.
bool pure_loop_is_split(const lang::FunctionContents& f, const std::string& var);

}  // namespace tessera::lowering
