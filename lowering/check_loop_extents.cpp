#include "lowering/check_loop_extents.h"

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "lowering/names.h"
#include "lowering/stage_loop_nest.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

struct LoopOwner {
    std::string func;
    int stage;
    std::string var;  // as the user named it
};

class CheckLoopExtents : public ir::Visitor {
public:
    explicit CheckLoopExtents(const Environment& env) {
        for (const auto& [name, f] : env.functions) {
            for (int k = 0; k <= int(f.updates.size()); k++) {
                for (const schedule::Dim& d : stage_dims(f, k))
                    owners[loop_var(name, k, d.var)] = {name, k, d.name};
            }
        }
    }

private:
    std::map<std::string, LoopOwner> owners;

    void visit(const ir::For* op) override {
        const bool unrolled = op->for_kind == ir::ForKind::Unrolled;
        if ((unrolled || op->for_kind == ir::ForKind::Vectorized) && !ir::as_const_int(op->extent)) {
            auto it = owners.find(op->name);
            const LoopOwner owner = it != owners.end() ? it->second : LoopOwner{op->name, 0, op->name};
            const std::string stage = owner.stage == 0
                                          ? owner.func
                                          : owner.func + ".update(" + std::to_string(owner.stage - 1) + ")";
            const char* primitive = unrolled ? "unroll" : "vectorize";
            TESSERA_USER_ERROR << stage << "." << primitive << "(" << owner.var << "): the loop over "
                               << owner.var << " has extent " << op->extent
                               << ", which is not a constant. Use " << primitive << "(" << owner.var
                               << ", factor) to " << (unrolled ? "unroll" : "vectorize")
                               << " by a constant factor, or bound(" << owner.var
                               << ", min, extent) with a constant extent.";
        }
        ir::Visitor::visit(op);
    }
};

}  // namespace

void check_loop_extents(const ir::Stmt& s, const Environment& env) { CheckLoopExtents(env).include(s); }

}  // namespace tessera::lowering
