// Code generation of parallel loops: the loop's body is outlined into a task function
//
//   int32_t par_for_<loop>(void* user_context, int32_t <loop var>, uint8_t* closure)
//
// that the runtime's thread pool calls once per iteration (tessera_do_par_for). Every value the
// body uses from the enclosing function travels in a closure struct on the caller's stack. A task
// reports its own errors and returns their code; the caller then leaves with that code without
// reporting it again.

#include <unordered_map>
#include <unordered_set>

#include <llvm/IR/MDBuilder.h>

#include "targets/codegen_llvm_class.h"
#include "util/error_stream.h"

namespace tessera::targets::detail {
namespace {

// The names a statement uses that it does not bind itself: variables, and the buffers and
// allocations it loads from and stores to. Names bound by lets, loops and allocations inside it
// are left out within their scope.
class FreeNames : public ir::Visitor {
public:
    void bind(const std::string& name) { bound_[name]++; }
    void unbind(const std::string& name) {
        if (--bound_[name] == 0) bound_.erase(name);
    }
    const std::vector<std::string>& names() const { return names_; }

private:
    void use(const std::string& name) {
        if (!bound_.count(name) && seen_.insert(name).second) names_.push_back(name);
    }

    // A chain of lets, walked iteratively as the base visitor does.
    template <typename LetNode>
    void visit_let_chain(const LetNode* op) {
        std::vector<const std::string*> chain;
        const LetNode* let = op;
        while (true) {
            include(let->value);
            bind(let->name);
            chain.push_back(&let->name);
            const LetNode* next = let->body.template as<LetNode>();
            if (!next) break;
            let = next;
        }
        include(let->body);
        for (const std::string* name : chain) unbind(*name);
    }

    void visit(const ir::Variable* op) override { use(op->name); }
    void visit(const ir::Load* op) override {
        use(op->name);
        ir::Visitor::visit(op);
    }
    void visit(const ir::Store* op) override {
        use(op->name);
        ir::Visitor::visit(op);
    }
    void visit(const ir::Let* op) override { visit_let_chain(op); }
    void visit(const ir::LetStmt* op) override { visit_let_chain(op); }
    void visit(const ir::For* op) override {
        include(op->min);
        include(op->extent);
        bind(op->name);
        include(op->body);
        unbind(op->name);
    }
    void visit(const ir::Allocate* op) override {
        for (const Expr& e : op->extents) include(e);
        bind(op->name);
        include(op->body);
        unbind(op->name);
    }

    std::unordered_map<std::string, int> bound_;
    std::unordered_set<std::string> seen_;
    std::vector<std::string> names_;
};

// Loop names such as "f.s0.y.yo" make readable function names; anything odd becomes '_'.
std::string task_name(const std::string& loop) {
    std::string name = "par_for_";
    for (char c : loop) {
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                     c == '.';
        name += plain ? c : '_';
    }
    return name;
}

}  // namespace

void CodeGenLLVM::codegen_parallel_for(const ir::For* op) {
    llvm::Value* min = codegen(op->min);
    llvm::Value* extent = codegen(op->extent);
    Closure closure = make_closure(op);
    llvm::Function* task = emit_task(op, closure);
    llvm::Value* closure_memory = pack_closure(closure);

    llvm::Type* ptr = builder_.getPtrTy();
    llvm::Type* i32 = builder_.getInt32Ty();
    llvm::FunctionCallee par_for = runtime_function("tessera_do_par_for", i32, {ptr, ptr, i32, i32, ptr});
    llvm::Value* result = builder_.CreateCall(
        par_for, {null_user_context(), task, min, extent, closure_memory}, op->name + ".result");
    llvm::BasicBlock* failed = llvm::BasicBlock::Create(context_, op->name + ".failed", function_);
    llvm::BasicBlock* after = llvm::BasicBlock::Create(context_, op->name + ".after", function_);
    builder_.CreateCondBr(builder_.CreateICmpNE(result, builder_.getInt32(0)), failed, after,
                          llvm::MDBuilder(context_).createUnlikelyBranchWeights());
    builder_.SetInsertPoint(failed);
    // The failing task has reported its message through tessera_error_end already.
    exit_with_error(result);
    builder_.SetInsertPoint(after);
}

CodeGenLLVM::Closure CodeGenLLVM::make_closure(const ir::For* op) {
    FreeNames free;
    free.bind(op->name);
    free.include(op->body);
    Closure closure;
    std::vector<llvm::Type*> fields;
    for (const std::string& name : free.names()) {
        auto it = symbols_.find(name);
        // A name bound nowhere is reported by the body's own code generation.
        if (it == symbols_.end()) continue;
        llvm::Value* value = it->second.back();
        closure.names.push_back(name);
        closure.values.push_back(value);
        // Constants (numbers, strings) belong to the module, so the task can use them directly.
        if (!llvm::isa<llvm::Constant>(value)) fields.push_back(value->getType());
    }
    closure.type = llvm::StructType::create(context_, fields, "closure." + task_name(op->name));
    return closure;
}

llvm::Function* CodeGenLLVM::emit_task(const ir::For* op, const Closure& closure) {
    llvm::Type* ptr = builder_.getPtrTy();
    llvm::Type* i32 = builder_.getInt32Ty();
    llvm::FunctionType* type = llvm::FunctionType::get(i32, {ptr, i32, ptr}, false);
    llvm::Function* task =
        llvm::Function::Create(type, llvm::Function::InternalLinkage, task_name(op->name), module_.get());
    task->setDoesNotThrow();
    task->addFnAttr(function_->getFnAttribute("target-cpu"));
    task->addFnAttr(function_->getFnAttribute("target-features"));
    task->getArg(0)->setName("user_context");
    task->getArg(1)->setName(op->name);
    llvm::Argument* closure_memory = task->getArg(2);
    closure_memory->setName("closure");
    closure_memory->addAttr(llvm::Attribute::ReadOnly);
    closure_memory->addAttr(llvm::Attribute::NoCapture);

    FunctionState enclosing = enter_function(task);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", task));
    unpack_closure(closure, closure_memory);
    push_symbol(op->name, task->getArg(1));
    codegen(op->body);
    builder_.CreateRet(builder_.getInt32(0));
    leave_function(std::move(enclosing));
    return task;
}

// Stores the closure's values in a struct on the enclosing function's stack. The slot is made in
// the entry block, so that a parallel loop inside a serial one does not grow the stack.
llvm::Value* CodeGenLLVM::pack_closure(const Closure& closure) {
    if (closure.type->getNumElements() == 0) return llvm::ConstantPointerNull::get(builder_.getPtrTy());
    llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
    llvm::Value* memory = entry.CreateAlloca(closure.type, nullptr, closure.type->getName());
    unsigned field = 0;
    for (llvm::Value* value : closure.values) {
        if (llvm::isa<llvm::Constant>(value)) continue;
        llvm::Value* address = builder_.CreateStructGEP(closure.type, memory, field++);
        tag_access(builder_.CreateStore(value, address), ".closure");
    }
    return memory;
}

// Binds the closure's names in the task to the values read back from the struct.
void CodeGenLLVM::unpack_closure(const Closure& closure, llvm::Value* memory) {
    unsigned field = 0;
    for (size_t i = 0; i < closure.names.size(); i++) {
        llvm::Value* value = closure.values[i];
        if (!llvm::isa<llvm::Constant>(value)) {
            llvm::Type* type = closure.type->getElementType(field);
            llvm::Value* address = builder_.CreateStructGEP(closure.type, memory, field++);
            value = tag_access(builder_.CreateLoad(type, address), ".closure");
            value->setName(closure.names[i]);
        }
        push_symbol(closure.names[i], value);
    }
}

CodeGenLLVM::FunctionState CodeGenLLVM::enter_function(llvm::Function* f) {
    FunctionState enclosing{function_,   builder_.saveIP(), std::move(symbols_), std::move(live_allocations_),
                            error_code_, error_return_};
    function_ = f;
    symbols_.clear();
    live_allocations_.clear();
    error_code_ = nullptr;
    error_return_ = nullptr;
    return enclosing;
}

void CodeGenLLVM::leave_function(FunctionState enclosing) {
    function_ = enclosing.function;
    builder_.restoreIP(enclosing.insert_point);
    symbols_ = std::move(enclosing.symbols);
    live_allocations_ = std::move(enclosing.live_allocations);
    error_code_ = enclosing.error_code;
    error_return_ = enclosing.error_return;
}

}  // namespace tessera::targets::detail
