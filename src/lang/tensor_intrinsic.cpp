// TensorIntrinsic: a declaration read into the loop nest and statement that lowering matches.

#include "lang/tensor_intrinsic.h"

#include <algorithm>
#include <sstream>

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/visitor.h"
#include "lang/function.h"
#include "schedule/stage_primitives.h"
#include "tessera/tensorize.h"
#include "util/c_identifier.h"
#include "util/error_stream.h"

namespace tessera::lang {
namespace {

// The Image calls of an expression, by name, with their parameters.
class FindImageCalls : public ir::Visitor {
public:
    std::vector<const ir::Call*> calls;

protected:
    void visit(const ir::Call* op) override {
        if (op->call_type == ir::CallType::Image) calls.push_back(op);
        ir::Visitor::visit(op);
    }
};

const Definition& matched_definition(const FunctionContents& f) {
    const Definition& d = f.updates.empty() ? f.pure : f.updates.back();
    TESSERA_USER_CHECK(d.defined()) << "The declaration of a tensor intrinsic, Func " << f.name
                                    << ", has no definition.";
    TESSERA_USER_CHECK(d.values.size() == 1) << "The declaration of a tensor intrinsic, Func " << f.name
                                             << ", has " << d.values.size() << " values; declare one.";
    TESSERA_USER_CHECK(d.specializations.empty() && d.schedule.splits.empty())
        << "The declaration of a tensor intrinsic, Func " << f.name
        << ", is split or specialized; its loops must be those of its Vars and RVars, reordered at most.";
    return d;
}

Expr pure_var_extent(const FunctionContents& f, const std::string& var) {
    for (const schedule::Bound& b : f.schedule.bounds) {
        if (b.var != var) continue;
        TESSERA_USER_CHECK(b.min.defined() && ir::is_const_zero(b.min) && ir::is_const(b.extent))
            << "The declaration of a tensor intrinsic, Func " << f.name << ", bounds " << var
            << " to an extent of " << b.extent
            << (b.min.defined() ? " from a min that is not 0" : " from any min")
            << "; give it a constant region from 0 with bound(" << var << ", 0, extent).";
        return b.extent;
    }
    TESSERA_USER_ERROR << "The declaration of a tensor intrinsic, Func " << f.name
                       << ", leaves the extent of " << var << " open; give it with " << f.name << ".bound("
                       << var << ", 0, extent).";
    return Expr();
}

Expr reduction_var_extent(const Definition& d, const std::string& var,
                          const std::vector<std::string>& extent_params, const std::string& func) {
    for (const ReductionVariable& r : d.rdom->vars) {
        if (r.name != var) continue;
        TESSERA_USER_CHECK(ir::is_const_zero(r.min))
            << "The declaration of a tensor intrinsic, Func " << func << ", reduces over " << var << " from "
            << r.min << "; start it at 0.";
        if (ir::is_const(r.extent)) return r.extent;
        const ir::Variable* p = r.extent.as<ir::Variable>();
        TESSERA_USER_CHECK(p && p->param &&
                           std::count(extent_params.begin(), extent_params.end(), p->name) == 1)
            << "The declaration of a tensor intrinsic, Func " << func << ", reduces over " << var
            << " with extent " << r.extent
            << "; an extent must be a constant or a Param<int> given in the intrinsic's extents.";
        return r.extent;
    }
    TESSERA_INTERNAL_ERROR << "no reduction variable " << var;
    return Expr();
}

TensorOperand input_operand(const std::vector<const ir::Call*>& calls, const std::string& name,
                            const std::string& func) {
    for (const ir::Call* c : calls) {
        if (c->name == name) return {name, c->type, int(c->args.size())};
    }
    TESSERA_USER_ERROR << "The declaration of a tensor intrinsic, Func " << func
                       << ", does not read its input " << name << ".";
    return {};
}

}  // namespace

TensorIntrinsicContents declare_tensor_intrinsic(const std::string& name, const Func& declaration,
                                                 const std::vector<std::string>& input_names,
                                                 const std::vector<std::string>& extent_params) {
    const FunctionContents& f = *declaration.function();
    const Definition& d = matched_definition(f);
    TensorIntrinsicContents c;
    c.name = name;
    c.output = {f.name, f.output_types.at(0), int(f.pure_args.size())};
    c.output_args = d.args;
    c.value = d.values[0];
    c.extent_params = extent_params;

    std::vector<schedule::Dim> dims = d.schedule.dims.empty() ? schedule::default_dims(d) : d.schedule.dims;
    for (auto dim = dims.rbegin(); dim != dims.rend(); ++dim) {
        Expr extent = dim->is_rvar ? reduction_var_extent(d, dim->var, extent_params, f.name)
                                   : pure_var_extent(f, dim->var);
        c.loops.push_back({dim->var, extent});
    }

    FindImageCalls finder;
    finder.include(c.value);
    for (const std::string& input : input_names)
        c.inputs.push_back(input_operand(finder.calls, input, f.name));
    for (const ir::Call* call : finder.calls) {
        TESSERA_USER_CHECK(std::count(input_names.begin(), input_names.end(), call->name) == 1)
            << "The declaration of a tensor intrinsic, Func " << f.name << ", reads " << call->name
            << ", which is not among the intrinsic's inputs; list each ImageParam it reads once.";
    }
    return c;
}

std::string TensorIntrinsicContents::describe() const {
    std::ostringstream out;
    std::string indent;
    for (const TensorLoop& l : loops) {
        out << indent << "for " << l.var << " in [0, " << l.extent << "):\n";
        indent += "  ";
    }
    out << indent << output.name << "(";
    for (size_t i = 0; i < output_args.size(); i++) out << (i ? ", " : "") << output_args[i];
    out << ") = " << ir::simplify(value);
    return out.str();
}

}  // namespace tessera::lang

namespace tessera {

TensorIntrinsic TensorIntrinsic::extern_function(const std::string& function_name, const Func& declaration,
                                                 const std::vector<ImageParam>& inputs, const void* address,
                                                 const std::vector<Param<int>>& extents) {
    TESSERA_USER_CHECK(util::is_c_identifier(function_name))
        << "The tensor intrinsic's function name \"" << function_name
        << "\" is not a C identifier; name it as the C function it calls.";
    TESSERA_USER_CHECK(address) << "The tensor intrinsic " << function_name
                                << " has no address; pass the function itself (&" << function_name << ").";
    std::vector<std::string> input_names, extent_names;
    for (const ImageParam& p : inputs) input_names.push_back(p.name());
    for (const Param<int>& p : extents) extent_names.push_back(p.name());
    auto c = std::make_shared<lang::TensorIntrinsicContents>(
        lang::declare_tensor_intrinsic(function_name, declaration, input_names, extent_names));
    c->implementation = lang::TensorImplementation::ExternFunction;
    c->function_name = function_name;
    c->address = address;
    return TensorIntrinsic(std::move(c));
}

const std::string& TensorIntrinsic::name() const { return contents_->name; }

std::string TensorIntrinsic::to_string() const { return contents_->describe(); }

}  // namespace tessera
