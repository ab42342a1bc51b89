#include "tessera/var.h"

#include "ir/expr_nodes.h"
#include "lang/function.h"
#include "lang/implicit_vars.h"

namespace tessera {

Var::Var() : name_(lang::unique_name("v")) {}
Var::Var(const std::string& name) : name_(name) {}
Var::operator Expr() const { return ir::Variable::make(Int(32), name_, ir::VariableKind::PureVar); }
Var Var::implicit(int i) { return Var("_" + std::to_string(i)); }
int Var::implicit_index(const std::string& name) {
    return is_implicit(name) ? std::stoi(name.substr(1)) : -1;
}
bool Var::is_implicit(const std::string& name) {
    return name.size() > 1 && name[0] == '_' && name.find_first_not_of("0123456789", 1) == std::string::npos;
}

namespace lang {

void expand_placeholder(std::vector<Expr>& args, int dimensions) {
    int placeholder = -1, highest = -1;
    for (size_t i = 0; i < args.size(); i++) {
        const ir::Variable* v = args[i].as<ir::Variable>();
        if (!v || v->var_kind != ir::VariableKind::PureVar) continue;
        if (Var::is_placeholder(v->name) && placeholder < 0) placeholder = int(i);
        highest = std::max(highest, Var::implicit_index(v->name));
    }
    if (placeholder < 0) return;
    std::vector<Expr> implicit;
    const int count = dimensions - int(args.size()) + 1;
    for (int k = 0; k < count; k++) implicit.push_back(Var::implicit(highest + 1 + k));
    args.erase(args.begin() + placeholder);
    args.insert(args.begin() + placeholder, implicit.begin(), implicit.end());
}

}  // namespace lang

}  // namespace tessera
