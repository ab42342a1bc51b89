#include "lowering/add_param_checks.h"

#include "ir/ir_util.h"
#include "lang/parameter.h"
#include "lowering/names.h"
#include "tessera/runtime.h"

namespace tessera::lowering {
namespace {

using ir::Expr;
using ir::Stmt;

// Asserts that the Param's value is at or above (is_min) or at or below its bound.
Stmt range_check(const PipelineArgument& a, const Expr& bound, bool is_min) {
    Expr value = ir::Variable::make(a.type, a.name);
    Expr limit = bound.type() == a.type ? bound : ir::Cast::make(a.type, bound);
    Expr ok = is_min ? ir::GE::make(value, limit) : ir::LE::make(value, limit);
    Expr message = ir::Call::make_intrinsic(
        Int(32), ir::Intrinsic::ErrorMessage,
        {ir::make_const(Int(32), int64_t(tessera_error_param_out_of_range)), Expr("Param " + a.name + " is "),
         value, Expr(is_min ? ", below its minimum of " : ", above its maximum of "), limit,
         Expr(". Pass a value within the range.")});
    return ir::AssertStmt::make(ok, message);
}

}  // namespace

Stmt add_param_checks(const Stmt& s, const std::vector<PipelineArgument>& args) {
    std::vector<Stmt> checks;
    for (const PipelineArgument& a : args) {
        if (a.kind != PipelineArgument::Kind::Scalar || !a.param || a.type.is_bool()) continue;
        if (a.param->min_value.defined()) checks.push_back(range_check(a, a.param->min_value, true));
        if (a.param->max_value.defined()) checks.push_back(range_check(a, a.param->max_value, false));
    }
    if (checks.empty()) return s;
    checks.push_back(s);
    return ir::Block::make(std::move(checks));
}

}  // namespace tessera::lowering
