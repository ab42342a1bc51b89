// Atomic updates (Stage::atomic): inside an ir::Atomic statement, each store to its producer is
// one atomic instruction where one does the update (an integer sum, min or max), and otherwise a
// compare-and-swap loop. The loop reads the element, computes the new value from what it read (the
// update's own load of the element stands for it), and writes it only if the element still holds
// what was read; otherwise it computes again from what the element holds now. Parallel iterations
// that update the same element therefore never lose one another's updates.

#include <algorithm>
#include <optional>

#include "ir/equal.h"
#include "ir/ir_util.h"
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

// An integer update `read op e` (or `e op read`), op one of +, min, max, with e not reading the
// element, as the one instruction that does it (atomicrmw).
struct ReadModifyWrite {
    llvm::AtomicRMWInst::BinOp op;
    Expr operand;
};

template <typename T>
std::optional<Expr> other_operand(const Expr& value, const std::string& read) {
    const T* node = value.as<T>();
    if (!node) return std::nullopt;
    auto is_read = [&](const Expr& e) {
        const ir::Variable* v = e.as<ir::Variable>();
        return v && v->name == read;
    };
    if (is_read(node->a) && !ir::uses_var(node->b, read)) return node->b;
    if (is_read(node->b) && !ir::uses_var(node->a, read)) return node->a;
    return std::nullopt;
}

std::optional<ReadModifyWrite> read_modify_write(const Expr& value, const std::string& read) {
    const Type t = value.type();
    if (!t.is_int_or_uint() || t.is_bool()) return std::nullopt;
    using Op = llvm::AtomicRMWInst::BinOp;
    if (auto e = other_operand<ir::Add>(value, read)) return ReadModifyWrite{Op::Add, *e};
    if (auto e = other_operand<ir::Min>(value, read))
        return ReadModifyWrite{t.is_int() ? Op::Min : Op::UMin, *e};
    if (auto e = other_operand<ir::Max>(value, read))
        return ReadModifyWrite{t.is_int() ? Op::Max : Op::UMax, *e};
    return std::nullopt;
}

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
    if (std::optional<ReadModifyWrite> rmw = read_modify_write(value, read_name)) {
        builder_.CreateAtomicRMW(rmw->op, address, codegen(rmw->operand), align,
                                 llvm::AtomicOrdering::Monotonic);
        return;
    }

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
