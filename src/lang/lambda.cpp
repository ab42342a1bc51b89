#include "tessera/lambda.h"

#include "ir/visitor.h"
#include "lang/function.h"

namespace tessera {
namespace {

// The largest index of an implicit Var (_0, _1, ...) that e mentions, or -1.
class HighestImplicitVar : public ir::Visitor {
public:
    int highest = -1;

private:
    void visit(const ir::Variable* op) override {
        if (op->var_kind == ir::VariableKind::PureVar)
            highest = std::max(highest, Var::implicit_index(op->name));
    }
};

Func define(const std::vector<Var>& vars, const Expr& e) {
    Func f(lang::unique_name("lambda"));
    f(vars) = e;
    return f;
}

}  // namespace

Func lambda(const Expr& e) {
    HighestImplicitVar finder;
    finder.include(e);
    std::vector<Var> vars;
    for (int i = 0; i <= finder.highest; i++) vars.push_back(Var::implicit(i));
    return define(vars, e);
}
Func lambda(const Var& x, const Expr& e) { return define({x}, e); }
Func lambda(const Var& x, const Var& y, const Expr& e) { return define({x, y}, e); }
Func lambda(const Var& x, const Var& y, const Var& z, const Expr& e) { return define({x, y, z}, e); }
Func lambda(const Var& x, const Var& y, const Var& z, const Var& w, const Expr& e) {
    return define({x, y, z, w}, e);
}
Func lambda(const Var& x, const Var& y, const Var& z, const Var& w, const Var& v, const Expr& e) {
    return define({x, y, z, w, v}, e);
}

}  // namespace tessera
