// sum, product, maximum, minimum, argmax and argmin: a reduction over the RDom an expression uses,
// as an anonymous Func evaluated at the expression's free Vars.

#include <set>

#include "ir/ir_util.h"
#include "ir/visitor.h"
#include "lang/function.h"
#include "tessera/func.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

struct FreeVariables {
    std::vector<Expr> vars;  // the pure Vars, in order of appearance
    RDom rdom;
};

class FindFreeVariables : public ir::Visitor {
public:
    std::vector<Expr> vars;
    std::shared_ptr<lang::ReductionDomainContents> rdom;
    std::string second_rdom;

private:
    std::set<std::string> seen;
    void visit(const ir::Variable* op) override {
        if (op->var_kind == ir::VariableKind::PureVar && seen.insert(op->name).second) vars.push_back(ir::handle_of(op));
        if (op->var_kind == ir::VariableKind::ReductionVar) {
            if (!rdom) rdom = op->rdom;
            else if (rdom != op->rdom) second_rdom = op->rdom->name;
        }
    }
};

FindFreeVariables analyze(const Expr& e, const char* reduction) {
    TESSERA_USER_CHECK(e.defined()) << reduction << "() of an undefined Expr.";
    FindFreeVariables finder;
    finder.include(e);
    if (finder.rdom && finder.rdom->predicate.defined()) finder.include(finder.rdom->predicate);
    TESSERA_USER_CHECK(finder.rdom) << reduction << "(" << ") needs an expression that uses an RDom (the values to reduce over); "
                                    << "this one uses none.";
    TESSERA_USER_CHECK(finder.second_rdom.empty())
        << reduction << "() of an expression that uses two RDoms (" << finder.rdom->name << " and " << finder.second_rdom
        << "); use one multi-dimensional RDom.";
    return finder;
}

Expr reduce(Expr e, const std::string& name, const char* reduction, const Expr& initial,
            Expr (*combine)(const Expr& current, const Expr& value)) {
    FindFreeVariables free = analyze(e, reduction);
    Func f(name);
    f(free.vars) = initial;
    f(free.vars) = combine(f(free.vars), e);
    return f(free.vars);
}

Tuple arg_reduce(Expr e, const std::string& name, const char* reduction, bool want_max) {
    FindFreeVariables free = analyze(e, reduction);
    const int dims = int(free.rdom->vars.size());
    std::vector<Expr> initial(dims, Expr(0)), candidate;
    initial.push_back(want_max ? e.type().min() : e.type().max());
    for (int i = 0; i < dims; i++) candidate.push_back(RVar(free.rdom, i));
    candidate.push_back(e);
    Func f(name);
    f(free.vars) = Tuple(initial);
    FuncRef current = f(free.vars);
    Expr best = current[dims];
    // Strictly better only, so that the first occurrence wins ties.
    Expr better = want_max ? e > best : e < best;
    std::vector<Expr> update;
    for (int i = 0; i <= dims; i++) update.push_back(select(better, candidate[i], current[i]));
    f(free.vars) = Tuple(update);
    std::vector<Expr> result;
    for (int i = 0; i <= dims; i++) result.push_back(f(free.vars)[i]);
    return Tuple(result);
}

}  // namespace

Expr sum(Expr e, const std::string& name) {
    Expr zero = e.defined() ? ir::make_zero(e.type()) : Expr();
    return reduce(std::move(e), name, "sum", zero, [](const Expr& a, const Expr& b) { return a + b; });
}

Expr product(Expr e, const std::string& name) {
    Expr one = e.defined() ? ir::make_one(e.type()) : Expr();
    return reduce(std::move(e), name, "product", one, [](const Expr& a, const Expr& b) { return a * b; });
}

Expr maximum(Expr e, const std::string& name) {
    Expr lowest = e.defined() ? e.type().min() : Expr();
    return reduce(std::move(e), name, "maximum", lowest, [](const Expr& a, const Expr& b) { return max(a, b); });
}

Expr minimum(Expr e, const std::string& name) {
    Expr highest = e.defined() ? e.type().max() : Expr();
    return reduce(std::move(e), name, "minimum", highest, [](const Expr& a, const Expr& b) { return min(a, b); });
}

Tuple argmax(Expr e, const std::string& name) { return arg_reduce(std::move(e), name, "argmax", true); }
Tuple argmin(Expr e, const std::string& name) { return arg_reduce(std::move(e), name, "argmin", false); }

}  // namespace tessera
