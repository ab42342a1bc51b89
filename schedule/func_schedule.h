#pragma once
// Schedules as plain data: how each stage's loops are split, ordered and run, and where a Func is
// computed and stored. The primitives in schedule/stage_primitives.h edit it and check each edit;
// lowering reads it.

#include <string>
#include <vector>

#include "ir/expr_nodes.h"
#include "ir/stmt.h"
#include "tessera/schedule.h"

namespace tessera::lang {
struct TensorIntrinsicContents;
}

namespace tessera::schedule {

// One step of a stage's loop transformations, applied in order.
struct Split {
    enum class Kind {
        Split,   // old becomes outer * factor + inner
        Fuse,    // inner and outer become one loop, old (the fused name)
        Rename,  // old is now called outer
    };
    Kind kind = Kind::Split;
    std::string old_var, outer, inner;  // full dimension names, such as "x.xo"
    Expr factor;
    TailStrategy tail = TailStrategy::Auto;  // resolved by lowering (see resolved_tail)
};

// One loop of a stage, innermost first in StageSchedule::dims.
struct Dim {
    std::string var;   // full name: the original Var or RVar name, then ".new" for each split
    std::string name;  // the name the user gave it (the Var or RVar), by which primitives find it
    ir::ForKind kind = ir::ForKind::Serial;
    bool is_rvar = false;
};

// tensorize(var, intrinsic): the loops from var inwards become the intrinsic.
struct Tensorized {
    std::string var;  // the full dimension name
    std::shared_ptr<const lang::TensorIntrinsicContents> intrinsic;
};

struct StageSchedule {
    std::vector<Split> splits;
    std::vector<Tensorized> tensorized;
    // Empty until the first primitive touches the stage; lowering then uses the default order.
    std::vector<Dim> dims;
    // atomic(): each update of an element is one indivisible read-modify-write, so that loops
    // over RVars may run in parallel.
    bool atomic = false;
    // gpu_single_thread(): the stage's loops run inside a kernel of one block of one thread.
    bool gpu_single_thread = false;
};

// Where in the loop nest of the pipeline a Func is computed (or stored).
struct LoopLevel {
    enum class Kind { Inherited, Inline, Root, At };
    Kind kind = Kind::Inherited;
    // For At: the consumer Func, held weakly (a schedule must not own its consumer), and its name
    // (lowering's environment replaces it by the name the Func has in the pipeline).
    std::weak_ptr<lang::FunctionContents> function;
    std::string func;
    std::string var;  // for At: the Var as the user named it
    int stage = -1;   // for At: the consumer's stage, -1 for its last

    static LoopLevel inlined() { return {Kind::Inline}; }
    static LoopLevel root() { return {Kind::Root}; }
    bool is_inherited() const { return kind == Kind::Inherited; }
    bool is_inline() const { return kind == Kind::Inline; }
    bool is_root() const { return kind == Kind::Root; }
    bool is_at() const { return kind == Kind::At; }
};

// bound(var, min, extent): the region computed of a pure Var, whatever the consumers need;
// bound_extent(var, extent) leaves min undefined: the region starts where the consumers need it.
struct Bound {
    std::string var;
    Expr min, extent;
};

// align_bounds(var, modulus, remainder): the region computed grows to start at a value congruent
// to remainder modulo modulus and to span a multiple of modulus.
struct Alignment {
    std::string var;
    Expr modulus, remainder;
};

// align_storage(var, alignment): the storage's extent in that dimension is rounded up to a
// multiple of alignment, so that the strides of the dimensions outside it are multiples too.
struct StorageAlignment {
    std::string var;
    Expr alignment;
};

struct FuncSchedule {
    LoopLevel compute_level;  // Inherited: the default (inline if pure, root otherwise)
    LoopLevel store_level;    // Inherited: the same as compute_level
    std::vector<Bound> bounds;
    std::vector<Alignment> alignments;
    std::vector<StorageAlignment> storage_alignments;
    // The pure Vars in storage order, innermost first; empty for the order of the arguments.
    std::vector<std::string> storage_order;
    MemoryType memory_type = MemoryType::Auto;
    // set_estimate(var, min, extent): what automatic schedulers assume; no code depends on it.
    std::vector<Bound> estimates;
};

}  // namespace tessera::schedule
