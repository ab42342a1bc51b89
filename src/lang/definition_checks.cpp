#include "lang/definition_checks.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "ir/printer.h"
#include "ir/visitor.h"
#include "tessera/operators.h"
#include "util/error_stream.h"

namespace tessera::lang {
namespace {

// Every Var and RVar an expression mentions, in order of first appearance.
class CollectVariables : public ir::Visitor {
public:
    std::vector<const ir::Variable*> pure_vars, reduction_vars;

private:
    std::set<std::string> seen;
    void visit(const ir::Variable* op) override {
        if (!seen.insert(op->name).second) return;
        if (op->var_kind == ir::VariableKind::PureVar) pure_vars.push_back(op);
        if (op->var_kind == ir::VariableKind::ReductionVar) reduction_vars.push_back(op);
    }
    void visit(const ir::Call* op) override { ir::Visitor::visit(op); }
};

CollectVariables collect(const std::vector<Expr>& exprs) {
    CollectVariables c;
    for (const Expr& e : exprs) c.include(e);
    return c;
}

const ir::Variable* as_pure_var(const Expr& e) {
    const ir::Variable* v = e.as<ir::Variable>();
    return v && v->var_kind == ir::VariableKind::PureVar ? v : nullptr;
}

std::string join_names(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); i++) out += (i ? ", " : "") + names[i];
    return out;
}

void check_values(const FunctionContents& f, const std::vector<Expr>& values) {
    for (const Expr& v : values) {
        TESSERA_USER_CHECK(v.defined()) << "Func " << f.name << " is defined with an undefined Expr.";
        TESSERA_USER_CHECK(!v.type().is_handle())
            << "Func " << f.name << " is defined with a string or handle value (" << v
            << "); Funcs hold numbers.";
    }
}

}  // namespace

std::string describe_definition(const std::string& name, const std::vector<Expr>& args,
                                const std::vector<Expr>& values) {
    std::ostringstream s;
    s << name << "(";
    for (size_t i = 0; i < args.size(); i++) s << (i ? ", " : "") << args[i];
    s << ") = ";
    if (values.size() == 1) {
        s << values[0];
    } else {
        s << "{";
        for (size_t i = 0; i < values.size(); i++) s << (i ? ", " : "") << values[i];
        s << "}";
    }
    return s.str();
}

std::vector<Expr> checked_call_args(const FunctionContents& f, const std::vector<Expr>& args,
                                    const char* what) {
    if (f.defined()) {
        TESSERA_USER_CHECK(int(args.size()) == f.dimensions())
            << what << " " << f.name << " with " << args.size() << " argument"
            << (args.size() == 1 ? "" : "s") << ", but " << f.name << " is defined over " << f.dimensions()
            << " (" << join_names(f.pure_args) << "). Pass exactly one coordinate per dimension.";
    }
    std::vector<Expr> result;
    for (size_t i = 0; i < args.size(); i++) {
        const Expr& a = args[i];
        TESSERA_USER_CHECK(a.defined())
            << what << " " << f.name << ": argument " << i << " is an undefined Expr.";
        TESSERA_USER_CHECK(a.type().is_int_or_uint() && a.type().is_scalar())
            << what << " " << f.name << ": argument " << i << " (" << a << ") has type "
            << type_name(a.type())
            << ", but Func coordinates are integers. Cast it with cast<int>() (or floor/round first).";
        result.push_back(a.type() == Int(32) ? a : cast(Int(32), a));
    }
    return result;
}

void check_pure_definition(const FunctionContents& f, const std::vector<Expr>& args,
                           const std::vector<Expr>& values) {
    check_values(f, values);
    std::vector<std::string> names;
    for (const Expr& a : args) {
        const ir::Variable* v = as_pure_var(a);
        TESSERA_INTERNAL_CHECK(v) << "pure definition with a non-Var argument";
        TESSERA_USER_CHECK(std::find(names.begin(), names.end(), v->name) == names.end())
            << "in the definition " << describe_definition(f.name, args, values) << ", the Var " << v->name
            << " appears twice on the left. Each dimension of " << f.name << " needs its own Var.";
        names.push_back(v->name);
    }
    CollectVariables used = collect(values);
    for (const ir::Variable* v : used.pure_vars) {
        TESSERA_USER_CHECK(std::find(names.begin(), names.end(), v->name) != names.end())
            << "in the definition " << describe_definition(f.name, args, values) << ", the Var " << v->name
            << " on the right is not one of " << f.name << "'s arguments (" << join_names(names)
            << "). Add it to the left-hand side, or replace it by an expression of the arguments.";
    }
    if (!used.reduction_vars.empty()) {
        TESSERA_USER_ERROR
            << "the pure definition " << describe_definition(f.name, args, values) << " uses the RVar "
            << used.reduction_vars[0]->name << ". A pure definition cannot iterate over an RDom: give "
            << f.name << " a pure definition first (e.g. " << f.name
            << "(...) = 0), then an update that uses the RDom, or use an inline reduction such as sum().";
    }
}

std::shared_ptr<ReductionDomainContents> check_update_definition(const FunctionContents& f,
                                                                 const std::vector<Expr>& args,
                                                                 const std::vector<Expr>& values) {
    check_values(f, values);
    const std::string text = describe_definition(f.name, args, values);
    TESSERA_USER_CHECK(values.size() == f.output_types.size())
        << "the update " << text << " gives " << values.size() << " value" << (values.size() == 1 ? "" : "s")
        << ", but " << f.name << " was defined with " << f.output_types.size() << ".";
    for (size_t i = 0; i < values.size(); i++) {
        TESSERA_USER_CHECK(values[i].type() == f.output_types[i])
            << "the update " << text << " has type " << type_name(values[i].type()) << ", but " << f.name
            << " was defined with type " << type_name(f.output_types[i])
            << ". Cast the right-hand side with cast<" << type_name(f.output_types[i])
            << ">(...) or change the pure definition's type.";
    }
    // Bare Vars on the left must sit where the pure definition put them.
    std::vector<std::string> bare_vars;
    for (size_t i = 0; i < args.size(); i++) {
        if (const ir::Variable* v = as_pure_var(args[i])) {
            TESSERA_USER_CHECK(v->name == f.pure_args[i])
                << "in the update " << text << ", the Var " << v->name << " is argument " << i << ", but "
                << f.name << "'s argument " << i << " is " << f.pure_args[i]
                << ". Pure Vars in an update must keep their positions from the pure definition.";
            bare_vars.push_back(v->name);
        }
    }
    std::vector<Expr> everything = values;
    everything.insert(everything.end(), args.begin(), args.end());
    CollectVariables used = collect(everything);
    for (const ir::Variable* v : used.pure_vars) {
        TESSERA_USER_CHECK(std::find(bare_vars.begin(), bare_vars.end(), v->name) != bare_vars.end())
            << "in the update " << text << ", the Var " << v->name
            << " is free: it does not appear by itself as an argument on the left. Use " << v->name
            << " as a whole argument of " << f.name << ", or iterate over values with an RDom instead.";
    }
    std::shared_ptr<ReductionDomainContents> rdom;
    for (const ir::Variable* v : used.reduction_vars) {
        TESSERA_INTERNAL_CHECK(v->domain()) << "RVar without RDom";
        if (!rdom) rdom = v->domain();
        TESSERA_USER_CHECK(rdom == v->domain())
            << "the update " << text << " uses RVars of two RDoms (" << rdom->name << " and "
            << v->domain()->name
            << "). An update iterates over one RDom; make a multi-dimensional RDom instead.";
    }
    return rdom;
}

}  // namespace tessera::lang
