// Code generation of what tensorization produces: views of memory handed to a C implementation,
// and the dot products of AVX512-VNNI and AVX512-BF16, which become those instructions where the
// target has them and the same arithmetic in plain vector code elsewhere.

#include <llvm/IR/IntrinsicsX86.h>

#include "ir/ir_util.h"
#include "targets/codegen_llvm_class.h"
#include "util/error_stream.h"

namespace tessera::targets::detail {

llvm::Value* CodeGenLLVM::codegen_buffer_view(const ir::Call* op) {
    const ir::StringImm* name = op->args.at(0).as<ir::StringImm>();
    std::optional<int64_t> code = ir::as_const_int(op->args.at(2)), bits = ir::as_const_int(op->args.at(3));
    TESSERA_INTERNAL_CHECK(name && code && bits && op->args.size() % 2 == 0) << "malformed buffer_view";
    const int dimensions = int(op->args.size() - 4) / 2;
    const Type element(Type::Code(*code), int(*bits), 1);

    // The descriptor lives in the function's entry block, so a loop reuses one.
    llvm::Function* current = builder_.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&current->getEntryBlock(), current->getEntryBlock().begin());
    llvm::AllocaInst* buffer = entry.CreateAlloca(buffer_type_, nullptr, name->value + ".view");
    llvm::AllocaInst* dims =
        entry.CreateAlloca(dimension_type_, builder_.getInt32(dimensions), name->value + ".view.dim");

    llvm::Value* index = codegen_index(name->value, op->args[1]);
    llvm::Value* host = element_address(name->value, element, index);
    llvm::Type* i8 = builder_.getInt8Ty();
    llvm::Value* type = llvm::ConstantStruct::get(
        llvm::cast<llvm::StructType>(buffer_type_->getElementType(4)),
        {llvm::ConstantInt::get(i8, *code), llvm::ConstantInt::get(i8, *bits), builder_.getInt16(1)});
    builder_.CreateStore(llvm::Constant::getNullValue(buffer_type_), buffer);
    builder_.CreateStore(host, builder_.CreateStructGEP(buffer_type_, buffer, 2));
    builder_.CreateStore(type, builder_.CreateStructGEP(buffer_type_, buffer, 4));
    builder_.CreateStore(builder_.getInt32(dimensions), builder_.CreateStructGEP(buffer_type_, buffer, 5));
    builder_.CreateStore(dims, builder_.CreateStructGEP(buffer_type_, buffer, 6));
    for (int d = 0; d < dimensions; d++) {
        llvm::Value* dim = builder_.CreateInBoundsGEP(dimension_type_, dims, builder_.getInt32(d));
        llvm::Value* extent = cast(codegen(op->args[4 + 2 * d]), op->args[4 + 2 * d].type(), Int(32));
        llvm::Value* stride = cast(codegen(op->args[5 + 2 * d]), op->args[5 + 2 * d].type(), Int(32));
        builder_.CreateStore(builder_.getInt32(0), builder_.CreateStructGEP(dimension_type_, dim, 0));
        builder_.CreateStore(extent, builder_.CreateStructGEP(dimension_type_, dim, 1));
        builder_.CreateStore(stride, builder_.CreateStructGEP(dimension_type_, dim, 2));
        builder_.CreateStore(builder_.getInt32(0), builder_.CreateStructGEP(dimension_type_, dim, 3));
    }
    return buffer;
}

llvm::Value* CodeGenLLVM::repeat_group(llvm::Value* v, int size, int n) {
    auto* type = llvm::cast<llvm::FixedVectorType>(v->getType());
    if (int(type->getNumElements()) == size * n) return v;
    TESSERA_INTERNAL_CHECK(int(type->getNumElements()) == size) << "a group of the wrong size";
    std::vector<int> lanes;
    for (int i = 0; i < n; i++)
        for (int q = 0; q < size; q++) lanes.push_back(q);
    return builder_.CreateShuffleVector(v, lanes);
}

llvm::Value* CodeGenLLVM::strided_lanes(llvm::Value* v, int first, int step, int n) {
    std::vector<int> lanes;
    for (int i = 0; i < n; i++) lanes.push_back(first + i * step);
    return builder_.CreateShuffleVector(v, lanes);
}

llvm::Value* CodeGenLLVM::call_target_intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args,
                                                llvm::Type* result) {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(module_.get(), id);
    llvm::FunctionType* type = f->getFunctionType();
    for (size_t i = 0; i < args.size(); i++) args[i] = builder_.CreateBitCast(args[i], type->getParamType(i));
    return builder_.CreateBitCast(builder_.CreateCall(f, args), result);
}

llvm::Value* CodeGenLLVM::codegen_dot_u8s8(const ir::Call* op) {
    const int n = op->type.lanes();
    llvm::Value* acc = codegen(op->args.at(0));
    llvm::Value* a = repeat_group(codegen(op->args.at(1)), 4, n);
    llvm::Value* b = codegen(op->args.at(2));
    if (n == 16 && target_.has_feature("avx512vnni"))
        return call_target_intrinsic(llvm::Intrinsic::x86_avx512_vpdpbusd_512, {acc, a, b}, acc->getType());
    if (n == 8 && (target_.has_feature("avxvnni") ||
                   (target_.has_feature("avx512vnni") && target_.has_feature("avx512vl"))))
        return call_target_intrinsic(llvm::Intrinsic::x86_avx512_vpdpbusd_256, {acc, a, b}, acc->getType());
    // The same sums without the instruction. A u8 and an s8 both fit in 16 bits, and their product
    // and the sum of two such products in 32, so the products are summed in pairs first: LLVM turns
    // that pattern into pmaddwd, where there is no vpdpbusd. Integer sums are exact in any order.
    llvm::Type* half = llvm::FixedVectorType::get(builder_.getInt16Ty(), 4 * n);
    llvm::Type* wide = llvm::FixedVectorType::get(builder_.getInt32Ty(), 4 * n);
    llvm::Value* a16 = builder_.CreateZExt(a, half);
    llvm::Value* b16 = builder_.CreateSExt(b, half);
    llvm::Value* products =
        builder_.CreateMul(builder_.CreateSExt(a16, wide), builder_.CreateSExt(b16, wide));
    llvm::Value* pairs =
        builder_.CreateAdd(strided_lanes(products, 0, 2, 2 * n), strided_lanes(products, 1, 2, 2 * n));
    llvm::Value* quads = builder_.CreateAdd(strided_lanes(pairs, 0, 2, n), strided_lanes(pairs, 1, 2, n));
    return builder_.CreateAdd(acc, quads);
}

llvm::Value* CodeGenLLVM::codegen_dot_bf16(const ir::Call* op) {
    const int n = op->type.lanes();
    llvm::Value* acc = codegen(op->args.at(0));
    llvm::Value* a = repeat_group(codegen(op->args.at(1)), 2, n);
    llvm::Value* b = codegen(op->args.at(2));
    if (n == 16 && target_.has_feature("avx512bf16"))
        return call_target_intrinsic(llvm::Intrinsic::x86_avx512bf16_dpbf16ps_512, {acc, a, b},
                                     acc->getType());
    if (n == 8 && target_.has_feature("avx512bf16") && target_.has_feature("avx512vl"))
        return call_target_intrinsic(llvm::Intrinsic::x86_avx512bf16_dpbf16ps_256, {acc, a, b},
                                     acc->getType());
    // bfloat16 is the upper half of a float32, and the product of two is exact in float32; the
    // instruction adds the odd product, then the even one, each sum rounded to nearest even.
    auto to_float = [&](llvm::Value* bits) {
        llvm::Type* wide = llvm::FixedVectorType::get(builder_.getInt32Ty(), 2 * n);
        llvm::Value* shifted = builder_.CreateShl(builder_.CreateZExt(bits, wide), 16);
        return builder_.CreateBitCast(shifted, llvm::FixedVectorType::get(builder_.getFloatTy(), 2 * n));
    };
    llvm::Value* products = builder_.CreateFMul(to_float(a), to_float(b));
    llvm::Value* sum = builder_.CreateFAdd(acc, strided_lanes(products, 1, 2, n));
    return builder_.CreateFAdd(sum, strided_lanes(products, 0, 2, n));
}

}  // namespace tessera::targets::detail
