#pragma once
// The vocabulary of schedules: how a split treats a ragged tail, the Vars and RVars a schedule
// names, and the loop levels where a Func is computed and stored.

#include <memory>
#include <string>

#include "tessera/memory_type.h"
#include "tessera/rdom.h"
#include "tessera/var.h"

namespace tessera {

class Func;
namespace lang {
struct FunctionContents;
}

// What a split does when the factor does not divide the extent.
enum class TailStrategy {
    // Computes whole multiples of the factor: the region is rounded up. Never legal where the extra
    // points cannot be stored, as at the edge of an output buffer.
    RoundUp,
    // Guards each point with an if, so nothing outside the region is computed.
    GuardWithIf,
    // Shifts the last iteration back so that it ends at the region's end, recomputing some points.
    // Needs an extent of at least the factor; not legal for updates.
    ShiftInwards,
    // ShiftInwards for pure definitions; for updates, GuardWithIf for RVars and for the Vars of an
    // output, RoundUp for the Vars of other Funcs.
    Auto,
};

// A Var or an RVar, as the loop-transforming primitives take either.
class VarOrRVar {
public:
    VarOrRVar(const Var& v) : var_(v), is_rvar_(false) {}
    VarOrRVar(const RVar& r) : rvar_(r), is_rvar_(true) {}
    // A one-dimensional RDom stands for its only RVar.
    VarOrRVar(const RDom& r) : rvar_(r.x), is_rvar_(true) {}
    template <int N>
    VarOrRVar(const ImplicitVar<N>& v) : VarOrRVar(Var(v)) {}

    const std::string& name() const { return is_rvar_ ? rvar_.name() : var_.name(); }
    bool is_rvar() const { return is_rvar_; }
    const Var& var() const { return var_; }
    const RVar& rvar() const { return rvar_; }

private:
    Var var_;
    RVar rvar_;
    bool is_rvar_;
};

// A place in the loop nest of a pipeline: inline, at the root (outside every loop), or inside the
// loop over a Var of a Func's stage (by default its last stage).
class LoopLevel {
public:
    LoopLevel() = default;  // inherited: the default placement
    LoopLevel(const Func& f, const VarOrRVar& v, int stage_index = -1);
    static LoopLevel inlined();
    static LoopLevel root();

    bool is_inherited() const { return kind_ == Kind::Inherited; }
    bool is_inlined() const { return kind_ == Kind::Inline; }
    bool is_root() const { return kind_ == Kind::Root; }
    // For a level inside a loop: the Func (held weakly: a schedule must not own its consumer), its
    // name, the Var and the stage (-1: the last).
    std::shared_ptr<lang::FunctionContents> function() const { return function_.lock(); }
    const std::string& func() const { return func_; }
    const std::string& var() const { return var_; }
    int stage_index() const { return stage_; }
    std::string to_string() const;

private:
    enum class Kind { Inherited, Inline, Root, At };
    Kind kind_ = Kind::Inherited;
    std::weak_ptr<lang::FunctionContents> function_;
    std::string func_, var_;
    int stage_ = -1;
};

}  // namespace tessera
