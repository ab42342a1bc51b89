// Stage: the loop-transforming primitives of one definition of a Func.

#include "ir/equal.h"
#include "ir/ir_util.h"
#include "lang/associative_update.h"
#include "lang/definition_checks.h"
#include "lang/function.h"
#include "schedule/stage_primitives.h"
#include "tessera/func.h"
#include "tessera/tensorize.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

// A fresh name for the inner loop that vectorize, unroll and parallel with a factor split off.
std::string inner_name(const VarOrRVar& var, const char* suffix) { return var.name() + suffix; }

}  // namespace

schedule::StageRef Stage::ref() const { return {*function_, index_, specialization_}; }

std::string Stage::name() const { return function_->name + ".s" + std::to_string(index_); }

std::string Stage::dump_argument_list() const {
    const lang::Definition& d = index_ == 0 ? function_->pure : function_->updates[index_ - 1];
    return lang::describe_definition(function_->name, d.args, d.values);
}

Stage& Stage::split(const VarOrRVar& old, const VarOrRVar& outer, const VarOrRVar& inner, const Expr& factor,
                    TailStrategy tail) {
    schedule::split(ref(), old.name(), outer.name(), inner.name(), factor, tail);
    function_->touch();
    return *this;
}

Stage& Stage::fuse(const VarOrRVar& inner, const VarOrRVar& outer, const VarOrRVar& fused) {
    schedule::fuse(ref(), inner.name(), outer.name(), fused.name());
    function_->touch();
    return *this;
}

Stage& Stage::tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& xo, const VarOrRVar& yo,
                   const VarOrRVar& xi, const VarOrRVar& yi, const Expr& xfactor, const Expr& yfactor,
                   TailStrategy tail) {
    split(x, xo, xi, xfactor, tail);
    split(y, yo, yi, yfactor, tail);
    return reorder({xi, yi, xo, yo});
}

Stage& Stage::tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& xi, const VarOrRVar& yi,
                   const Expr& xfactor, const Expr& yfactor, TailStrategy tail) {
    return tile(x, y, x, y, xi, yi, xfactor, yfactor, tail);
}

Stage& Stage::reorder(const std::vector<VarOrRVar>& vars) {
    std::vector<std::string> names;
    for (const VarOrRVar& v : vars) names.push_back(v.name());
    schedule::reorder(ref(), names);
    function_->touch();
    return *this;
}

Stage& Stage::rename(const VarOrRVar& old_name, const VarOrRVar& new_name) {
    schedule::rename(ref(), old_name.name(), new_name.name());
    function_->touch();
    return *this;
}

Stage& Stage::tensorize(const VarOrRVar& var, const TensorIntrinsic& intrinsic) {
    TESSERA_USER_CHECK(intrinsic.defined())
        << ref().describe() << ".tensorize(" << var.name()
        << ", ...): the intrinsic is empty; declare one (see tensorize.h).";
    const std::string dim = schedule::find_dim(ref(), var.name(), "tensorize").var;
    schedule::StageSchedule& s = schedule::stage_schedule(ref());
    std::erase_if(s.tensorized, [&](const schedule::Tensorized& t) { return t.var == dim; });
    s.tensorized.push_back({dim, intrinsic.contents()});
    function_->touch();
    return *this;
}

Stage& Stage::atomic(bool override_associativity_test) {
    // A pure definition writes each element once, never reading it: nothing to make atomic.
    if (index_ == 0) return *this;
    lang::Definition& d = ref().definition();
    const std::string who = ref().describe();
    TESSERA_USER_CHECK(d.values.size() == 1)
        << who << ".atomic(): the update writes a Tuple; atomic updates write one value.";
    for (const Expr& a : d.args) {
        TESSERA_USER_CHECK(!lang::reads_func(a, *function_))
            << who << ".atomic(): the update writes " << function_->name << " at " << a << ", which reads "
            << function_->name << " itself; an atomic update needs indices that do not depend on the values "
            << "it updates.";
    }
    TESSERA_USER_CHECK(override_associativity_test ||
                       lang::associative_update(d.values[0], *function_, d.args))
        << who << ".atomic(): the update " << d.values[0] << " is not of the form " << function_->name
        << "(...) = " << function_->name << "(...) op e with op one of +, *, min, max, so the order of its "
        << "iterations may matter. Pass atomic(true) if it does not.";
    schedule::stage_schedule(ref()).atomic = true;
    function_->touch();
    return *this;
}

Stage& Stage::serial(const VarOrRVar& var) {
    schedule::set_loop_kind(ref(), var.name(), ir::ForKind::Serial);
    function_->touch();
    return *this;
}

Stage& Stage::parallel(const VarOrRVar& var) {
    schedule::set_loop_kind(ref(), var.name(), ir::ForKind::Parallel);
    function_->touch();
    return *this;
}

Stage& Stage::parallel(const VarOrRVar& var, const Expr& task_size, TailStrategy tail) {
    VarOrRVar inner =
        var.is_rvar() ? VarOrRVar(RVar(inner_name(var, "_task"))) : VarOrRVar(Var(inner_name(var, "_task")));
    split(var, var, inner, task_size, tail);
    return parallel(var);
}

Stage& Stage::vectorize(const VarOrRVar& var) {
    schedule::set_loop_kind(ref(), var.name(), ir::ForKind::Vectorized);
    function_->touch();
    return *this;
}

Stage& Stage::vectorize(const VarOrRVar& var, const Expr& factor, TailStrategy tail) {
    VarOrRVar inner =
        var.is_rvar() ? VarOrRVar(RVar(inner_name(var, "_vec"))) : VarOrRVar(Var(inner_name(var, "_vec")));
    split(var, var, inner, factor, tail);
    return vectorize(inner);
}

Stage& Stage::unroll(const VarOrRVar& var) {
    schedule::set_loop_kind(ref(), var.name(), ir::ForKind::Unrolled);
    function_->touch();
    return *this;
}

Stage& Stage::unroll(const VarOrRVar& var, const Expr& factor, TailStrategy tail) {
    VarOrRVar inner = var.is_rvar() ? VarOrRVar(RVar(inner_name(var, "_unroll")))
                                    : VarOrRVar(Var(inner_name(var, "_unroll")));
    split(var, var, inner, factor, tail);
    return unroll(inner);
}

Stage Stage::specialize(const Expr& condition) {
    schedule::StageRef stage = ref();
    TESSERA_USER_CHECK(condition.defined() && condition.type().is_bool() && condition.type().is_scalar())
        << stage.describe() << ".specialize(...): the condition must be a boolean expression.";
    lang::Definition& d = stage.definition();
    TESSERA_USER_CHECK(d.specializations.empty() || d.specializations.back().definition)
        << stage.describe() << ".specialize(" << condition
        << "): specialize_fail() must be the last specialization.";
    std::vector<int> path = specialization_;
    for (size_t i = 0; i < d.specializations.size(); i++) {
        if (ir::equal(d.specializations[i].condition, condition)) {
            path.push_back(int(i));
            return Stage(function_, index_, path);
        }
    }
    auto copy = std::make_shared<lang::Definition>(d);
    copy->specializations.clear();
    d.specializations.push_back({condition, copy, ""});
    path.push_back(int(d.specializations.size()) - 1);
    function_->touch();
    return Stage(function_, index_, path);
}

void Stage::specialize_fail(const std::string& message) {
    schedule::StageRef stage = ref();
    lang::Definition& d = stage.definition();
    TESSERA_USER_CHECK(!d.specializations.empty())
        << stage.describe() << ".specialize_fail(\"" << message << "\"): call specialize() first; without "
        << "specializations the general definition would always fail.";
    TESSERA_USER_CHECK(d.specializations.back().definition)
        << stage.describe() << ".specialize_fail(...): the stage already ends with specialize_fail().";
    d.specializations.push_back({ir::const_true(), nullptr, message});
    function_->touch();
}

}  // namespace tessera
