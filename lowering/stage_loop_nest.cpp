#include "lowering/stage_loop_nest.h"

#include <algorithm>
#include <map>

#include "ir/ir_util.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "lowering/names.h"
#include "schedule/stage_primitives.h"
#include "tessera/operators.h"
#include "tessera/var.h"

namespace tessera::lowering {
namespace {

using schedule::Split;

// A statement printing "Store f(x, y) = v" for each value, for trace_stores().
ir::Stmt trace(const std::string& name, const std::vector<Expr>& args, const std::vector<Expr>& values) {
    std::vector<ir::Stmt> prints;
    for (size_t i = 0; i < values.size(); i++) {
        std::vector<Expr> parts{
            Expr("Store " + name + (values.size() > 1 ? "." + std::to_string(i) : "") + "(")};
        for (size_t d = 0; d < args.size(); d++) {
            parts.push_back(args[d]);
            if (d + 1 < args.size()) parts.push_back(Expr(","));
        }
        parts.push_back(Expr(") ="));
        parts.push_back(values[i]);
        prints.push_back(ir::Evaluate::make(ir::Call::make_intrinsic(Int(32), ir::Intrinsic::Print, parts)));
    }
    return ir::Block::make(std::move(prints));
}

// The store of one stage's values at its (renamed) arguments, guarded by the RDom's predicate.
ir::Stmt stage_body(const lang::FunctionContents& f, const lang::Definition& d,
                    const std::map<std::string, Expr>& renames) {
    std::vector<Expr> args, values;
    for (const Expr& a : d.args) args.push_back(ir::substitute(renames, a));
    for (const Expr& v : d.values) values.push_back(ir::substitute(renames, v));
    ir::Stmt body = ir::Provide::make(f.name, values, args);
    if (d.schedule.atomic) body = ir::Atomic::make(f.name, body);
    if (f.trace_stores) body = ir::Block::make(trace(f.name, args, values), body);
    if (d.rdom && d.rdom->predicate.defined()) {
        body = ir::IfThenElse::make(ir::substitute(renames, d.rdom->predicate), body);
    }
    return body;
}

// Whether the schedule tensorized the loop of dim; the loop is then marked as such, so that the
// tensorize pass replaces this definition's loop and not a loop of the same name that another
// definition of the stage (a specialization, or the general case) builds.
bool is_tensorized(const schedule::StageSchedule& s, const std::string& dim) {
    return std::any_of(s.tensorized.begin(), s.tensorized.end(),
                       [&](const schedule::Tensorized& t) { return t.var == dim; });
}

std::vector<std::string> pure_vars_of(const lang::Definition& d) {
    std::vector<std::string> vars;
    for (const Expr& a : d.args) {
        const ir::Variable* v = a.as<ir::Variable>();
        if (v && v->var_kind == ir::VariableKind::PureVar) vars.push_back(v->name);
    }
    return vars;
}

void collect_definitions(const lang::Definition& d, std::vector<const lang::Definition*>& out) {
    out.push_back(&d);
    for (const lang::Specialization& s : d.specializations) {
        if (s.definition) collect_definitions(*s.definition, out);
    }
}

// Builds the nest; a class so that the names of one stage are at hand.
class StageNest {
public:
    StageNest(const lang::FunctionContents& f, int stage, const lang::Definition& def, bool is_output)
        : f(f), stage(stage), is_output(is_output), def(def) {}

    ir::Stmt build() {
        schedule::StageSchedule sched = def.schedule;
        if (sched.dims.empty()) sched.dims = schedule::default_dims(def);
        std::map<std::string, bool> is_rvar = rvar_flags(sched);
        std::vector<std::pair<std::string, Expr>> extents = original_extents();
        std::vector<std::pair<std::string, Expr>> values;
        std::multimap<std::string, Expr> guards;
        for (const Split& s : sched.splits) add_split(s, resolved(s, is_rvar), extents, values, guards);
        std::map<std::string, Expr> renames;
        for (const std::string& v : original_vars()) renames[v] = var(v);
        ir::Stmt body = stage_body(f, def, renames);
        // The lets of later splits go outside those of earlier ones (their values define the
        // earlier splits' loop variables). Each guard goes just inside the let of the variable it
        // guards, so that bounds inference sees the variable narrowed by the guard in the lets
        // that use it: a GuardWithIf split of an inner loop then bounds the points written.
        for (auto it = values.begin(); it != values.end(); ++it) {
            auto [first, last] = guards.equal_range(it->first);
            for (auto g = first; g != last; ++g) body = ir::IfThenElse::make(g->second, body);
            body = ir::LetStmt::make(it->first, it->second, body);
        }
        std::map<std::string, Expr> known;
        for (const auto& [name, value] : extents) known[name] = value;
        for (const schedule::Dim& d : sched.dims) {
            const std::string loop = loop_var(f.name, stage, d.var);
            Expr extent = ir::int_var(dim_loop_extent(f.name, stage, d.var));
            // Constant extents go into the loop itself, where unrolling and vectorization need them.
            Expr constant = ir::simplify(ir::substitute(known, extent));
            if (ir::as_const_int(constant)) extent = constant;
            const ir::ForKind kind = is_tensorized(sched, d.var) ? ir::ForKind::Tensorized : d.kind;
            body = ir::For::make(loop, ir::int_var(dim_loop_min(f.name, stage, d.var)), extent, kind, body);
        }
        if (sched.gpu_single_thread) {
            body = ir::For::make(loop_var(f.name, stage, "__single_thread"), ir::make_zero(Int(32)),
                                 ir::make_one(Int(32)), ir::ForKind::GPUThread, body);
            body = ir::For::make(loop_var(f.name, stage, "__single_block"), ir::make_zero(Int(32)),
                                 ir::make_one(Int(32)), ir::ForKind::GPUBlock, body);
        }
        for (auto it = extents.rbegin(); it != extents.rend(); ++it)
            body = ir::LetStmt::make(it->first, it->second, body);
        // A loop of one iteration outside all others, so that compute_at(f, Var::outermost()) has
        // a place; simplification removes it.
        return ir::For::make(loop_var(f.name, stage, outermost_dim()), ir::make_zero(Int(32)),
                             ir::make_one(Int(32)), ir::ForKind::Serial, body);
    }

private:
    const lang::FunctionContents& f;
    const int stage;
    const bool is_output;
    const lang::Definition& def;

    Expr var(const std::string& dim) const { return ir::int_var(loop_var(f.name, stage, dim)); }
    Expr loop_min_of(const std::string& dim) const { return ir::int_var(dim_loop_min(f.name, stage, dim)); }
    Expr loop_extent_of(const std::string& dim) const {
        return ir::int_var(dim_loop_extent(f.name, stage, dim));
    }

    // Whether a dimension's variable lies in its loop's range. A pure definition's Var is compared
    // with the region's max itself, not min + extent: bounds inference then bounds the points a
    // tile's producers need by the region's end, which min and extent, bounded apart, would not (in
    // the last tile of a GuardWithIf split they would be bounded by the whole tile). Updates keep
    // min + extent, whose min cancels from the test: the guards of a matrix product's register
    // tile, in a parallel loop that loop partitioning leaves whole, cost less so.
    Expr within_loop(const std::string& dim) const {
        const std::vector<std::string> pure = pure_vars_of(def);
        if (stage == 0 && std::find(pure.begin(), pure.end(), dim) != pure.end())
            return var(dim) <= ir::int_var(loop_max(f.name, stage, dim));
        return var(dim) < loop_min_of(dim) + loop_extent_of(dim);
    }

    std::vector<std::string> original_vars() const {
        std::vector<std::string> vars;
        if (def.rdom) {
            for (const auto& r : def.rdom->vars) vars.push_back(r.name);
        }
        for (const std::string& v : pure_vars_of(def)) vars.push_back(v);
        return vars;
    }

    std::map<std::string, bool> rvar_flags(const schedule::StageSchedule& sched) const {
        std::map<std::string, bool> flags;
        if (def.rdom) {
            for (const auto& r : def.rdom->vars) flags[r.name] = true;
        }
        for (const Split& s : sched.splits) {
            if (s.kind == Split::Kind::Fuse) {
                flags[s.old_var] = flags[s.inner] || flags[s.outer];
            } else {
                flags[s.outer] = flags[s.old_var];
                if (!s.inner.empty()) flags[s.inner] = flags[s.old_var];
            }
        }
        return flags;
    }

    // Auto: ShiftInwards for pure definitions; for updates, GuardWithIf for RVars and for the Vars of
    // outputs (whose buffers cannot take the extra points), RoundUp for other Vars.
    TailStrategy resolved(const Split& s, const std::map<std::string, bool>& is_rvar) const {
        if (s.tail != TailStrategy::Auto) return s.tail;
        if (stage == 0) return TailStrategy::ShiftInwards;
        return is_rvar.at(s.old_var) || is_output ? TailStrategy::GuardWithIf : TailStrategy::RoundUp;
    }

    // The loop bounds of the original Vars: pure Vars over the region bounds inference gives them,
    // RVars over their RDom.
    std::vector<std::pair<std::string, Expr>> original_extents() const {
        std::vector<std::pair<std::string, Expr>> lets;
        if (def.rdom) {
            for (const auto& r : def.rdom->vars) {
                lets.emplace_back(dim_loop_min(f.name, stage, r.name), r.min);
                lets.emplace_back(dim_loop_extent(f.name, stage, r.name), r.extent);
            }
        }
        for (const std::string& v : pure_vars_of(def)) {
            Expr lo = ir::int_var(loop_min(f.name, stage, v)), hi = ir::int_var(loop_max(f.name, stage, v));
            lets.emplace_back(dim_loop_min(f.name, stage, v), lo);
            lets.emplace_back(dim_loop_extent(f.name, stage, v), hi - lo + 1);
        }
        return lets;
    }

    void add_split(const Split& s, TailStrategy tail, std::vector<std::pair<std::string, Expr>>& extents,
                   std::vector<std::pair<std::string, Expr>>& values,
                   std::multimap<std::string, Expr>& guards) const {
        auto extent = [&](const std::string& dim, Expr e) {
            extents.emplace_back(dim_loop_min(f.name, stage, dim), ir::make_zero(Int(32)));
            extents.emplace_back(dim_loop_extent(f.name, stage, dim), std::move(e));
        };
        auto value = [&](const std::string& dim, Expr e) {
            values.emplace_back(loop_var(f.name, stage, dim), std::move(e));
        };
        switch (s.kind) {
            case Split::Kind::Split: {
                Expr factor = cast(Int(32), s.factor);
                extent(s.outer, (loop_extent_of(s.old_var) + factor - 1) / factor);
                extent(s.inner, factor);
                Expr offset = var(s.outer) * factor;
                // All blocks but the last are likely not shifted: loop partitioning leaves the shift
                // out of them, where the loop is innermost or other tests partition it anyway.
                if (tail == TailStrategy::ShiftInwards)
                    offset = min(likely_if_innermost(offset), loop_extent_of(s.old_var) - factor);
                value(s.old_var, loop_min_of(s.old_var) + offset + var(s.inner));
                if (tail == TailStrategy::GuardWithIf)
                    guards.emplace(loop_var(f.name, stage, s.old_var), likely(within_loop(s.old_var)));
                break;
            }
            case Split::Kind::Fuse:
                extent(s.old_var, loop_extent_of(s.inner) * loop_extent_of(s.outer));
                value(s.inner, loop_min_of(s.inner) + var(s.old_var) % loop_extent_of(s.inner));
                value(s.outer, loop_min_of(s.outer) + var(s.old_var) / loop_extent_of(s.inner));
                break;
            case Split::Kind::Rename:
                extents.emplace_back(dim_loop_min(f.name, stage, s.outer), loop_min_of(s.old_var));
                extents.emplace_back(dim_loop_extent(f.name, stage, s.outer), loop_extent_of(s.old_var));
                value(s.old_var, var(s.outer));
                break;
        }
    }
};

}  // namespace

std::string outermost_dim() { return Var::outermost().name(); }

const lang::Definition& definition_of(const lang::FunctionContents& f, int stage) {
    return stage == 0 ? f.pure : f.updates.at(size_t(stage) - 1);
}

std::vector<const lang::Definition*> stage_definitions(const lang::FunctionContents& f, int stage) {
    std::vector<const lang::Definition*> defs;
    collect_definitions(definition_of(f, stage), defs);
    return defs;
}

std::vector<schedule::Dim> definition_dims(const lang::Definition& d) {
    return d.schedule.dims.empty() ? schedule::default_dims(d) : d.schedule.dims;
}

std::vector<schedule::Dim> stage_dims(const lang::FunctionContents& f, int stage) {
    std::vector<schedule::Dim> dims;
    for (const lang::Definition* d : stage_definitions(f, stage)) {
        for (const schedule::Dim& dim : definition_dims(*d)) dims.push_back(dim);
    }
    return dims;
}

std::vector<std::string> stage_pure_vars(const lang::FunctionContents& f, int stage) {
    return pure_vars_of(definition_of(f, stage));
}

namespace {

ir::Stmt build_definition(const lang::FunctionContents& f, int stage, const lang::Definition& d,
                          bool is_output) {
    ir::Stmt general;
    if (d.specializations.empty() || d.specializations.back().definition) {
        general = StageNest(f, stage, d, is_output).build();
    }
    for (auto it = d.specializations.rbegin(); it != d.specializations.rend(); ++it) {
        if (!it->definition) {
            Expr message =
                ir::Call::make_intrinsic(Int(32), ir::Intrinsic::ErrorMessage,
                                         {ir::make_const(Int(32), int64_t(-1)), Expr(it->failure_message)});
            general = ir::AssertStmt::make(ir::const_false(), message);
            continue;
        }
        general = ir::IfThenElse::make(it->condition, build_definition(f, stage, *it->definition, is_output),
                                       general);
    }
    return general;
}

}  // namespace

ir::Stmt build_stage_loop_nest(const lang::FunctionContents& f, int stage, bool is_output) {
    return build_definition(f, stage, definition_of(f, stage), is_output);
}

}  // namespace tessera::lowering
