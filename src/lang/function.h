#pragma once
// The compiler's view of a Func: its name, pure arguments, definitions and schedule. Shared by
// every Func handle that refers to it; lowering reads it and never changes it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/expr_nodes.h"
#include "lang/wrapper.h"
#include "schedule/func_schedule.h"
#include "tessera/rdom.h"

namespace tessera::lang {

struct CompiledPipeline;

struct ReductionVariable {
    std::string name;
    Expr min, extent;
};

struct ReductionDomainContents {
    std::string name;
    std::vector<ReductionVariable> vars;  // innermost first
    Expr predicate;                       // undefined: every point
};

struct Definition;

// specialize(condition): where the condition holds, the stage runs its own copy of the definition,
// scheduled on its own. A null definition is specialize_fail(): reaching it is an error.
struct Specialization {
    Expr condition;
    std::shared_ptr<Definition> definition;
    std::string failure_message;
};

// One definition of a Func: pure (args are the pure Vars) or an update (args are any Exprs).
struct Definition {
    std::vector<Expr> args;
    std::vector<Expr> values;                       // one per Tuple element
    std::shared_ptr<ReductionDomainContents> rdom;  // the RDom an update iterates over, if any
    schedule::StageSchedule schedule;
    // Tried in order before this (the general) definition.
    std::vector<Specialization> specializations;
    bool defined() const { return !values.empty(); }
};

struct FunctionContents {
    std::string name;
    std::vector<std::string> pure_args;
    std::vector<Type> output_types;
    Definition pure;
    std::vector<Definition> updates;
    schedule::FuncSchedule schedule;
    std::vector<Wrapper> wrappers;  // made by in()
    // The buffers it writes as a pipeline's output, once Func::output_buffers() made them: what
    // the pipeline requires of their shapes.
    std::vector<std::shared_ptr<ParameterContents>> output_buffers;
    // trace_stores(): print every value stored, with its coordinates.
    bool trace_stores = false;
    // Bumped by every change to a definition or the schedule, so compiled pipelines know when
    // they are stale.
    uint64_t version = 0;
    // The JIT-compiled pipeline with this Func as its only output, reused while current.
    std::shared_ptr<CompiledPipeline> jit_cache;

    bool defined() const { return pure.defined(); }
    // The Func a call of this one from `consumer` reads: a wrapper made by in(), or this Func.
    // Wrappers themselves read the original.
    std::shared_ptr<FunctionContents> called_from(const FunctionContents& consumer,
                                                  const std::shared_ptr<FunctionContents>& self) const;
    int dimensions() const { return int(pure_args.size()); }
    void touch();
};

// A new, uniquely named Function ("f" stays "f" if unused so far; otherwise "f$1", ...).
std::shared_ptr<FunctionContents> make_function(const std::string& name);

// A fresh name with the given prefix, unique in this process.
std::string unique_name(const std::string& prefix);

}  // namespace tessera::lang
