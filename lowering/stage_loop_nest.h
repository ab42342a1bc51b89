#pragma once
// The loop nest of one stage of a Func, built from its schedule.

#include <vector>

#include "ir/stmt.h"
#include "lang/function.h"
#include "schedule/func_schedule.h"

namespace tessera::lowering {

// The name of the loop of one iteration around each stage's nest: Var::outermost().
std::string outermost_dim();

// The definition a stage computes: 0 is the pure definition, k is update k - 1.
const lang::Definition& definition_of(const lang::FunctionContents& f, int stage);

// The definitions of a stage: the general one and, in order, every specialization's, recursively.
std::vector<const lang::Definition*> stage_definitions(const lang::FunctionContents& f, int stage);

// The loops of one definition of a stage, innermost first: its schedule's, or the default order.
std::vector<schedule::Dim> definition_dims(const lang::Definition& d);
// The loops of every definition of a stage (its specializations' too).
std::vector<schedule::Dim> stage_dims(const lang::FunctionContents& f, int stage);

// The original Vars of a stage that bounds inference gives a region (loop_min/loop_max names): the
// pure Vars it is defined over.
std::vector<std::string> stage_pure_vars(const lang::FunctionContents& f, int stage);

// The stage's loops, outermost first, each running over [dim_loop_min, + dim_loop_extent) of its
// dimension. The extents follow from the region of each pure Var, [loop_min, loop_max], left for
// bounds inference to define, and from the RDom for RVars. Innermost, lets give each original Var
// its value from the loops the splits made, guards skip the points a GuardWithIf split adds, and the
// RDom's predicate guards the definition itself. A stage with specializations is an if-else chain
// of their nests, tried in order, ending with the general one (or an error, for specialize_fail).
ir::Stmt build_stage_loop_nest(const lang::FunctionContents& f, int stage, bool is_output);

}  // namespace tessera::lowering
