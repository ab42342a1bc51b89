#include "lowering/constant_stack_indices.h"

#include <set>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"
#include "lowering/enclosing_lets.h"

namespace tessera::lowering {
namespace {

// Whether an expression binds a name of its own (expanding the enclosing lets in it could then
// replace what the inner binding means).
bool has_let(const ir::Expr& e) {
    class FindLet : public ir::Visitor {
    public:
        bool found = false;

    private:
        using ir::Visitor::visit;
        void visit(const ir::Let*) override { found = true; }
    } find;
    find.include(e);
    return find.found;
}

class ConstantStackIndices : public ir::Mutator {
    using ir::Mutator::visit;

    // Each binder's name is bound while its body is visited: a let's to its value, a loop's to
    // nothing (it has no value to substitute) unless it runs once, so that an inner binding is
    // never read past.
    ir::Stmt visit(const ir::LetStmt* op) override {
        ir::Expr value = mutate(op->value);
        lets_.push(op->name, value);
        ir::Stmt body = mutate(op->body);
        lets_.pop(op->name);
        if (value.same_as(op->value) && body.same_as(op->body)) return handle_of(op);
        return ir::LetStmt::make(op->name, value, body);
    }

    ir::Expr visit(const ir::Let* op) override {
        ir::Expr value = mutate(op->value);
        lets_.push(op->name, value);
        ir::Expr body = mutate(op->body);
        lets_.pop(op->name);
        if (value.same_as(op->value) && body.same_as(op->body)) return handle_of(op);
        return ir::Let::make(op->name, value, body);
    }

    ir::Stmt visit(const ir::For* op) override {
        ir::Expr min = mutate(op->min), extent = mutate(op->extent);
        // A loop of one iteration (its extent a difference of lets that cancel, say a tile's row
        // of extent max - min + 1) has its variable at its min. Only the indices of stack buffers
        // are rewritten, so only loops inside one are asked.
        const bool one_iteration = !stack_buffers_.empty() && lets_.constant(extent) == 1;
        lets_.push(op->name, one_iteration ? min : ir::Expr());
        ir::Stmt body = mutate(op->body);
        lets_.pop(op->name);
        if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body))
            return handle_of(op);
        return ir::For::make(op->name, min, extent, op->for_kind, body);
    }

    ir::Stmt visit(const ir::Allocate* op) override {
        const bool on_stack = op->memory_type == MemoryType::Stack || op->memory_type == MemoryType::Register;
        if (on_stack) stack_buffers_.insert(op->name);
        ir::Stmt body = mutate(op->body);
        if (on_stack) stack_buffers_.erase(op->name);
        if (body.same_as(op->body)) return handle_of(op);
        return ir::Allocate::make(op->name, op->type, op->extents, body, op->memory_type);
    }

    ir::Expr visit(const ir::Load* op) override {
        ir::Expr load = ir::Mutator::visit(op);
        const ir::Load* l = load.as<ir::Load>();
        ir::Expr index = constant_index(l->name, l->index);
        if (index.same_as(l->index)) return load;
        return ir::Load::make(l->type, l->name, index, l->predicate);
    }

    ir::Stmt visit(const ir::Store* op) override {
        ir::Stmt store = ir::Mutator::visit(op);
        const ir::Store* s = store.as<ir::Store>();
        ir::Expr index = constant_index(s->name, s->index);
        if (index.same_as(s->index)) return store;
        return ir::Store::make(s->name, s->value, index, s->predicate);
    }

    // The index as a constant (or a ramp of constants), or the index itself.
    ir::Expr constant_index(const std::string& buffer, const ir::Expr& index) const {
        if (!stack_buffers_.count(buffer) || has_let(index)) return index;
        if (const ir::Ramp* ramp = index.as<ir::Ramp>()) {
            std::optional<int64_t> base = lets_.constant(ramp->base), stride = lets_.constant(ramp->stride);
            if (!base || !stride) return index;
            return ir::Ramp::make(ir::make_const(ramp->base.type(), *base),
                                  ir::make_const(ramp->stride.type(), *stride), ramp->lanes);
        }
        if (index.type().is_scalar()) {
            if (std::optional<int64_t> c = lets_.constant(index)) return ir::make_const(index.type(), *c);
        }
        return index;
    }

    EnclosingLets lets_;
    std::set<std::string> stack_buffers_;
};

}  // namespace

ir::Stmt constant_stack_indices(const ir::Stmt& s) { return ConstantStackIndices().mutate(s); }

}  // namespace tessera::lowering
