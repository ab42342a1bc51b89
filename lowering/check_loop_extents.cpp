#include "lowering/check_loop_extents.h"

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "lowering/loop_owners.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

class CheckLoopExtents : public ir::Visitor {
public:
    explicit CheckLoopExtents(const Environment& env) : owners(env) {}

private:
    LoopOwners owners;

    void visit(const ir::For* op) override {
        const bool unrolled = op->for_kind == ir::ForKind::Unrolled;
        if ((unrolled || op->for_kind == ir::ForKind::Vectorized) && !ir::as_const_int(op->extent)) {
            const LoopOwner owner = owners.of(op->name);
            const std::string stage = owner.stage_text();
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
