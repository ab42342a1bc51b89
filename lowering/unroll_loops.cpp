#include "lowering/unroll_loops.h"

#include <vector>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

class UnrollLoops : public ir::Mutator {
    using ir::Mutator::visit;

    ir::Stmt visit(const ir::For* loop) override {
        if (loop->for_kind != ir::ForKind::Unrolled) return ir::Mutator::visit(loop);
        const std::optional<int64_t> extent = ir::as_const_int(ir::simplify(loop->extent));
        // Schedule validation guarantees a constant extent; reaching here without one is a compiler bug.
        TESSERA_INTERNAL_CHECK(extent)
            << "unrolled loop " << loop->name << " has extent " << ir::to_string(loop->extent);
        ir::Stmt body = mutate(loop->body);
        // A min that is more than a constant or a variable is evaluated once, into the loop
        // variable itself, which the copies then offset: the body might change what it reads.
        const bool bind_min = !ir::is_const(loop->min) && !loop->min.as<ir::Variable>();
        const Expr min = bind_min ? ir::int_var(loop->name) : loop->min;
        std::vector<ir::Stmt> copies;
        for (int64_t i = 0; i < *extent; i++) {
            Expr value = i == 0 ? min : ir::Add::make(min, ir::make_const(Int(32), i));
            copies.push_back(ir::substitute(loop->name, value, body));
        }
        ir::Stmt unrolled = ir::Block::make(std::move(copies));
        if (!unrolled.defined()) return ir::Evaluate::make(ir::make_zero(Int(32)));
        return bind_min ? ir::LetStmt::make(loop->name, loop->min, unrolled) : unrolled;
    }
};

}  // namespace

ir::Stmt unroll_loops(const ir::Stmt& s) { return UnrollLoops().mutate(s); }

}  // namespace tessera::lowering
