// Atomic updates (Stage::atomic): inside an ir::Atomic statement, each store to its producer is a
// compare-and-swap loop. It reads the element, computes the new value from what it read (the
// update's own load of the element stands for it), and writes it only if the element still holds
// what was read; otherwise it computes again from what the element holds now. Parallel iterations
// that update the same element therefore never lose one another's updates.

#include <algorithm>

#include "ir/equal.h"
#include "ir/mutator.h"
#include "ir/simplify.h"
#include "targets/codegen_llvm_class.h"
#include "util/error_stream.h"

namespace tessera::targets::detail {
namespace {

// The value with every load of the element being updated replaced by `read`.
class ReplaceElementLoads : public ir::Mutator {
public:
    ReplaceElementLoads(const std::string& buffer, const Expr& index, const Expr& read)
        : buffer_(buffer), index_(ir::simplify(index)), read_(read) {}

private:
    using ir::Mutator::visit;
    Expr visit(const ir::Load* op) override {
        if (op->name == buffer_ && op->type.is_scalar() && ir::equal(ir::simplify(op->index), index_))
            return read_;
        return ir::Mutator::visit(op);
    }
    std::string buffer_;
    Expr index_, read_;
};

}  // namespace

void CodeGenLLVM::visit(const ir::Atomic* op) {
    atomic_producers_.push_back(op->producer);
    codegen(op->body);
    atomic_producers_.pop_back();
}

bool CodeGenLLVM::is_atomic_store(const ir::Store* op) const {
    return std::find(atomic_producers_.begin(), atomic_producers_.end(), op->name) != atomic_producers_.end();
}

void CodeGenLLVM::atomic_store(const ir::Store* op) {
    const Type t = op->value.type();
    // Vectorization leaves the loops of atomic updates serial.
    TESSERA_INTERNAL_CHECK(t.is_scalar()) << "a vector store in an atomic update of " << op->name;
    llvm::Type* element = memory_type(t);
    llvm::Type* bits = builder_.getIntNTy(unsigned(t.bytes() * 8));
    const llvm::Align align(t.bytes());
    llvm::Value* address = element_address(op->name, t, codegen_index(op->name, op->index));
    const std::string read_name = op->name + ".atomic_read";
    const Expr value =
        ReplaceElementLoads(op->name, op->index, ir::Variable::make(t, read_name)).mutate(op->value);

    llvm::Function* function = builder_.GetInsertBlock()->getParent();
    llvm::BasicBlock* before = builder_.GetInsertBlock();
    llvm::Value* first = tag_access(builder_.CreateAlignedLoad(element, address, align), op->name);
    llvm::BasicBlock* retry = llvm::BasicBlock::Create(context_, op->name + ".atomic_update", function);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, op->name + ".atomic_done", function);
    builder_.CreateBr(retry);

    builder_.SetInsertPoint(retry);
    llvm::PHINode* read = builder_.CreatePHI(element, 2);
    read->addIncoming(first, before);
    push_symbol(read_name, t.is_bool() ? builder_.CreateTrunc(read, llvm_type(t)) : read);
    llvm::Value* updated = codegen(value);
    pop_symbol(read_name);
    if (t.is_bool()) updated = builder_.CreateZExt(updated, element);
    // cmpxchg compares integers: floats go through their bits.
    llvm::Value* expected = builder_.CreateBitCast(read, bits);
    llvm::Value* desired = builder_.CreateBitCast(updated, bits);
    llvm::AtomicCmpXchgInst* exchange = builder_.CreateAtomicCmpXchg(
        address, expected, desired, align, llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
    llvm::Value* held = builder_.CreateBitCast(builder_.CreateExtractValue(exchange, 0), element);
    read->addIncoming(held, builder_.GetInsertBlock());
    builder_.CreateCondBr(builder_.CreateExtractValue(exchange, 1), done, retry);
    builder_.SetInsertPoint(done);
}

}  // namespace tessera::targets::detail
