#pragma once
// A schedule as the automatic scheduler makes it: calls of the language's scheduling primitives,
// kept as data, so that the same list is applied through the public API and printed as the C++
// source a user can paste in its place.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lang/function.h"
#include "tessera/memory_type.h"
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
        Parallel,
        ReorderStorage,
        // The pure definition specialized to outputs at least `at_least` wide in the dimensions of
        // `loops` (pure Vars): f.specialize(f.output_buffer().dim(d).extent() >= n && ...).
        Specialize
    };
    Kind kind;
    int stage = 0;                // 0: the pure definition; i: update(i - 1)
    std::vector<LoopName> loops;  // in the primitive's order of arguments
    int factor = 0;               // Split, Vectorize and Unroll with a factor (0: without)
    TailStrategy tail = TailStrategy::Auto;
    std::string consumer;       // ComputeAt: the Func, by its name in the plan
    std::vector<int> at_least;  // Specialize: per Var of `loops`
    // Of the pure definition's loop directives: 1 where they schedule the specialization that the
    // Func's Specialize directive (before them) made, 0 for the general definition.
    int specialization = 0;
};

// A Func that the plan makes before any directive applies: the accumulator of cache_write(source),
// source a Func of the plan, or the copy of cache_read(source, {consumer}), source an input image
// (an ImageParam) that the consumer, a Func of the plan, reads.
struct MadeFunc {
    enum class How { CacheWrite, CacheReadImage };
    How how;
    std::string source;
    std::string consumer;  // CacheReadImage
    MemoryType memory = MemoryType::Auto;
};

struct FuncPlan {
    std::string name;                              // unique in the pipeline
    std::shared_ptr<lang::FunctionContents> func;  // null for a Func the plan makes
    size_t index = 0;                              // in realization order: Pipeline::get_func(index)
    std::vector<Directive> directives;
    std::optional<MadeFunc> made;  // how the plan makes it, where it does
};

struct SchedulePlan {
    // The pipeline's Funcs in realization order, then the Funcs the plan makes, in the order it
    // makes them (a copy's consumer, or a cache_write's source, before the copy).
    std::vector<FuncPlan> funcs;
};

// The schedules and definitions of a plan's Funcs as they are, to put back after the plan was
// tried (for its features) or failed halfway (a record that does not fit the pipeline). The Funcs
// the plan makes are dropped with the definitions that read them.
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

// Makes the plan's Funcs and calls the primitives on every Func (a CompileError there is a bug of
// the scheduler that made the plan). Returns the Funcs made, by their names in the plan.
std::map<std::string, std::shared_ptr<lang::FunctionContents>> apply_plan(const SchedulePlan& plan);

// Only makes the plan's Funcs, unscheduled (to analyze the pipeline they give).
std::map<std::string, std::shared_ptr<lang::FunctionContents>> make_funcs(const SchedulePlan& plan);

// The plan as C++ statements over a Pipeline named `pipeline`: one statement per scheduled stage.
std::string plan_source(const SchedulePlan& plan);

}  // namespace tessera::autoschedule
