// sum, product, maximum, minimum, argmax and argmin: a reduction over an RDom as a helper Func
// (anonymous, or the caller's), evaluated at the expression's free Vars. When the RDom is given
// explicitly, the RVars of any other RDom in the expression become arguments of the helper too,
// so that they stay free in the result.

#include <map>
#include <set>

#include "ir/ir_util.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "lang/function.h"
#include "tessera/func.h"
#include "tessera/inline_reductions.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

using RDomPtr = std::shared_ptr<lang::ReductionDomainContents>;

class FindFreeVariables : public ir::Visitor {
public:
    std::vector<Expr> vars;                  // pure Vars, in order of appearance
    std::vector<const ir::Variable*> rvars;  // RVars, in order of appearance
    std::vector<RDomPtr> rdoms;              // the distinct RDoms those belong to

private:
    std::set<std::string> seen;
    void visit(const ir::Variable* op) override {
        if (op->var_kind == ir::VariableKind::PureVar && seen.insert(op->name).second)
            vars.push_back(ir::handle_of(op));
        if (op->var_kind == ir::VariableKind::ReductionVar && seen.insert(op->name).second) {
            rvars.push_back(op);
            if (std::find(rdoms.begin(), rdoms.end(), op->domain()) == rdoms.end())
                rdoms.push_back(op->domain());
        }
    }
};

// What a reduction of e defines and calls: helper(def_args) is updated with `value` over `rdom`,
// and the result is helper(call_args).
struct Reduction {
    RDomPtr rdom;
    Expr value;
    std::vector<Var> def_args;
    std::vector<Expr> call_args;
};

Reduction analyze(const Expr& e, const RDom* explicit_rdom, const char* reduction) {
    TESSERA_USER_CHECK(e.defined()) << reduction << "() of an undefined Expr.";
    FindFreeVariables finder;
    finder.include(e);
    Reduction r;
    if (explicit_rdom) {
        TESSERA_USER_CHECK(explicit_rdom->defined()) << reduction << "() over an undefined RDom.";
        r.rdom = explicit_rdom->contents();
    } else {
        TESSERA_USER_CHECK(!finder.rdoms.empty())
            << reduction
            << "() needs an expression that uses an RDom (the values to reduce over); this one uses none.";
        TESSERA_USER_CHECK(finder.rdoms.size() == 1)
            << reduction << "() of an expression that uses two RDoms (" << finder.rdoms[0]->name << " and "
            << finder.rdoms[1]->name
            << "); use one multi-dimensional RDom, or name the one to reduce over: " << reduction
            << "(r, e).";
        r.rdom = finder.rdoms[0];
    }
    if (r.rdom->predicate.defined()) finder.include(r.rdom->predicate);
    // The free pure Vars are the helper's first arguments; RVars of other RDoms follow, each
    // replaced inside the helper by a fresh Var.
    std::map<std::string, Expr> replacements;
    for (const Expr& v : finder.vars) {
        r.def_args.emplace_back(v.as<ir::Variable>()->name);
        r.call_args.push_back(v);
    }
    for (const ir::Variable* rv : finder.rvars) {
        if (rv->domain() == r.rdom) continue;
        Var fresh(lang::unique_name(reduction + std::string("_") + rv->name));
        replacements[rv->name] = fresh;
        r.def_args.push_back(fresh);
        r.call_args.push_back(ir::handle_of(rv));
    }
    r.value = replacements.empty() ? e : ir::substitute(replacements, e);
    return r;
}

Func helper_func(const Func* given, const std::string& name, const char* reduction) {
    if (!given) return Func(name);
    TESSERA_USER_CHECK(!given->defined()) << reduction << "() into Func " << given->name()
                                          << ", which already has a definition. Pass a new, undefined Func.";
    return *given;
}

using Combine = Expr (*)(const Expr& current, const Expr& value);

Expr reduce(const Expr& e, const RDom* rdom, const Func* given, const std::string& name,
            const char* reduction, Expr (*initial)(Type), Combine combine) {
    Reduction r = analyze(e, rdom, reduction);
    Func f = helper_func(given, name, reduction);
    f(r.def_args) = initial(r.value.type());
    f(r.def_args) = combine(f(r.def_args), r.value);
    return f(r.call_args);
}

Tuple arg_reduce(const Expr& e, const RDom* rdom, const Func* given, const std::string& name,
                 const char* reduction, bool want_max) {
    Reduction r = analyze(e, rdom, reduction);
    const int dims = int(r.rdom->vars.size());
    const Type t = r.value.type();
    std::vector<Expr> initial(dims, Expr(0)), candidate;
    initial.push_back(want_max ? t.min() : t.max());
    for (int i = 0; i < dims; i++) candidate.push_back(RVar(r.rdom, i));
    candidate.push_back(r.value);
    Func f = helper_func(given, name, reduction);
    f(r.def_args) = Tuple(initial);
    FuncRef current = f(r.def_args);
    Expr best = current[dims];
    // Strictly better only, so that the first occurrence wins ties.
    Expr better = want_max ? r.value > best : r.value < best;
    std::vector<Expr> update;
    for (int i = 0; i <= dims; i++) update.push_back(select(better, candidate[i], current[i]));
    f(r.def_args) = Tuple(update);
    std::vector<Expr> result;
    for (int i = 0; i <= dims; i++) result.push_back(f(r.call_args)[i]);
    return Tuple(result);
}

Expr zero_of(Type t) { return ir::make_zero(t); }
Expr one_of(Type t) { return ir::make_one(t); }
Expr lowest_of(Type t) { return t.min(); }
Expr highest_of(Type t) { return t.max(); }
Expr add(const Expr& a, const Expr& b) { return a + b; }
Expr multiply(const Expr& a, const Expr& b) { return a * b; }
Expr larger(const Expr& a, const Expr& b) { return max(a, b); }
Expr smaller(const Expr& a, const Expr& b) { return min(a, b); }

// a + b clamped to the type's range (a and b have one type).
Expr saturating_add(const Expr& a, const Expr& b) {
    const Type t = a.type();
    if (t.is_float()) return a + b;
    if (t.bits() < 64)
        return saturating_cast(t, cast(t.with_bits(t.bits() * 2), a) + cast(t.with_bits(t.bits() * 2), b));
    Expr wrapped = a + b;
    if (t.is_uint()) return select(wrapped < a, t.max(), wrapped);
    // Signed overflow happened when a and b have one sign and the wrapped sum the other.
    Expr overflow = (a < 0) == (b < 0) && (wrapped < 0) != (a < 0);
    return select(overflow, select(a < 0, t.min(), t.max()), wrapped);
}

}  // namespace

#define TESSERA_DEFINE_REDUCTION(fn, initial, combine)                                           \
    Expr fn(Expr e, const std::string& name) {                                                   \
        return reduce(e, nullptr, nullptr, name, #fn, initial, combine);                         \
    }                                                                                            \
    Expr fn(const RDom& r, Expr e, const std::string& name) {                                    \
        return reduce(e, &r, nullptr, name, #fn, initial, combine);                              \
    }                                                                                            \
    Expr fn(Expr e, const Func& f) { return reduce(e, nullptr, &f, "", #fn, initial, combine); } \
    Expr fn(const RDom& r, Expr e, const Func& f) { return reduce(e, &r, &f, "", #fn, initial, combine); }

TESSERA_DEFINE_REDUCTION(sum, zero_of, add)
TESSERA_DEFINE_REDUCTION(saturating_sum, zero_of, saturating_add)
TESSERA_DEFINE_REDUCTION(product, one_of, multiply)
TESSERA_DEFINE_REDUCTION(maximum, lowest_of, larger)
TESSERA_DEFINE_REDUCTION(minimum, highest_of, smaller)
#undef TESSERA_DEFINE_REDUCTION

Tuple argmax(Expr e, const std::string& name) {
    return arg_reduce(e, nullptr, nullptr, name, "argmax", true);
}
Tuple argmin(Expr e, const std::string& name) {
    return arg_reduce(e, nullptr, nullptr, name, "argmin", false);
}
Tuple argmax(const RDom& r, Expr e, const std::string& name) {
    return arg_reduce(e, &r, nullptr, name, "argmax", true);
}
Tuple argmin(const RDom& r, Expr e, const std::string& name) {
    return arg_reduce(e, &r, nullptr, name, "argmin", false);
}
Tuple argmax(Expr e, const Func& f) { return arg_reduce(e, nullptr, &f, "", "argmax", true); }
Tuple argmin(Expr e, const Func& f) { return arg_reduce(e, nullptr, &f, "", "argmin", false); }
Tuple argmax(const RDom& r, Expr e, const Func& f) { return arg_reduce(e, &r, &f, "", "argmax", true); }
Tuple argmin(const RDom& r, Expr e, const Func& f) { return arg_reduce(e, &r, &f, "", "argmin", false); }

}  // namespace tessera
