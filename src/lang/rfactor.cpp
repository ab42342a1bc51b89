// Stage::rfactor: splits an associative reduction into an intermediate Func that reduces over the
// other RVars for each value of the preserved ones (kept as pure Vars, so its loops over them can
// run in parallel or as vectors), and a final reduction over the preserved RVars alone.

#include <algorithm>

#include "ir/equal.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "lang/associative_update.h"
#include "lang/function.h"
#include "schedule/stage_primitives.h"
#include "tessera/func.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

Expr combine(ir::IRKind op, const Expr& a, const Expr& b) {
    switch (op) {
        case ir::IRKind::Add: return ir::Add::make(a, b);
        case ir::IRKind::Mul: return ir::Mul::make(a, b);
        case ir::IRKind::Min: return ir::Min::make(a, b);
        default: return ir::Max::make(a, b);
    }
}

Expr identity(ir::IRKind op, Type t) {
    switch (op) {
        case ir::IRKind::Add: return ir::make_zero(t);
        case ir::IRKind::Mul: return ir::make_one(t);
        case ir::IRKind::Min: return ir::type_max(t);
        default: return ir::type_min(t);
    }
}

// A call of f held weakly, for f's own update (a Func must not own itself).
Expr weak_call(const std::shared_ptr<lang::FunctionContents>& f, const std::vector<Expr>& args) {
    auto call = std::make_shared<ir::Call>(*ir::Call::make_func(f, args, 0).as<ir::Call>());
    call->weak_func = f;
    call->func = nullptr;
    return Expr(std::shared_ptr<const ir::ExprNode>(std::move(call)));
}

Expr pure_var(const std::string& name) {
    return ir::Variable::make(Int(32), name, ir::VariableKind::PureVar);
}

bool names_rvar(const std::string& full, const std::string& name) {
    return full == name || (full.size() > name.size() + 1 &&
                            full.compare(full.size() - name.size(), name.size(), name) == 0 &&
                            full[full.size() - name.size() - 1] == '.');
}

// Rewrites the update so that the splits its schedule made of RVars are RVars of its RDom: r split
// by F into ro and ri becomes ri in [0, F) and ro in [0, ceil(extent / F)), with r = min + ro * F +
// ri and, unless F divides the extent, a predicate that skips the points past it.
void apply_rvar_splits(lang::Definition& d, const std::string& who) {
    auto rdom = std::make_shared<lang::ReductionDomainContents>(*d.rdom);
    std::map<std::string, Expr> values;  // each original RVar, in terms of the new ones
    std::vector<Expr> guards;
    for (const schedule::Split& s : d.schedule.splits) {
        auto it = std::find_if(rdom->vars.begin(), rdom->vars.end(),
                               [&](const lang::ReductionVariable& v) { return v.name == s.old_var; });
        if (it == rdom->vars.end()) continue;  // a split of a pure Var
        TESSERA_USER_CHECK(s.kind == schedule::Split::Kind::Split)
            << who << ": " << s.old_var
            << " was fused or renamed; rfactor supports RVars that were only split.";
        const lang::ReductionVariable old = *it;
        Expr factor = cast(Int(32), s.factor);
        lang::ReductionVariable inner{s.inner, ir::make_zero(Int(32)), factor};
        lang::ReductionVariable outer{s.outer, ir::make_zero(Int(32)), (old.extent + factor - 1) / factor};
        it = rdom->vars.erase(it);
        it = rdom->vars.insert(it, outer);
        rdom->vars.insert(it, inner);
        Expr offset = ir::int_var(s.outer) * factor + ir::int_var(s.inner);
        values[s.old_var] = old.min + offset;
        auto f = ir::as_const_int(factor), e = ir::as_const_int(old.extent);
        if (!(f && e && *e % *f == 0)) guards.push_back(offset < old.extent);
    }
    // Values of split RVars may mention RVars split later: substitute until none is left.
    for (auto& [name, value] : values) {
        for (size_t i = 0; i < values.size(); i++) value = ir::substitute(values, value);
    }
    std::map<std::string, Expr> renames;
    for (const lang::ReductionVariable& v : rdom->vars)
        renames[v.name] = ir::Variable::make_rvar(v.name, rdom);
    auto rewrite = [&](const Expr& e) { return ir::substitute(renames, ir::substitute(values, e)); };
    // The predicate lives in the RDom, so its RVars hold the RDom weakly (an RDom must not own itself).
    std::map<std::string, Expr> weak_renames;
    for (const lang::ReductionVariable& v : rdom->vars) {
        auto weak = std::make_shared<ir::Variable>(Int(32), v.name, ir::VariableKind::ReductionVar);
        weak->weak_rdom = rdom;
        weak_renames[v.name] = Expr(std::shared_ptr<const ir::ExprNode>(std::move(weak)));
    }
    auto rewrite_predicate = [&](const Expr& e) {
        return ir::substitute(weak_renames, ir::substitute(values, e));
    };
    for (Expr& a : d.args) a = rewrite(a);
    for (Expr& v : d.values) v = rewrite(v);
    Expr predicate = rdom->predicate.defined() ? rewrite_predicate(rdom->predicate) : Expr();
    for (const Expr& g : guards)
        predicate = predicate.defined() ? (predicate && rewrite_predicate(g)) : rewrite_predicate(g);
    rdom->predicate = predicate;
    d.rdom = rdom;
}

}  // namespace

Func Stage::rfactor(const RVar& r, const Var& v) { return rfactor({{r, v}}); }

Func Stage::rfactor(const std::vector<std::pair<RVar, Var>>& preserved) {
    lang::FunctionContents& f = *function_;
    const std::string who = ref().describe() + ".rfactor(...)";
    TESSERA_USER_CHECK(index_ > 0 && specialization_.empty())
        << who << ": rfactor applies to an update definition (f.update(i)), not to " << ref().describe()
        << ".";
    lang::Definition& d = ref().definition();
    TESSERA_USER_CHECK(d.rdom) << who << ": the update has no RDom to factor.";
    apply_rvar_splits(d, who);
    TESSERA_USER_CHECK(d.values.size() == 1) << who << ": rfactor supports updates of one value, not Tuples.";
    for (const Expr& a : d.args) {
        const ir::Variable* v = a.as<ir::Variable>();
        TESSERA_USER_CHECK(v && v->var_kind == ir::VariableKind::PureVar)
            << who << ": the update writes " << f.name << " at " << a
            << "; rfactor needs an update whose left-hand side is " << f.name << "'s pure Vars.";
    }
    std::optional<lang::AssociativeUpdate> update = lang::associative_update(d.values[0], f, d.args);
    TESSERA_USER_CHECK(update) << who << ": the update " << d.values[0] << " is not of the form " << f.name
                               << "(...) = " << f.name << "(...) op e with op one of +, *, min, max, which "
                               << "rfactor can reassociate.";
    std::map<std::string, Expr> to_vars;
    std::vector<std::string> preserved_vars;
    std::vector<std::string> preserved_rvars;
    for (const auto& [r, v] : preserved) {
        auto found =
            std::find_if(d.rdom->vars.begin(), d.rdom->vars.end(),
                         [&](const lang::ReductionVariable& rv) { return names_rvar(rv.name, r.name()); });
        TESSERA_USER_CHECK(found != d.rdom->vars.end())
            << who << ": " << r.name() << " is not an RVar of this update's RDom (or a split of one).";
        preserved_rvars.push_back(found->name);
        TESSERA_USER_CHECK(std::find(f.pure_args.begin(), f.pure_args.end(), v.name()) == f.pure_args.end())
            << who << ": " << v.name() << " is already a Var of " << f.name << "; preserve " << r.name()
            << " as a new Var.";
        to_vars[found->name] = pure_var(v.name());
        preserved_vars.push_back(v.name());
    }

    // The intermediate: f's Vars and the preserved ones, reduced over the other RVars.
    auto intermediate = lang::make_function(f.name + "_intm");
    intermediate->pure_args = f.pure_args;
    for (const std::string& v : preserved_vars) intermediate->pure_args.push_back(v);
    intermediate->output_types = f.output_types;
    for (const std::string& a : intermediate->pure_args) intermediate->pure.args.push_back(pure_var(a));
    intermediate->pure.values = {identity(update->op, f.output_types[0])};
    lang::Definition reduce;
    reduce.args = intermediate->pure.args;
    auto others = std::make_shared<lang::ReductionDomainContents>();
    others->name = d.rdom->name + "_intm";
    for (const lang::ReductionVariable& rv : d.rdom->vars) {
        if (!to_vars.count(rv.name)) others->vars.push_back(rv);
    }
    if (d.rdom->predicate.defined()) others->predicate = ir::substitute(to_vars, d.rdom->predicate);
    if (!others->vars.empty() || others->predicate.defined()) reduce.rdom = others;
    reduce.values = {
        combine(update->op, weak_call(intermediate, reduce.args), ir::substitute(to_vars, update->rest))};
    intermediate->updates.push_back(std::move(reduce));

    // f's update now reduces the intermediate over the preserved RVars alone.
    auto kept = std::make_shared<lang::ReductionDomainContents>();
    kept->name = d.rdom->name;
    std::vector<Expr> intermediate_args = d.args;
    for (const lang::ReductionVariable& rv : d.rdom->vars) {
        if (std::find(preserved_rvars.begin(), preserved_rvars.end(), rv.name) != preserved_rvars.end())
            kept->vars.push_back(rv);
    }
    for (const std::string& name : preserved_rvars)
        intermediate_args.push_back(ir::Variable::make_rvar(name, kept));
    Expr self = weak_call(function_, d.args);
    d.values = {combine(update->op, self, ir::Call::make_func(intermediate, intermediate_args, 0))};
    d.rdom = kept;
    d.schedule = schedule::StageSchedule{};
    d.specializations.clear();
    f.touch();
    return Func(intermediate);
}

}  // namespace tessera
