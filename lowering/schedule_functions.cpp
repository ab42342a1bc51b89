#include "lowering/schedule_functions.h"

#include "ir/ir_util.h"
#include "ir/substitute.h"
#include "lowering/names.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

const lang::Definition& definition_of(const lang::FunctionContents& f, int stage) {
    return stage == 0 ? f.pure : f.updates[stage - 1];
}

// A statement printing "Store f(x, y) = v" for each value, for trace_stores().
ir::Stmt trace(const std::string& name, const std::vector<Expr>& args, const std::vector<Expr>& values) {
    std::vector<ir::Stmt> prints;
    for (size_t i = 0; i < values.size(); i++) {
        std::vector<Expr> parts{
            Expr("Store " + name + (values.size() > 1 ? "." + std::to_string(i) : "") + "(")};
        for (size_t d = 0; d < args.size(); d++) {
            parts.push_back(args[d]);
            if (d + 1 < args.size()) parts.push_back(Expr(","));
        }
        parts.push_back(Expr(") ="));
        parts.push_back(values[i]);
        prints.push_back(ir::Evaluate::make(ir::Call::make_intrinsic(Int(32), ir::Intrinsic::Print, parts)));
    }
    return ir::Block::make(std::move(prints));
}

// The store of one stage's values at its (renamed) arguments, guarded by the RDom's predicate.
ir::Stmt stage_body(const lang::FunctionContents& f, int stage, const std::map<std::string, Expr>& renames) {
    const lang::Definition& d = definition_of(f, stage);
    std::vector<Expr> args, values;
    for (const Expr& a : d.args) args.push_back(ir::substitute(renames, a));
    for (const Expr& v : d.values) values.push_back(ir::substitute(renames, v));
    ir::Stmt body = ir::Provide::make(f.name, values, args);
    if (f.trace_stores) body = ir::Block::make(trace(f.name, args, values), body);
    if (d.rdom && d.rdom->predicate.defined()) {
        body = ir::IfThenElse::make(ir::substitute(renames, d.rdom->predicate), body);
    }
    return body;
}

ir::Stmt build_stage(const lang::FunctionContents& f, int stage) {
    std::vector<StageLoop> loops = stage_loops(f, stage);
    std::map<std::string, Expr> renames;
    for (const StageLoop& l : loops) renames[l.var] = ir::int_var(loop_var(f.name, stage, l.var));
    ir::Stmt s = stage_body(f, stage, renames);
    for (const StageLoop& l : loops) {
        Expr min = l.min, extent = l.extent;
        if (!l.is_reduction) {
            Expr lo = ir::int_var(loop_min(f.name, stage, l.var)),
                 hi = ir::int_var(loop_max(f.name, stage, l.var));
            min = lo;
            extent = ir::Add::make(ir::Sub::make(hi, lo), ir::make_one(Int(32)));
        } else {
            // RDom bounds may mention earlier RVars of the same RDom; rename those too.
            min = ir::substitute(renames, min);
            extent = ir::substitute(renames, extent);
        }
        s = ir::For::make(loop_var(f.name, stage, l.var), min, extent, ir::ForKind::Serial, s);
    }
    return s;
}

ir::Stmt build_production(const lang::FunctionContents& f) {
    std::vector<ir::Stmt> stages;
    stages.push_back(build_stage(f, 0));
    for (size_t k = 0; k < f.updates.size(); k++) stages.push_back(build_stage(f, int(k) + 1));
    return ir::ProducerConsumer::make(f.name, true, ir::Block::make(std::move(stages)));
}

}  // namespace

std::vector<StageLoop> stage_loops(const lang::FunctionContents& f, int stage) {
    const lang::Definition& d = definition_of(f, stage);
    std::vector<StageLoop> loops;
    if (d.rdom) {
        for (const auto& v : d.rdom->vars) loops.push_back({v.name, true, v.min, v.extent});
    }
    for (size_t i = 0; i < d.args.size(); i++) {
        const ir::Variable* v = d.args[i].as<ir::Variable>();
        if (v && v->var_kind == ir::VariableKind::PureVar) loops.push_back({v->name, false, Expr(), Expr()});
    }
    return loops;
}

ir::Stmt schedule_functions(const Environment& env) {
    ir::Stmt s;
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        const lang::FunctionContents& f = env.function(*it);
        ir::Stmt produce = build_production(f);
        if (env.is_output(f.name)) {
            s = ir::Block::make(produce, s);
            continue;
        }
        ir::Region bounds;
        for (int d = 0; d < f.dimensions(); d++) {
            bounds.push_back({ir::int_var(realized_min(f.name, d)), ir::int_var(realized_extent(f.name, d))});
        }
        ir::Stmt consume = ir::ProducerConsumer::make(f.name, false, s);
        s = ir::Realize::make(f.name, f.output_types, bounds, ir::Block::make(produce, consume));
    }
    return s;
}

}  // namespace tessera::lowering
