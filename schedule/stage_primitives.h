#pragma once
// The loop-transforming primitives of one stage (a Func's pure definition or one of its updates),
// each checked when it is called: a mistake is a CompileError that names the Func, the stage, the
// Var and what to do instead.

#include <string>
#include <vector>

#include "lang/function.h"
#include "schedule/func_schedule.h"

namespace tessera::schedule {

// A stage of a Func, as the primitives and their messages see it.
struct StageRef {
    lang::FunctionContents& function;
    int stage;                             // 0: the pure definition; k: update k - 1
    std::vector<int> specialization = {};  // the path through specializations, if any

    lang::Definition& definition() const;
    // "f" for the pure definition, "f.update(0)" for the first update: how the user wrote it.
    std::string describe() const;
};

// The loops of a stage before any primitive, innermost first: its RVars, then the pure Vars it is
// defined over.
std::vector<Dim> default_dims(const lang::Definition& d);

// The stage's schedule with its loops filled in.
StageSchedule& stage_schedule(const StageRef& s);

// The loop a user's name refers to: the dimension called `name`, or the one whose last component is
// `name` ("x.xo" answers to xo). A CompileError naming `primitive` if there is none.
Dim& find_dim(const StageRef& s, const std::string& name, const std::string& primitive);

void split(const StageRef& s, const std::string& old_var, const std::string& outer, const std::string& inner,
           const Expr& factor, TailStrategy tail);
void fuse(const StageRef& s, const std::string& inner, const std::string& outer, const std::string& fused);
void rename(const StageRef& s, const std::string& old_var, const std::string& new_var);
// The named loops take the places these loops had, innermost first in the order given.
void reorder(const StageRef& s, const std::vector<std::string>& vars);
// Marks a loop parallel, vectorized, unrolled or serial; refuses parallel and vectorized loops
// whose iterations depend on each other.
void set_loop_kind(const StageRef& s, const std::string& var, ir::ForKind kind);
// The primitive that gives a loop its kind, as messages name it: "parallel", "gpu_threads", ...
const char* kind_primitive(ir::ForKind kind);

// The loops of a stage, outermost first, as a message lists them ("y.yo, x.xo, y.yi, x.xi").
std::string describe_loops(const StageSchedule& schedule);

}  // namespace tessera::schedule
