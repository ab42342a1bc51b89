// Func's scheduling methods: the loop transformations of its pure definition, its bounds and
// storage layout, and where it is computed and stored.

#include <algorithm>
#include <optional>

#include "ir/ir_util.h"
#include "lang/function.h"
#include "tessera/func.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

int pure_arg_index(const lang::FunctionContents& f, const std::string& var, const std::string& primitive) {
    auto it = std::find(f.pure_args.begin(), f.pure_args.end(), var);
    if (it != f.pure_args.end()) return int(it - f.pure_args.begin());
    std::string args;
    for (const std::string& a : f.pure_args) args += (args.empty() ? "" : ", ") + a;
    TESSERA_USER_ERROR << f.name << "." << primitive << ": " << var << " is not a Var of " << f.name
                       << ", whose Vars are (" << args << ").";
}

schedule::LoopLevel to_schedule_level(const LoopLevel& level) {
    schedule::LoopLevel l;
    if (level.is_inlined()) return schedule::LoopLevel::inlined();
    if (level.is_root()) return schedule::LoopLevel::root();
    if (level.is_inherited()) return l;
    l.kind = schedule::LoopLevel::Kind::At;
    l.function = level.function();
    l.func = level.func();
    l.var = level.var();
    l.stage = level.stage_index();
    return l;
}

}  // namespace

Func& Func::split(const VarOrRVar& old, const VarOrRVar& outer, const VarOrRVar& inner, const Expr& factor,
                  TailStrategy tail) {
    Stage(*this).split(old, outer, inner, factor, tail);
    return *this;
}

Func& Func::fuse(const VarOrRVar& inner, const VarOrRVar& outer, const VarOrRVar& fused) {
    Stage(*this).fuse(inner, outer, fused);
    return *this;
}

Func& Func::tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& xo, const VarOrRVar& yo,
                 const VarOrRVar& xi, const VarOrRVar& yi, const Expr& xfactor, const Expr& yfactor,
                 TailStrategy tail) {
    Stage(*this).tile(x, y, xo, yo, xi, yi, xfactor, yfactor, tail);
    return *this;
}

Func& Func::tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& xi, const VarOrRVar& yi,
                 const Expr& xfactor, const Expr& yfactor, TailStrategy tail) {
    Stage(*this).tile(x, y, xi, yi, xfactor, yfactor, tail);
    return *this;
}

Func& Func::reorder(const std::vector<VarOrRVar>& vars) {
    Stage(*this).reorder(vars);
    return *this;
}

Func& Func::rename(const VarOrRVar& old_name, const VarOrRVar& new_name) {
    Stage(*this).rename(old_name, new_name);
    return *this;
}

Func& Func::serial(const VarOrRVar& var) {
    Stage(*this).serial(var);
    return *this;
}

Func& Func::parallel(const VarOrRVar& var) {
    Stage(*this).parallel(var);
    return *this;
}

Func& Func::parallel(const VarOrRVar& var, const Expr& task_size, TailStrategy tail) {
    Stage(*this).parallel(var, task_size, tail);
    return *this;
}

Func& Func::vectorize(const VarOrRVar& var) {
    Stage(*this).vectorize(var);
    return *this;
}

Func& Func::vectorize(const VarOrRVar& var, const Expr& factor, TailStrategy tail) {
    Stage(*this).vectorize(var, factor, tail);
    return *this;
}

Func& Func::tensorize(const VarOrRVar& var, const TensorIntrinsic& intrinsic) {
    Stage(*this).tensorize(var, intrinsic);
    return *this;
}

Func& Func::atomic(bool override_associativity_test) {
    Stage(*this).atomic(override_associativity_test);
    return *this;
}

Func& Func::unroll(const VarOrRVar& var) {
    Stage(*this).unroll(var);
    return *this;
}

Func& Func::unroll(const VarOrRVar& var, const Expr& factor, TailStrategy tail) {
    Stage(*this).unroll(var, factor, tail);
    return *this;
}

Func& Func::bound(const Var& var, const Expr& min, const Expr& extent) {
    const std::string primitive = "bound(" + var.name() + ", ...)";
    pure_arg_index(*contents_, var.name(), primitive);
    for (const Expr& e : {min, extent}) {
        TESSERA_USER_CHECK(e.defined() && e.type().is_int_or_uint() && e.type().is_scalar())
            << name() << "." << primitive << ": the min and extent must be integer expressions.";
    }
    auto& bounds = contents_->schedule.bounds;
    std::erase_if(bounds, [&](const schedule::Bound& b) { return b.var == var.name(); });
    bounds.push_back({var.name(), cast(Int(32), min), cast(Int(32), extent)});
    contents_->touch();
    return *this;
}

Func& Func::bound_extent(const Var& var, const Expr& extent) {
    const std::string primitive = "bound_extent(" + var.name() + ", ...)";
    pure_arg_index(*contents_, var.name(), primitive);
    TESSERA_USER_CHECK(extent.defined() && extent.type().is_int_or_uint() && extent.type().is_scalar())
        << name() << "." << primitive << ": the extent must be an integer expression.";
    auto& bounds = contents_->schedule.bounds;
    std::erase_if(bounds, [&](const schedule::Bound& b) { return b.var == var.name(); });
    bounds.push_back({var.name(), Expr(), cast(Int(32), extent)});
    contents_->touch();
    return *this;
}

Func& Func::align_bounds(const Var& var, const Expr& modulus, const Expr& remainder) {
    const std::string primitive = "align_bounds(" + var.name() + ", ...)";
    pure_arg_index(*contents_, var.name(), primitive);
    for (const Expr& e : {modulus, remainder}) {
        TESSERA_USER_CHECK(e.defined() && e.type().is_int_or_uint() && e.type().is_scalar())
            << name() << "." << primitive << ": the modulus and remainder must be integer expressions.";
    }
    std::optional<int64_t> constant = ir::as_const_int(modulus);
    TESSERA_USER_CHECK(!constant || *constant > 0)
        << name() << "." << primitive << ": the modulus is " << *constant << "; give a positive one.";
    auto& alignments = contents_->schedule.alignments;
    std::erase_if(alignments, [&](const schedule::Alignment& a) { return a.var == var.name(); });
    alignments.push_back({var.name(), cast(Int(32), modulus), cast(Int(32), remainder)});
    contents_->touch();
    return *this;
}

Func& Func::align_storage(const Var& var, const Expr& alignment) {
    const std::string primitive = "align_storage(" + var.name() + ", ...)";
    pure_arg_index(*contents_, var.name(), primitive);
    TESSERA_USER_CHECK(alignment.defined() && alignment.type().is_int_or_uint() &&
                       alignment.type().is_scalar())
        << name() << "." << primitive << ": the alignment must be an integer expression.";
    std::optional<int64_t> constant = ir::as_const_int(alignment);
    TESSERA_USER_CHECK(!constant || *constant > 0)
        << name() << "." << primitive << ": the alignment is " << *constant << "; give a positive one.";
    auto& alignments = contents_->schedule.storage_alignments;
    std::erase_if(alignments, [&](const schedule::StorageAlignment& a) { return a.var == var.name(); });
    alignments.push_back({var.name(), cast(Int(32), alignment)});
    contents_->touch();
    return *this;
}

Func& Func::set_estimate(const Var& var, const Expr& min, const Expr& extent) {
    const std::string primitive = "set_estimate(" + var.name() + ", ...)";
    pure_arg_index(*contents_, var.name(), primitive);
    for (const Expr* e : {&min, &extent}) {
        TESSERA_USER_CHECK(e->defined() && e->type().is_scalar() && e->type().is_int_or_uint() &&
                           ir::as_const_int(*e))
            << name() << "." << primitive << ": the min and the extent must be integer constants; got "
            << (e->defined() ? *e : Expr()) << ".";
    }
    TESSERA_USER_CHECK(*ir::as_const_int(extent) > 0)
        << name() << "." << primitive << ": the extent is " << extent << "; give a positive one.";
    auto& estimates = contents_->schedule.estimates;
    std::erase_if(estimates, [&](const schedule::Bound& b) { return b.var == var.name(); });
    // Not a change of the schedule: no compiled code depends on an estimate.
    estimates.push_back(
        {var.name(), Expr(int32_t(*ir::as_const_int(min))), Expr(int32_t(*ir::as_const_int(extent)))});
    return *this;
}

Func& Func::set_estimates(const Region& estimates) {
    TESSERA_USER_CHECK(int(estimates.size()) == dimensions())
        << name() << ".set_estimates: " << estimates.size() << " ranges for " << dimensions()
        << " dimensions; give one Range (min, extent) per pure Var.";
    const std::vector<Var> vars = args();
    for (size_t d = 0; d < estimates.size(); d++)
        set_estimate(vars[d], estimates[d].min, estimates[d].extent);
    return *this;
}

Func& Func::reorder_storage(const std::vector<Var>& dims) {
    std::string primitive = "reorder_storage(";
    for (size_t i = 0; i < dims.size(); i++) primitive += (i ? ", " : "") + dims[i].name();
    primitive += ")";
    std::vector<std::string>& order = contents_->schedule.storage_order;
    if (order.empty()) order = contents_->pure_args;
    std::vector<size_t> positions;
    for (const Var& v : dims) {
        pure_arg_index(*contents_, v.name(), primitive);
        size_t i = size_t(std::find(order.begin(), order.end(), v.name()) - order.begin());
        TESSERA_USER_CHECK(std::find(positions.begin(), positions.end(), i) == positions.end())
            << name() << "." << primitive << ": " << v.name() << " is named twice.";
        positions.push_back(i);
    }
    std::sort(positions.begin(), positions.end());
    for (size_t k = 0; k < positions.size(); k++) order[positions[k]] = dims[k].name();
    contents_->touch();
    return *this;
}

Stage Func::specialize(const Expr& condition) { return Stage(*this).specialize(condition); }

void Func::specialize_fail(const std::string& message) { Stage(*this).specialize_fail(message); }

Func& Func::compute_at(const Func& f, const Var& var) { return compute_at(LoopLevel(f, var)); }
Func& Func::compute_at(const Func& f, const RVar& var) { return compute_at(LoopLevel(f, var)); }

Func& Func::compute_at(LoopLevel level) {
    TESSERA_USER_CHECK(!level.function() || level.function() != contents_)
        << name() << ".compute_at(" << level.to_string()
        << "): a Func cannot be computed inside its own loops.";
    contents_->schedule.compute_level = to_schedule_level(level);
    contents_->touch();
    return *this;
}

Func& Func::store_at(const Func& f, const Var& var) { return store_at(LoopLevel(f, var)); }
Func& Func::store_at(const Func& f, const RVar& var) { return store_at(LoopLevel(f, var)); }

Func& Func::store_at(LoopLevel level) {
    TESSERA_USER_CHECK(!level.function() || level.function() != contents_)
        << name() << ".store_at(" << level.to_string() << "): a Func cannot be stored inside its own loops.";
    contents_->schedule.store_level = to_schedule_level(level);
    contents_->touch();
    return *this;
}

Func& Func::compute_root() { return compute_at(LoopLevel::root()); }
Func& Func::compute_inline() { return compute_at(LoopLevel::inlined()); }
Func& Func::store_root() { return store_at(LoopLevel::root()); }

Func& Func::store_in(MemoryType memory_type) {
    contents_->schedule.memory_type = memory_type;
    contents_->touch();
    return *this;
}

}  // namespace tessera
