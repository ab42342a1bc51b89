#pragma once
// Contractions (reductions over RVars that keep two pure Vars or more, the first innermost: a
// matrix product, a convolution) are computed in register tiles of the Func that reads them point
// for point (see Group::register_tile). Two kinds of Funcs make that possible, which a plan makes
// before it schedules anything:
//  - an accumulator, by cache_write, for a contraction that no pure Func reads point for point (an
//    output): computed per register tile, the contraction's Func then copies each tile out of it;
//  - a packed copy of each input image that a register-tiled contraction reads along its innermost
//    Var and along no other pure Var (the B of C = A B, a convolution's weights), made per panel of
//    tiles with that dimension innermost, so that the tiles' vector loads read consecutive memory.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "schedule/auto/pipeline_analysis.h"
#include "schedule/auto/schedule_plan.h"

namespace tessera::autoschedule {

using PipelineFuncs = std::vector<std::pair<std::string, std::shared_ptr<lang::FunctionContents>>>;

// The Funcs to make for the pipeline's contractions, in the order they are made, as plans without
// directives. `funcs` are the pipeline's Funcs (pipeline_funcs).
std::vector<FuncPlan> contraction_funcs(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                                        const PipelineFuncs& funcs);

// analyze_pipeline of the pipeline as if the made Funcs were made, which they are only while it
// analyzes. They appear under their names in the plan, unscheduled, the packed copies marked;
// `inlined` names them so too.
PipelineAnalysis analyze_with(const std::vector<std::shared_ptr<lang::FunctionContents>>& outputs,
                              const PipelineFuncs& funcs, const std::vector<FuncPlan>& made,
                              const std::set<std::string>& inlined);

}  // namespace tessera::autoschedule
