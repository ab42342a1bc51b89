// The tensorize pass: finds the loops the schedules tensorized and replaces them.

#include "lowering/tensorize.h"

#include <algorithm>
#include <map>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/simplify.h"
#include "lowering/add_access_checks.h"
#include "lowering/names.h"
#include "lowering/tensor_match.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

struct TensorizedLoop {
    std::shared_ptr<const lang::TensorIntrinsicContents> intrinsic;
    std::string where;  // the tensorize call, as the user wrote it
};

void collect(const std::string& func, int stage, const lang::Definition& d,
             std::map<std::string, TensorizedLoop>& loops) {
    for (const schedule::Tensorized& t : d.schedule.tensorized) {
        const std::string stage_name =
            stage == 0 ? func : func + ".update(" + std::to_string(stage - 1) + ")";
        const std::string where = stage_name + ".tensorize(" + t.var + ", " + t.intrinsic->name + ")";
        auto dim = std::find_if(d.schedule.dims.begin(), d.schedule.dims.end(),
                                [&](const schedule::Dim& dim) { return dim.var == t.var; });
        TESSERA_USER_CHECK(dim != d.schedule.dims.end())
            << where << ": there is no loop " << t.var
            << " to tensorize; a loop split after tensorize() is no longer one loop. "
               "Tensorize after the splits, naming a loop they made.";
        TESSERA_USER_CHECK(dim->kind != ir::ForKind::Parallel)
            << where << ": the loop " << t.var << " is parallel, but the tensor intrinsic "
            << t.intrinsic->name
            << " runs the loops from the tensorized one inwards as one call; parallelize a loop outside it.";
        // The general definition and its specializations build loops of the same names.
        const std::string loop = loop_var(func, stage, t.var);
        auto [it, inserted] = loops.try_emplace(loop, TensorizedLoop{t.intrinsic, where});
        TESSERA_USER_CHECK(inserted || it->second.intrinsic->name == t.intrinsic->name)
            << where << ": " << it->second.where
            << " tensorizes the loop of the same name in another specialization of the stage, with another "
               "intrinsic; give the loop another name in one of them (rename("
            << t.var << ", ...)).";
    }
    for (const lang::Specialization& s : d.specializations) {
        if (s.definition) collect(func, stage, *s.definition, loops);
    }
}

class TensorizeLoops : public ir::Mutator {
public:
    explicit TensorizeLoops(std::map<std::string, TensorizedLoop>& loops) : loops_(loops) {}

protected:
    using ir::Mutator::visit;
    ir::Stmt visit(const ir::For* op) override {
        if (op->for_kind != ir::ForKind::Tensorized) return ir::Mutator::visit(op);
        auto it = loops_.find(op->name);
        TESSERA_INTERNAL_CHECK(it != loops_.end()) << "no intrinsic for the tensorized loop " << op->name;
        const lang::TensorIntrinsicContents& intrinsic = *it->second.intrinsic;
        // The intrinsic's tiles run unchecked in the checked mode; the loops of partial tiles do not.
        const ir::Stmt unchecked = without_access_checks(ir::handle_of(op));
        TensorMatch match = match_tensor_intrinsic(unchecked.as<ir::For>(), intrinsic, it->second.where);
        const std::string unique = intrinsic.name + "." + std::to_string(count_++);
        TensorKernel kernel = tensor_kernel(intrinsic, match.binding, unique);
        Expr whole = ir::simplify(match.whole_tile && kernel.precondition);
        if (ir::is_const_one(whole)) return kernel.body;
        // The tiles that are not whole run the loop, serially.
        ir::Stmt loops = ir::For::make(op->name, op->min, op->extent, ir::ForKind::Serial, op->body);
        return ir::IfThenElse::make(whole, kernel.body, loops);
    }

private:
    std::map<std::string, TensorizedLoop>& loops_;
    int count_ = 0;
};

std::map<std::string, TensorizedLoop> tensorized_loops(const Environment& env) {
    std::map<std::string, TensorizedLoop> loops;
    for (const std::string& name : env.order) {
        const lang::FunctionContents& f = env.function(name);
        collect(name, 0, f.pure, loops);
        for (size_t i = 0; i < f.updates.size(); i++) collect(name, int(i) + 1, f.updates[i], loops);
    }
    return loops;
}

}  // namespace

std::map<std::string, const void*> tensor_intrinsic_functions(const Environment& env) {
    std::map<std::string, const void*> functions;
    for (const auto& [loop, t] : tensorized_loops(env)) {
        if (t.intrinsic->implementation == lang::TensorImplementation::ExternFunction)
            functions[t.intrinsic->function_name] = t.intrinsic->address;
    }
    return functions;
}

ir::Stmt tensorize(const ir::Stmt& s, const Environment& env) {
    std::map<std::string, TensorizedLoop> loops = tensorized_loops(env);
    if (loops.empty()) return s;
    // A loop of one iteration is gone by now, and its body, left as it is, is still right.
    return TensorizeLoops(loops).mutate(s);
}

}  // namespace tessera::lowering
