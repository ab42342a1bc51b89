#include "lowering/pipeline_arguments.h"

#include <map>
#include <set>

#include "ir/ir_util.h"
#include "ir/visitor.h"
#include "lang/parameter.h"
#include "lowering/names.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

bool dense_in_dimension_0(const PipelineArgument& a) {
    if (a.kind == PipelineArgument::Kind::Scalar || a.dimensions == 0) return false;
    if (a.buffer) return a.buffer->raw.dimensions > 0 && a.buffer->raw.dim[0].stride == 1;
    // An ImageParam or an output: stride 1 unless its dimension 0 says otherwise.
    if (!a.param || a.param->constraints.empty()) return true;
    return ir::is_const(a.param->constraints[0].stride, 1);
}

class FindInputs : public ir::Visitor {
public:
    std::map<std::string, PipelineArgument> buffers, scalars;

private:
    void visit(const ir::Call* op) override {
        ir::Visitor::visit(op);
        if (op->call_type != ir::CallType::Image) return;
        PipelineArgument arg{PipelineArgument::Kind::InputBuffer,
                             op->name,
                             op->type,
                             int(op->args.size()),
                             op->image,
                             op->param,
                             "",
                             0};
        auto [it, inserted] = buffers.emplace(op->name, arg);
        if (!inserted) {
            TESSERA_USER_CHECK(it->second.buffer == op->image && it->second.param == op->param)
                << "two different input buffers are both named " << op->name << "; give them distinct names.";
        }
    }
    void visit(const ir::Variable* op) override {
        if (op->var_kind != ir::VariableKind::Param) return;
        if (op->param->is_output) return;  // a field of an output's buffer, bound as the output is
        if (op->param->is_buffer) {
            // A field of an ImageParam (its min, extent or stride): the ImageParam is an input.
            const lang::ParameterContents& p = *op->param;
            PipelineArgument arg{
                PipelineArgument::Kind::InputBuffer, p.name, p.type, p.dimensions, nullptr, op->param, "", 0};
            buffers.emplace(p.name, arg);
            return;
        }
        PipelineArgument arg{
            PipelineArgument::Kind::Scalar, op->name, op->type, 0, nullptr, op->param, "", 0};
        auto [it, inserted] = scalars.emplace(op->name, arg);
        if (!inserted) {
            TESSERA_USER_CHECK(it->second.param == op->param)
                << "two different Params are both named " << op->name << "; give them distinct names.";
        }
    }
};

}  // namespace

std::vector<PipelineArgument> pipeline_arguments(const Environment& env, const ir::Stmt& s) {
    std::vector<PipelineArgument> args;
    for (const std::string& name : env.outputs) {
        const lang::FunctionContents& f = env.function(name);
        const int values = int(f.output_types.size());
        for (int i = 0; i < values; i++) {
            std::shared_ptr<lang::ParameterContents> constraints =
                i < int(f.output_buffers.size()) ? f.output_buffers[i] : nullptr;
            args.push_back({PipelineArgument::Kind::OutputBuffer, value_buffer(name, i, values),
                            f.output_types[i], f.dimensions(), nullptr, constraints, name, i});
        }
    }
    FindInputs finder;
    finder.include(s);
    // bound(), bound_extent() and align_bounds() may read Params; bounds inference puts them in the
    // statement only later.
    for (const std::string& name : env.order) {
        const schedule::FuncSchedule& schedule = env.function(name).schedule;
        for (const schedule::Bound& b : schedule.bounds) {
            for (const Expr& e : {b.min, b.extent}) {
                if (e.defined()) finder.include(e);
            }
        }
        for (const schedule::Alignment& a : schedule.alignments) {
            finder.include(a.modulus);
            finder.include(a.remainder);
        }
    }
    // What the buffers' shapes are required to be may read Params and other buffers' shapes too.
    std::set<const lang::ParameterContents*> constrained;
    auto include_requirements = [&](const std::shared_ptr<lang::ParameterContents>& p) {
        if (!p || !constrained.insert(p.get()).second) return false;
        for (const lang::BufferConstraint& c : p->constraints) {
            for (const Expr& e : {c.min, c.extent, c.stride}) {
                if (e.defined()) finder.include(e);
            }
        }
        return true;
    };
    for (const PipelineArgument& a : args) include_requirements(a.param);
    for (bool more = true; more;) {
        more = false;
        for (auto& [name, arg] : finder.buffers) more = include_requirements(arg.param) || more;
    }
    for (auto& [name, arg] : finder.buffers) args.push_back(arg);
    for (auto& [name, arg] : finder.scalars) args.push_back(arg);
    for (PipelineArgument& a : args) a.dense_dimension_0 = dense_in_dimension_0(a);
    return args;
}

}  // namespace tessera::lowering
