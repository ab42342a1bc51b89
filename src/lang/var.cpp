#include "tessera/var.h"

#include "ir/expr_nodes.h"
#include "lang/function.h"

namespace tessera {

Var::Var() : name_(lang::unique_name("v")) {}
Var::Var(const std::string& name) : name_(name) {}
Var::operator Expr() const { return ir::Variable::make(Int(32), name_, ir::VariableKind::PureVar); }
Var Var::implicit(int i) { return Var("_" + std::to_string(i)); }
bool Var::is_implicit(const std::string& name) {
    return name.size() > 1 && name[0] == '_' && name.find_first_not_of("0123456789", 1) == std::string::npos;
}

}  // namespace tessera
