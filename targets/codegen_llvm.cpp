// Code generation of the pipeline function and its statements. Expressions are in
// codegen_llvm_expr.cpp.

#include "targets/codegen_llvm.h"

#include <cstddef>

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "targets/codegen_llvm_class.h"
#include "tessera/runtime.h"
#include "util/error_stream.h"

namespace tessera::targets {
namespace detail {

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext& context, const CpuTarget& target)
    : context_(context), target_(target), builder_(context) {
    llvm::Type* i8 = builder_.getInt8Ty();
    llvm::Type* i16 = builder_.getInt16Ty();
    llvm::Type* i32 = builder_.getInt32Ty();
    llvm::Type* i64 = builder_.getInt64Ty();
    llvm::Type* ptr = builder_.getPtrTy();
    llvm::StructType* type = llvm::StructType::get(context_, {i8, i8, i16});
    dimension_type_ = llvm::StructType::get(context_, {i32, i32, i32, i32});
    buffer_type_ = llvm::StructType::get(context_, {i64, ptr, ptr, i64, type, i32, ptr, ptr});
}

std::unique_ptr<llvm::Module> CodeGenLLVM::compile(const LoweredFunction& f, const std::string& gpu_code) {
    TESSERA_INTERNAL_CHECK(!f.name.empty() && f.body.defined())
        << "code generation of an unnamed or empty pipeline";
    TESSERA_INTERNAL_CHECK(f.kernels.empty() || !gpu_code.empty())
        << "code generation of " << f.name << " without the code of its GPU kernels";
    gpu_code_ = gpu_code;
    device_allocations_ = f.device_allocations;
    module_ = std::make_unique<llvm::Module>(f.name, context_);
    module_->setTargetTriple(target_.triple());
    module_->setDataLayout(target_.data_layout());

    // The descriptor the generated code reads must be the one runtime.h declares.
    const llvm::StructLayout* layout = module_->getDataLayout().getStructLayout(buffer_type_);
    TESSERA_INTERNAL_CHECK(layout->getElementOffset(2) == offsetof(tessera_buffer_t, host) &&
                           layout->getElementOffset(5) == offsetof(tessera_buffer_t, dimensions) &&
                           layout->getElementOffset(6) == offsetof(tessera_buffer_t, dim) &&
                           layout->getSizeInBytes() == sizeof(tessera_buffer_t))
        << "LLVM's layout of tessera_buffer_t differs from the C compiler's";

    llvm::FunctionType* type = llvm::FunctionType::get(builder_.getInt32Ty(), {builder_.getPtrTy()}, false);
    function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, f.name, module_.get());
    function_->setDoesNotThrow();
    function_->addFnAttr("target-cpu", target_.cpu());
    function_->addFnAttr("target-features", target_.feature_string());
    llvm::Argument* args = function_->getArg(0);
    args->setName("args");
    args->addAttr(llvm::Attribute::ReadOnly);
    args->addAttr(llvm::Attribute::NoCapture);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", function_));

    for (size_t i = 0; i < f.args.size(); i++) {
        const LoweredArgument& a = f.args[i];
        llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(builder_.getPtrTy(), args, i);
        llvm::Value* pointer = tag_access(builder_.CreateLoad(builder_.getPtrTy(), slot), ".args");
        pointer->setName(a.is_buffer ? a.name + ".buffer" : a.name + ".address");
        if (a.is_buffer) {
            push_symbol(a.name + ".buffer", pointer);
            // The host pointer is read here, before the checks; a null descriptor (which the
            // checks report) reads it from an empty one, so that the null check is not optimized
            // away as unreachable.
            llvm::Value* readable =
                builder_.CreateSelect(builder_.CreateIsNull(pointer), empty_buffer(), pointer);
            llvm::Value* host_field = builder_.CreateStructGEP(buffer_type_, readable, 2);
            llvm::Value* host =
                tag_access(builder_.CreateLoad(builder_.getPtrTy(), host_field), ".tessera_buffer_t");
            host->setName(a.name);
            push_symbol(a.name, host);
        } else {
            llvm::Value* v = builder_.CreateLoad(memory_type(a.type), pointer);
            if (a.type.is_bool()) v = builder_.CreateTrunc(v, llvm_type(a.type));
            v->setName(a.name);
            push_symbol(a.name, v);
        }
    }
    codegen(f.body);
    builder_.CreateRet(builder_.getInt32(0));

    std::string problems;
    llvm::raw_string_ostream out(problems);
    bool broken = llvm::verifyModule(*module_, &out);
    TESSERA_INTERNAL_CHECK(!broken) << "invalid LLVM IR for " << f.name << ":\n" << out.str();
    return std::move(module_);
}

llvm::Constant* CodeGenLLVM::empty_buffer() {
    if (!empty_buffer_) {
        empty_buffer_ =
            new llvm::GlobalVariable(*module_, buffer_type_, true, llvm::GlobalValue::PrivateLinkage,
                                     llvm::Constant::getNullValue(buffer_type_), "empty_buffer");
    }
    return empty_buffer_;
}

// ---- Symbols ----

void CodeGenLLVM::push_symbol(const std::string& name, llvm::Value* value) {
    symbols_[name].push_back(value);
}

void CodeGenLLVM::pop_symbol(const std::string& name) {
    auto it = symbols_.find(name);
    TESSERA_INTERNAL_CHECK(it != symbols_.end() && !it->second.empty()) << "popping unbound symbol " << name;
    it->second.pop_back();
    if (it->second.empty()) symbols_.erase(it);
}

llvm::Value* CodeGenLLVM::symbol(const std::string& name) const {
    auto it = symbols_.find(name);
    TESSERA_INTERNAL_CHECK(it != symbols_.end()) << "symbol " << name << " is not bound here";
    return it->second.back();
}

// ---- Memory ----

llvm::Value* CodeGenLLVM::element_address(const std::string& name, Type element, llvm::Value* index) {
    return builder_.CreateInBoundsGEP(memory_type(element.element_of()), symbol(name), index);
}

llvm::Instruction* CodeGenLLVM::tag_access(llvm::Instruction* access, const std::string& name) {
    // Each name is its own type in LLVM's type-based alias analysis, under one root: accesses to
    // different allocations or buffers never alias, as in Halide. (Passing one buffer as both an
    // input and an output of a pipeline is not supported.)
    llvm::MDNode*& tag = tbaa_tags_[name];
    if (!tag) {
        llvm::MDBuilder md(context_);
        if (!tbaa_root_) tbaa_root_ = md.createTBAARoot("Tessera");
        llvm::MDNode* type = md.createTBAAScalarTypeNode(name, tbaa_root_);
        tag = md.createTBAAStructTagNode(type, type, 0);
    }
    access->setMetadata(llvm::LLVMContext::MD_tbaa, tag);
    return access;
}

void CodeGenLLVM::visit(const ir::Store* op) {
    if (is_atomic_store(op)) {
        atomic_store(op);
        return;
    }
    Type t = op->value.type();
    llvm::Value* value = codegen(op->value);
    if (t.is_bool()) value = builder_.CreateZExt(value, memory_type(t));
    if (t.is_vector()) {
        store_vector(op, value);
        return;
    }
    llvm::Value* address = element_address(op->name, t, codegen_index(op->name, op->index));
    tag_access(builder_.CreateAlignedStore(value, address, llvm::Align(t.bytes())), op->name);
}

void CodeGenLLVM::store_vector(const ir::Store* op, llvm::Value* value) {
    Type t = op->value.type(), element = t.element_of();
    llvm::Align align(element.bytes());
    const ir::Ramp* ramp = op->index.as<ir::Ramp>();
    if (op->predicate.defined()) {
        // Only the lanes whose predicate is true are written: a dense masked store, or a masked
        // scatter (which writes colliding lanes in lane order, as the plain scatter below).
        llvm::Value* mask = codegen(op->predicate);
        if (ramp && ir::is_const(ramp->stride, 1)) {
            llvm::Value* address = element_address(op->name, element, codegen_index(op->name, ramp->base));
            tag_access(builder_.CreateMaskedStore(value, address, align, mask), op->name);
        } else {
            llvm::Value* addresses = element_address(op->name, element, codegen_index(op->name, op->index));
            tag_access(builder_.CreateMaskedScatter(value, addresses, align, mask), op->name);
        }
    } else if (ramp && ir::is_const(ramp->stride, 1)) {
        dense_store(op->name, value, t, codegen_index(op->name, ramp->base),
                    dense_alignment(op->name, t, ramp->base));
    } else if (ramp && ir::is_const(ramp->stride, -1)) {
        dense_store(op->name, builder_.CreateVectorReverse(value), t, last_of_reversed(op->name, ramp),
                    align);
    } else if (const ir::Broadcast* broadcast = op->index.as<ir::Broadcast>()) {
        // Every lane to one element: the last lane's value is the one that stays.
        llvm::Value* address = element_address(op->name, element, codegen_index(op->name, broadcast->value));
        llvm::Value* last = builder_.CreateExtractElement(value, uint64_t(t.lanes() - 1));
        tag_access(builder_.CreateAlignedStore(last, address, align), op->name);
    } else {
        // Lanes that hit the same address are written in lane order, so the last one wins.
        llvm::Value* addresses = element_address(op->name, element, codegen_index(op->name, op->index));
        llvm::Value* all = llvm::ConstantInt::getTrue(llvm_type(Bool(t.lanes())));
        tag_access(builder_.CreateMaskedScatter(value, addresses, align, all), op->name);
    }
}

void CodeGenLLVM::visit(const ir::Allocate* op) {
    if (op->memory_type == MemoryType::Stack || op->memory_type == MemoryType::Register) {
        stack_allocate(op);
        return;
    }
    if (device_allocations_.count(op->name)) {
        device_allocate(op);
        return;
    }
    // Bytes, in 64 bits; a negative extent counts as empty.
    llvm::Value* size = builder_.getInt64(op->type.bytes() * op->type.lanes());
    for (const Expr& extent : op->extents) {
        llvm::Value* e = cast(codegen(extent), extent.type(), Int(64));
        e = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, e, builder_.getInt64(0));
        size = builder_.CreateMul(size, e);
    }
    llvm::Type* ptr = builder_.getPtrTy();
    llvm::FunctionCallee malloc_fn = runtime_function("tessera_malloc", ptr, {ptr, builder_.getInt64Ty()});
    if (auto* f = llvm::dyn_cast<llvm::Function>(malloc_fn.getCallee())) {
        f->setReturnDoesNotAlias();
        f->addRetAttr(llvm::Attribute::getWithAlignment(context_, llvm::Align(64)));
    }
    llvm::Value* memory = builder_.CreateCall(malloc_fn, {null_user_context(), size}, op->name);

    llvm::BasicBlock* ok = llvm::BasicBlock::Create(context_, op->name + ".allocated", function_);
    llvm::BasicBlock* failed = llvm::BasicBlock::Create(context_, op->name + ".out_of_memory", function_);
    builder_.CreateCondBr(builder_.CreateIsNotNull(memory), ok, failed,
                          llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_.SetInsertPoint(failed);
    builder_.CreateCall(runtime_function("tessera_error_begin", builder_.getVoidTy(), {ptr}),
                        {null_user_context()});
    append_string("tessera_error", "Out of memory allocating " + op->name + " (");
    append_scalar("tessera_error", UInt(64), size);
    append_string("tessera_error", " bytes)");
    return_error(builder_.getInt32(tessera_error_out_of_memory));

    builder_.SetInsertPoint(ok);
    push_symbol(op->name, memory);
    live_allocations_.push_back({memory});
    codegen(op->body);
    live_allocations_.pop_back();
    pop_symbol(op->name);
    builder_.CreateCall(runtime_function("tessera_free", builder_.getVoidTy(), {ptr, ptr}),
                        {null_user_context(), memory});
}

// Stack memory of constant size, in the entry block of the function being generated, so that a
// loop around the Allocate reuses it rather than growing the stack; nothing to free.
void CodeGenLLVM::stack_allocate(const ir::Allocate* op) {
    int64_t bytes = op->type.bytes() * op->type.lanes();
    for (const Expr& extent : op->extents) {
        std::optional<int64_t> e = ir::as_const_int(extent);
        TESSERA_INTERNAL_CHECK(e) << "stack allocation " << op->name << " of non-constant size";
        bytes *= std::max<int64_t>(*e, 0);
    }
    llvm::Function* current = builder_.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&current->getEntryBlock(), current->getEntryBlock().begin());
    llvm::AllocaInst* memory = entry.CreateAlloca(
        llvm::ArrayType::get(builder_.getInt8Ty(), std::max<int64_t>(bytes, 1)), nullptr, op->name);
    // As aligned as the heap's memory, which vector accesses may assume.
    memory->setAlignment(llvm::Align(64));
    push_symbol(op->name, memory);
    codegen(op->body);
    pop_symbol(op->name);
}

// Allocations are freed at the end of their Allocate's body (and on every error exit inside it).
void CodeGenLLVM::visit(const ir::Free*) {}

// ---- Runtime calls and messages ----

llvm::FunctionCallee CodeGenLLVM::runtime_function(const char* name, llvm::Type* result,
                                                   std::vector<llvm::Type*> params) {
    llvm::FunctionCallee callee =
        module_->getOrInsertFunction(name, llvm::FunctionType::get(result, params, false));
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) f->setDoesNotThrow();
    return callee;
}

llvm::Value* CodeGenLLVM::null_user_context() { return llvm::ConstantPointerNull::get(builder_.getPtrTy()); }

void CodeGenLLVM::append_string(const char* prefix, const std::string& s) {
    llvm::Type* ptr = builder_.getPtrTy();
    llvm::FunctionCallee append =
        runtime_function((std::string(prefix) + "_append_string").c_str(), builder_.getVoidTy(), {ptr, ptr});
    builder_.CreateCall(append, {null_user_context(), codegen(ir::StringImm::make(s))});
}

void CodeGenLLVM::append_scalar(const char* prefix, Type t, llvm::Value* v) {
    llvm::Type* ptr = builder_.getPtrTy();
    const char* suffix = "_append_uint";
    llvm::Type* wide = builder_.getInt64Ty();
    if (t.is_handle()) {
        v = builder_.CreatePtrToInt(v, wide);
    } else if (t.is_float()) {
        suffix = "_append_float";
        wide = builder_.getDoubleTy();
        v = builder_.CreateFPCast(v, wide);
    } else {
        if (t.is_int()) suffix = "_append_int";
        v = builder_.CreateIntCast(v, wide, t.is_int());
    }
    llvm::FunctionCallee append =
        runtime_function((std::string(prefix) + suffix).c_str(), builder_.getVoidTy(), {ptr, wide});
    builder_.CreateCall(append, {null_user_context(), v});
}

void CodeGenLLVM::append_to_message(const char* prefix, const Expr& e, llvm::Value* v) {
    Type t = e.type();
    if (e.as<ir::StringImm>()) {
        llvm::Type* ptr = builder_.getPtrTy();
        llvm::FunctionCallee append = runtime_function((std::string(prefix) + "_append_string").c_str(),
                                                       builder_.getVoidTy(), {ptr, ptr});
        builder_.CreateCall(append, {null_user_context(), v});
    } else if (t.is_vector()) {
        append_string(prefix, "<");
        for (int lane = 0; lane < t.lanes(); lane++) {
            if (lane > 0) append_string(prefix, ", ");
            append_scalar(prefix, t.element_of(), builder_.CreateExtractElement(v, lane));
        }
        append_string(prefix, ">");
    } else {
        append_scalar(prefix, t, v);
    }
}

void CodeGenLLVM::return_error(llvm::Value* code) {
    llvm::Type* ptr = builder_.getPtrTy();
    llvm::Type* i32 = builder_.getInt32Ty();
    llvm::FunctionCallee end = runtime_function("tessera_error_end", i32, {ptr, i32});
    exit_with_error(builder_.CreateCall(end, {null_user_context(), code}));
}

void CodeGenLLVM::exit_with_error(llvm::Value* code) {
    if (!error_code_) {
        llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
        error_code_ = entry.CreateAlloca(builder_.getInt32Ty(), nullptr, "error_code");
    }
    builder_.CreateStore(code, error_code_);
    builder_.CreateBr(unwind_block(live_allocations_.size()));
}

// The block that frees the innermost `depth` live allocations and returns the error code.
llvm::BasicBlock* CodeGenLLVM::unwind_block(size_t depth) {
    if (depth == 0) {
        if (!error_return_) {
            error_return_ = llvm::BasicBlock::Create(context_, "error_return", function_);
            llvm::IRBuilder<> b(error_return_);
            b.CreateRet(b.CreateLoad(b.getInt32Ty(), error_code_));
        }
        return error_return_;
    }
    LiveAllocation& a = live_allocations_[depth - 1];
    if (!a.unwind) {
        a.unwind = llvm::BasicBlock::Create(context_, "free_on_error", function_);
        llvm::IRBuilder<> b(a.unwind);
        llvm::Type* ptr = b.getPtrTy();
        if (a.device_buffer) {
            b.CreateCall(runtime_function("tessera_device_free", b.getInt32Ty(), {ptr, ptr}),
                         {null_user_context(), a.device_buffer});
        }
        if (a.memory) {
            b.CreateCall(runtime_function("tessera_free", b.getVoidTy(), {ptr, ptr}),
                         {null_user_context(), a.memory});
        }
        b.CreateBr(unwind_block(depth - 1));
    }
    return a.unwind;
}

// ---- Statements ----

void CodeGenLLVM::codegen(const ir::Stmt& s) {
    TESSERA_INTERNAL_CHECK(s.defined()) << "code generation of an undefined Stmt";
    include(s);
}

void CodeGenLLVM::visit(const ir::LetStmt* op) {
    std::vector<const ir::LetStmt*> chain;
    const ir::LetStmt* let = op;
    while (true) {
        llvm::Value* v = codegen(let->value);
        if (!llvm::isa<llvm::Constant>(v) && !v->hasName()) v->setName(let->name);
        push_symbol(let->name, v);
        chain.push_back(let);
        const ir::LetStmt* next = let->body.as<ir::LetStmt>();
        if (!next) break;
        let = next;
    }
    codegen(let->body);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) pop_symbol((*it)->name);
}

void CodeGenLLVM::visit(const ir::AssertStmt* op) { check(op->condition, op->message); }

void CodeGenLLVM::check(const Expr& condition_expr, const Expr& message_expr) {
    llvm::Value* condition = codegen(condition_expr);
    if (condition_expr.type().is_vector()) condition = builder_.CreateAndReduce(condition);
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(context_, "assert_ok", function_);
    llvm::BasicBlock* failed = llvm::BasicBlock::Create(context_, "assert_failed", function_);
    builder_.CreateCondBr(condition, ok, failed, llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_.SetInsertPoint(failed);

    // error_message(code, parts...); anything else is reported as a generic error.
    std::vector<Expr> parts;
    llvm::Value* code = builder_.getInt32(tessera_error_generic);
    const ir::Call* message = message_expr.as<ir::Call>();
    if (message && message->call_type == ir::CallType::Intrinsic &&
        message->intrinsic == ir::Intrinsic::ErrorMessage && !message->args.empty()) {
        // A zero code would read as success.
        if (!ir::is_const_zero(message->args[0]))
            code = cast(codegen(message->args[0]), message->args[0].type(), Int(32));
        parts.assign(message->args.begin() + 1, message->args.end());
    } else if (message_expr.defined()) {
        parts.push_back(message_expr);
    }
    llvm::Type* ptr = builder_.getPtrTy();
    builder_.CreateCall(runtime_function("tessera_error_begin", builder_.getVoidTy(), {ptr}),
                        {null_user_context()});
    for (const Expr& part : parts) append_to_message("tessera_error", part, codegen(part));
    return_error(code);

    builder_.SetInsertPoint(ok);
}

void CodeGenLLVM::visit(const ir::ProducerConsumer* op) { codegen(op->body); }

void CodeGenLLVM::visit(const ir::For* op) {
    // Lowering outlines every kernel, or runs it on the CPU in emulation.
    TESSERA_INTERNAL_CHECK(!ir::is_gpu_loop(op->for_kind))
        << "the GPU loop " << op->name << " reached the host's code generation";
    if (op->for_kind == ir::ForKind::Parallel) {
        codegen_parallel_for(op);
        return;
    }
    // Vectorized and unrolled loops that reach code generation run serially.
    llvm::Value* min = codegen(op->min);
    llvm::Value* extent = codegen(op->extent);
    llvm::Value* end = builder_.CreateAdd(min, extent, op->name + ".end");
    llvm::BasicBlock* preheader = builder_.GetInsertBlock();
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(context_, op->name + ".loop", function_);
    llvm::BasicBlock* after = llvm::BasicBlock::Create(context_, op->name + ".after", function_);
    builder_.CreateCondBr(builder_.CreateICmpSGT(extent, builder_.getInt32(0)), loop, after);

    builder_.SetInsertPoint(loop);
    llvm::PHINode* var = builder_.CreatePHI(builder_.getInt32Ty(), 2, op->name);
    var->addIncoming(min, preheader);
    push_symbol(op->name, var);
    codegen(op->body);
    pop_symbol(op->name);
    // The counter stays within [min, min + extent], so its increment cannot overflow.
    llvm::Value* next = builder_.CreateNSWAdd(var, builder_.getInt32(1), op->name + ".next");
    var->addIncoming(next, builder_.GetInsertBlock());
    builder_.CreateCondBr(builder_.CreateICmpNE(next, end), loop, after);
    builder_.SetInsertPoint(after);
}

void CodeGenLLVM::visit(const ir::Block* op) {
    for (const ir::Stmt& s : op->stmts) codegen(s);
}

void CodeGenLLVM::visit(const ir::IfThenElse* op) {
    const ir::Call* hint = op->condition.as<ir::Call>();
    bool likely =
        hint && hint->call_type == ir::CallType::Intrinsic && hint->intrinsic == ir::Intrinsic::Likely;
    llvm::Value* condition = codegen(op->condition);
    TESSERA_INTERNAL_CHECK(op->condition.type().is_scalar())
        << "if of a vector condition " << ir::to_string(op->condition);
    llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "then", function_);
    llvm::BasicBlock* else_block =
        op->else_case.defined() ? llvm::BasicBlock::Create(context_, "else", function_) : nullptr;
    llvm::BasicBlock* after = llvm::BasicBlock::Create(context_, "endif", function_);
    llvm::MDNode* weights = likely ? llvm::MDBuilder(context_).createLikelyBranchWeights() : nullptr;
    builder_.CreateCondBr(condition, then_block, else_block ? else_block : after, weights);

    builder_.SetInsertPoint(then_block);
    codegen(op->then_case);
    builder_.CreateBr(after);
    if (else_block) {
        builder_.SetInsertPoint(else_block);
        codegen(op->else_case);
        builder_.CreateBr(after);
    }
    builder_.SetInsertPoint(after);
}

void CodeGenLLVM::visit(const ir::Evaluate* op) {
    if (!ir::is_const(op->value) && !op->value.as<ir::StringImm>()) codegen(op->value);
}

void CodeGenLLVM::visit(const ir::Provide* op) {
    TESSERA_INTERNAL_ERROR << "Provide to " << op->name << " left in flattened IR";
}

void CodeGenLLVM::visit(const ir::Realize* op) {
    TESSERA_INTERNAL_ERROR << "Realize of " << op->name << " left in flattened IR";
}

}  // namespace detail

std::unique_ptr<llvm::Module> codegen_llvm(const LoweredFunction& f, llvm::LLVMContext& context,
                                           const CpuTarget& target, const std::string& gpu_code) {
    return detail::CodeGenLLVM(context, target).compile(f, gpu_code);
}

}  // namespace tessera::targets
