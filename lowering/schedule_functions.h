#pragma once
// Builds the loop nest of a pipeline from its (inlined) environment: for every Func in
// realization order, a Realize (unless it is an output) around its production and the rest of the
// pipeline; each stage a nest of loops whose bounds are symbolic (loop_min/loop_max names), to be
// defined by bounds inference.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt schedule_functions(const Environment& env);

// The loop variables of a stage, innermost first: its RVars then its bare pure Vars.
struct StageLoop {
    std::string var;  // the pure Var or RVar name
    bool is_reduction;
    ir::Expr min, extent;  // for an RVar: its RDom bounds
};
std::vector<StageLoop> stage_loops(const lang::FunctionContents& f, int stage);

}  // namespace tessera::lowering
