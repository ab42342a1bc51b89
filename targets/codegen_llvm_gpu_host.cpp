// The host's side of GPU kernels: launches through the runtime's CUDA functions, with the
// kernels' PTX embedded in the module; copies between host and device memory driven by the
// buffers' dirty flags; and allocations whose memory (also) lives on the device.

#include <limits>

#include <llvm/IR/MDBuilder.h>

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "targets/codegen_llvm_class.h"
#include "tessera/runtime.h"
#include "util/error_stream.h"

namespace tessera::targets::detail {
namespace {

// Fields of tessera_buffer_t, as CodeGenLLVM's buffer_type_ lays them out.
constexpr unsigned kDevice = 0, kHost = 2, kFlags = 3, kType = 4, kDimensions = 5, kDim = 6;

}  // namespace

void CodeGenLLVM::exit_unless_zero(llvm::Value* code) {
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(context_, "device_call_ok", function_);
    llvm::BasicBlock* failed = llvm::BasicBlock::Create(context_, "device_call_failed", function_);
    builder_.CreateCondBr(builder_.CreateICmpEQ(code, builder_.getInt32(0)), ok, failed,
                          llvm::MDBuilder(context_).createLikelyBranchWeights());
    builder_.SetInsertPoint(failed);
    exit_with_error(code);
    builder_.SetInsertPoint(ok);
}

llvm::Value* CodeGenLLVM::cuda_interface() {
    return builder_.CreateCall(runtime_function("tessera_cuda_device_interface", builder_.getPtrTy(), {}));
}

// gpu_launch(kernel, blocks x, y, z, threads x, y, z, shared bytes, arguments...)
llvm::Value* CodeGenLLVM::codegen_gpu_launch(const ir::Call* op) {
    constexpr size_t kFirstArgument = 8;
    const ir::StringImm* kernel = op->args.at(0).as<ir::StringImm>();
    TESSERA_INTERNAL_CHECK(kernel && op->args.size() >= kFirstArgument)
        << "malformed " << ir::to_string(ir::handle_of(op));
    llvm::Type* ptr = builder_.getPtrTy();
    llvm::Type* i32 = builder_.getInt32Ty();
    if (!gpu_code_global_) {
        llvm::Constant* text = llvm::ConstantDataArray::getString(context_, gpu_code_, /*AddNull=*/true);
        gpu_code_global_ = new llvm::GlobalVariable(*module_, text->getType(), true,
                                                    llvm::GlobalValue::PrivateLinkage, text, "gpu_code");
        // One per module, for the life of the process: the runtime keeps the loaded modules there.
        gpu_module_state_ =
            new llvm::GlobalVariable(*module_, ptr, false, llvm::GlobalValue::InternalLinkage,
                                     llvm::ConstantPointerNull::get(builder_.getPtrTy()), "gpu_module_state");
    }
    llvm::FunctionCallee initialize =
        runtime_function("tessera_cuda_initialize_kernels", i32, {ptr, ptr, ptr, i32});
    exit_unless_zero(
        builder_.CreateCall(initialize, {null_user_context(), gpu_module_state_, gpu_code_global_,
                                         builder_.getInt32(int32_t(gpu_code_.size()))}));

    // kernelParams: the address of each argument's value; a buffer's value is its device address.
    const size_t n = op->args.size() - kFirstArgument;
    llvm::Function* current = builder_.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&current->getEntryBlock(), current->getEntryBlock().begin());
    llvm::ArrayType* array_type = llvm::ArrayType::get(ptr, std::max<size_t>(n, 1));
    llvm::Value* params = entry.CreateAlloca(array_type, nullptr, kernel->value + ".params");
    for (size_t i = 0; i < n; i++) {
        const Expr& a = op->args[kFirstArgument + i];
        llvm::Value* value = codegen(a);
        if (a.type().is_handle()) {
            value = builder_.CreateLoad(builder_.getInt64Ty(),
                                        builder_.CreateStructGEP(buffer_type_, value, kDevice));
        } else if (a.type().is_bool()) {
            value = builder_.CreateZExt(value, memory_type(a.type()));
        }
        llvm::Value* slot = entry.CreateAlloca(value->getType(), nullptr, kernel->value + ".param");
        builder_.CreateStore(value, slot);
        builder_.CreateStore(slot, builder_.CreateConstInBoundsGEP2_64(array_type, params, 0, i));
    }
    std::vector<llvm::Value*> args = {null_user_context(), builder_.CreateLoad(ptr, gpu_module_state_),
                                      codegen(op->args[0])};
    for (size_t i = 1; i < kFirstArgument; i++)
        args.push_back(cast(codegen(op->args[i]), op->args[i].type(), Int(32)));
    args.push_back(params);
    llvm::FunctionCallee run =
        runtime_function("tessera_cuda_run", i32, {ptr, ptr, ptr, i32, i32, i32, i32, i32, i32, i32, ptr});
    exit_unless_zero(builder_.CreateCall(run, args));
    return builder_.getInt32(0);
}

llvm::Value* CodeGenLLVM::codegen_device_copy(const ir::Call* op) {
    const size_t arity = op->intrinsic == ir::Intrinsic::CopyToDevice ? 2 : 1;
    TESSERA_INTERNAL_CHECK(op->args.size() == arity && op->args[0].type().is_handle())
        << "malformed " << ir::to_string(ir::handle_of(op));
    llvm::Value* buffer = codegen(op->args[0]);
    llvm::Type* ptr = builder_.getPtrTy();
    llvm::Type* i32 = builder_.getInt32Ty();
    switch (op->intrinsic) {
        case ir::Intrinsic::CopyToDevice: {
            // Memory a kernel only writes is allocated first, so that the copy that follows
            // copies only a dirty host's memory, not that of a new allocation.
            if (ir::is_const_zero(op->args[1])) {
                llvm::FunctionCallee allocate =
                    runtime_function("tessera_device_malloc", i32, {ptr, ptr, ptr});
                exit_unless_zero(
                    builder_.CreateCall(allocate, {null_user_context(), buffer, cuda_interface()}));
            }
            llvm::FunctionCallee copy = runtime_function("tessera_copy_to_device", i32, {ptr, ptr, ptr});
            exit_unless_zero(builder_.CreateCall(copy, {null_user_context(), buffer, cuda_interface()}));
            break;
        }
        case ir::Intrinsic::CopyToHost: {
            llvm::FunctionCallee copy = runtime_function("tessera_copy_to_host", i32, {ptr, ptr});
            exit_unless_zero(builder_.CreateCall(copy, {null_user_context(), buffer}));
            break;
        }
        default: {
            // The copies before each write leave the other side clean, so setting one flag is all.
            const uint64_t flag = op->intrinsic == ir::Intrinsic::SetHostDirty ? TESSERA_BUFFER_HOST_DIRTY
                                                                               : TESSERA_BUFFER_DEVICE_DIRTY;
            llvm::Value* address = builder_.CreateStructGEP(buffer_type_, buffer, kFlags);
            llvm::Value* flags = builder_.CreateLoad(builder_.getInt64Ty(), address);
            builder_.CreateStore(builder_.CreateOr(flags, builder_.getInt64(flag)), address);
        }
    }
    return builder_.getInt32(0);
}

// An allocation that kernels use: a one-dimensional descriptor of its bytes, symbol NAME.buffer,
// with device memory from the start (so that nothing is copied to it) and host memory only when
// host code uses it too.
void CodeGenLLVM::device_allocate(const ir::Allocate* op) {
    llvm::Type* ptr = builder_.getPtrTy();
    llvm::Type* i32 = builder_.getInt32Ty();
    llvm::Value* bytes = builder_.getInt64(op->type.bytes() * op->type.lanes());
    for (const Expr& extent : op->extents) {
        llvm::Value* e = cast(codegen(extent), extent.type(), Int(64));
        e = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, e, builder_.getInt64(0));
        bytes = builder_.CreateMul(bytes, e);
    }
    // A descriptor's extent is 32 bits.
    llvm::Value* too_large =
        builder_.CreateICmpSGT(bytes, builder_.getInt64(std::numeric_limits<int32_t>::max()));
    emit_if(too_large, [&] {
        builder_.CreateCall(runtime_function("tessera_error_begin", builder_.getVoidTy(), {ptr}),
                            {null_user_context()});
        append_string("tessera_error", "The GPU memory of " + op->name + " would be ");
        append_scalar("tessera_error", UInt(64), bytes);
        append_string("tessera_error",
                      " bytes; at most 2^31 - 1 are supported. Compute it at an inner loop.");
        return_error(builder_.getInt32(tessera_error_out_of_memory));
    });
    llvm::Function* current = builder_.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&current->getEntryBlock(), current->getEntryBlock().begin());
    llvm::Value* buffer = entry.CreateAlloca(buffer_type_, nullptr, op->name + ".buffer");
    llvm::Value* dim = entry.CreateAlloca(dimension_type_, nullptr, op->name + ".dim");
    builder_.CreateStore(llvm::Constant::getNullValue(buffer_type_), buffer);
    builder_.CreateStore(
        llvm::ConstantStruct::get(dimension_type_, {builder_.getInt32(0), builder_.getInt32(0),
                                                    builder_.getInt32(1), builder_.getInt32(0)}),
        dim);
    builder_.CreateStore(builder_.CreateTrunc(bytes, i32), builder_.CreateStructGEP(dimension_type_, dim, 1));
    llvm::Value* type = builder_.CreateStructGEP(buffer_type_, buffer, kType);
    builder_.CreateStore(builder_.getInt8(tessera_type_uint),
                         builder_.CreateStructGEP(buffer_type_->getElementType(kType), type, 0));
    builder_.CreateStore(builder_.getInt8(8),
                         builder_.CreateStructGEP(buffer_type_->getElementType(kType), type, 1));
    builder_.CreateStore(builder_.getInt16(1),
                         builder_.CreateStructGEP(buffer_type_->getElementType(kType), type, 2));
    builder_.CreateStore(builder_.getInt32(1), builder_.CreateStructGEP(buffer_type_, buffer, kDimensions));
    builder_.CreateStore(dim, builder_.CreateStructGEP(buffer_type_, buffer, kDim));

    llvm::Value* host = nullptr;
    if (device_allocations_.at(op->name)) {
        llvm::FunctionCallee malloc_fn =
            runtime_function("tessera_malloc", ptr, {ptr, builder_.getInt64Ty()});
        host = builder_.CreateCall(malloc_fn, {null_user_context(), bytes}, op->name);
        llvm::Value* missing = builder_.CreateIsNull(host);
        emit_if(missing, [&] {
            builder_.CreateCall(runtime_function("tessera_error_begin", builder_.getVoidTy(), {ptr}),
                                {null_user_context()});
            append_string("tessera_error", "Out of memory allocating " + op->name + " (");
            append_scalar("tessera_error", UInt(64), bytes);
            append_string("tessera_error", " bytes)");
            return_error(builder_.getInt32(tessera_error_out_of_memory));
        });
        builder_.CreateStore(host, builder_.CreateStructGEP(buffer_type_, buffer, kHost));
        push_symbol(op->name, host);
    }
    live_allocations_.push_back({host, buffer});
    llvm::FunctionCallee device_malloc = runtime_function("tessera_device_malloc", i32, {ptr, ptr, ptr});
    exit_unless_zero(builder_.CreateCall(device_malloc, {null_user_context(), buffer, cuda_interface()}));
    push_symbol(op->name + ".buffer", buffer);
    codegen(op->body);
    pop_symbol(op->name + ".buffer");
    live_allocations_.pop_back();
    builder_.CreateCall(runtime_function("tessera_device_free", i32, {ptr, ptr}),
                        {null_user_context(), buffer});
    if (host) {
        pop_symbol(op->name);
        builder_.CreateCall(runtime_function("tessera_free", builder_.getVoidTy(), {ptr, ptr}),
                            {null_user_context(), host});
    }
}

}  // namespace tessera::targets::detail
