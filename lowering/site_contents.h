#pragma once
// What is computed and stored directly at one site of the loop nest: the body of a loop, or the
// whole pipeline. Productions inside an inner loop belong to that loop's site, not this one.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/stmt.h"

namespace tessera::lowering {

struct SiteContents {
    std::vector<std::string> produced;  // in order of nesting: producers before their consumers
    std::map<std::string, ir::Stmt> produce, consume, realize;  // the bodies, by Func
};

SiteContents site_contents(const ir::Stmt& site_body);

// The chain of lets at the start of a site's body (bounds inference puts each Func's bounds
// there), outermost first, with each value expanded in terms of the variables outside the chain.
std::map<std::string, ir::Expr> expanded_site_lets(const ir::Stmt& site_body);

}  // namespace tessera::lowering
