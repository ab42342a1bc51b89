#pragma once
// The Funcs of one pipeline as lowering sees them: private copies of their definitions, keyed by
// names unique within the pipeline, in realization order.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lang/function.h"

namespace tessera::lowering {

struct Environment {
    // Copies of the pipeline's Functions. Calls inside their definitions are renamed to the keys
    // of this map; lowering may rewrite the copies (inlining) without touching the user's Funcs.
    std::map<std::string, lang::FunctionContents> functions;
    // Producers before consumers. Inlined Funcs are removed by inline_functions.
    std::vector<std::string> order;
    std::vector<std::string> outputs;
    // The name of each of the user's Funcs in this pipeline, for resolving loop levels.
    std::map<const lang::FunctionContents*, std::string> names;

    const lang::FunctionContents& function(const std::string& name) const;
    bool is_output(const std::string& name) const;
    // The Func a flat buffer or allocation holds values of: its name, or name.<i> for a Tuple's.
    std::string func_of_buffer(const std::string& buffer) const;
};

// Finds every Func the outputs depend on, names them uniquely and orders them.
Environment build_environment(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs);

// Every Func the outputs depend on (the outputs included), producers first.
std::vector<std::shared_ptr<lang::FunctionContents>> pipeline_functions(
    const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs);

// Applies f to every Expr of a definition (arguments, values, RDom bounds and predicate).
void for_each_definition(lang::FunctionContents& f, const std::function<Expr(const Expr&)>& rewrite);

}  // namespace tessera::lowering
