#pragma once
// A schedule as the automatic scheduler makes it: calls of the language's scheduling primitives,
// kept as data, so that the same list is applied through the public API and printed as the C++
// source a user can paste in its place.

#include <memory>
#include <string>
#include <vector>

#include "lang/function.h"
#include "tessera/schedule.h"

namespace tessera::autoschedule {

// A loop named in a primitive: a Var, or an RVar (or a loop split from one).
struct LoopName {
    std::string name;
    bool is_rvar = false;
};

struct Directive {
    enum class Kind {
        ComputeInline,
        ComputeRoot,
        ComputeAt,
        Split,
        Fuse,
        Reorder,
        Vectorize,
        Unroll,
        Parallel
    };
    Kind kind;
    int stage = 0;                // 0: the pure definition; i: update(i - 1)
    std::vector<LoopName> loops;  // in the primitive's order of arguments
    int factor = 0;               // Split, Vectorize and Unroll with a factor (0: without)
    TailStrategy tail = TailStrategy::Auto;
    std::string consumer;  // ComputeAt: the Func, by its name in the plan
};

struct FuncPlan {
    std::string name;  // unique in the pipeline
    std::shared_ptr<lang::FunctionContents> func;
    size_t index = 0;  // in realization order: Pipeline::get_func(index)
    std::vector<Directive> directives;
};

struct SchedulePlan {
    std::vector<FuncPlan> funcs;  // in realization order
};

// The schedules of a plan's Funcs as they are, to put back after the plan was tried (for its
// features) or failed halfway (a record that does not fit the pipeline).
class ScheduleSnapshot {
public:
    explicit ScheduleSnapshot(const SchedulePlan& plan);
    void restore() const;

private:
    struct Saved {
        std::shared_ptr<lang::FunctionContents> func;
        schedule::FuncSchedule schedule;
        lang::Definition pure;
        std::vector<lang::Definition> updates;
    };
    std::vector<Saved> saved_;
};

// Calls the primitives on the Funcs (a CompileError there is a bug of the scheduler that made it).
void apply_plan(const SchedulePlan& plan);

// The plan as C++ statements over a Pipeline named `pipeline`: one statement per scheduled stage.
std::string plan_source(const SchedulePlan& plan);

}  // namespace tessera::autoschedule
