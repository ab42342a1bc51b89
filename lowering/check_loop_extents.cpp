#include "lowering/check_loop_extents.h"

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "lowering/enclosing_lets.h"
#include "lowering/loop_owners.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

class CheckLoopExtents : public ir::Mutator {
public:
    explicit CheckLoopExtents(const Environment& env) : owners(env) {}

private:
    using ir::Mutator::visit;
    LoopOwners owners;
    EnclosingLets lets;

    ir::Stmt visit(const ir::LetStmt* op) override {
        lets.push(op->name, op->value);
        ir::Stmt body = mutate(op->body);
        lets.pop(op->name);
        return body.same_as(op->body) ? ir::handle_of(op) : ir::LetStmt::make(op->name, op->value, body);
    }

    ir::Stmt visit(const ir::For* op) override {
        Expr extent = op->extent;
        const bool unrolled = op->for_kind == ir::ForKind::Unrolled;
        if ((unrolled || op->for_kind == ir::ForKind::Vectorized) && !ir::as_const_int(extent)) {
            const std::optional<int64_t> constant = lets.constant(extent);
            if (!constant) report(op, unrolled);
            extent = ir::make_const(extent.type(), *constant);
        }
        lets.push(op->name, Expr());
        ir::Stmt body = mutate(op->body);
        lets.pop(op->name);
        if (body.same_as(op->body) && extent.same_as(op->extent)) return ir::handle_of(op);
        return ir::For::make(op->name, op->min, extent, op->for_kind, body);
    }

    void report(const ir::For* op, bool unrolled) const {
        const LoopOwner owner = owners.of(op->name);
        const std::string stage = owner.stage_text();
        const char* primitive = unrolled ? "unroll" : "vectorize";
        TESSERA_USER_ERROR << stage << "." << primitive << "(" << owner.var << "): the loop over "
                           << owner.var << " has extent " << op->extent << ", which is not a constant. Use "
                           << primitive << "(" << owner.var << ", factor) to "
                           << (unrolled ? "unroll" : "vectorize") << " by a constant factor, or bound("
                           << owner.var << ", min, extent) with a constant extent.";
    }
};

}  // namespace

ir::Stmt check_loop_extents(const ir::Stmt& s, const Environment& env) {
    return CheckLoopExtents(env).mutate(s);
}

}  // namespace tessera::lowering
