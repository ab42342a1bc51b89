// Code generation of expressions, with the exact semantics the simplifier folds constants with:
// wrapping integer arithmetic, Euclidean and total integer division, total shifts.

#include <bit>

#include <llvm/IR/Intrinsics.h>

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "targets/codegen_llvm_class.h"
#include "util/error_stream.h"

namespace tessera::targets::detail {

llvm::Value* CodeGenLLVM::codegen(const Expr& e) {
    TESSERA_INTERNAL_CHECK(e.defined()) << "code generation of an undefined Expr";
    value_ = nullptr;
    include(e);
    TESSERA_INTERNAL_CHECK(value_) << "no code generated for " << ir::to_string(e);
    llvm::Value* v = value_;
    value_ = nullptr;
    return v;
}

llvm::Value* CodeGenLLVM::codegen_index(const std::string& buffer, const Expr& index) {
    // The lanes of a gather stay 32-bit; so do indices of stack and register storage, whose
    // constant 32-bit indices (once unrolled) let LLVM keep it in registers.
    if (index.type() != Int(32) || llvm::isa<llvm::AllocaInst>(symbol(buffer))) return codegen(index);
    return wide_index(index);
}

llvm::Value* CodeGenLLVM::last_of_reversed(const std::string& buffer, const ir::Ramp* ramp) {
    llvm::Value* base = codegen_index(buffer, ramp->base);
    return builder_.CreateSub(base, llvm::ConstantInt::get(base->getType(), ramp->lanes - 1));
}

llvm::Value* CodeGenLLVM::wide_index(const Expr& index) {
    if (const ir::Add* add = index.as<ir::Add>())
        return builder_.CreateNSWAdd(wide_index(add->a), wide_index(add->b));
    if (const ir::Sub* sub = index.as<ir::Sub>())
        return builder_.CreateNSWSub(wide_index(sub->a), wide_index(sub->b));
    if (const ir::Mul* mul = index.as<ir::Mul>())
        return builder_.CreateNSWMul(wide_index(mul->a), wide_index(mul->b));
    return builder_.CreateSExt(codegen(index), builder_.getInt64Ty());
}

llvm::Type* CodeGenLLVM::llvm_type(Type t) {
    llvm::Type* element = nullptr;
    switch (t.code()) {
        case Type::Int:
        case Type::UInt: element = builder_.getIntNTy(t.bits()); break;
        case Type::Float:
            if (t.bits() == 16) element = builder_.getHalfTy();
            if (t.bits() == 32) element = builder_.getFloatTy();
            if (t.bits() == 64) element = builder_.getDoubleTy();
            break;
        case Type::Handle: element = builder_.getPtrTy(); break;
    }
    TESSERA_INTERNAL_CHECK(element) << "no LLVM type for " << type_name(t);
    return t.is_scalar() ? element : llvm::FixedVectorType::get(element, t.lanes());
}

llvm::Type* CodeGenLLVM::memory_type(Type t) { return llvm_type(t.is_bool() ? UInt(8, t.lanes()) : t); }

llvm::Constant* CodeGenLLVM::constant(Type t, int64_t value) {
    llvm::Type* type = llvm_type(t);
    if (t.is_float()) return llvm::ConstantFP::get(type, double(value));
    uint64_t bits = t.bits() >= 64 ? uint64_t(value) : uint64_t(value) & ((uint64_t(1) << t.bits()) - 1);
    return llvm::ConstantInt::get(type, bits, /*isSigned=*/false);
}

// ---- Constants, variables, conversions ----

void CodeGenLLVM::visit(const ir::IntImm* op) { value_ = constant(op->type, op->value); }

void CodeGenLLVM::visit(const ir::UIntImm* op) {
    value_ = llvm::ConstantInt::get(llvm_type(op->type), op->value, /*isSigned=*/false);
}

void CodeGenLLVM::visit(const ir::FloatImm* op) {
    value_ = llvm::ConstantFP::get(llvm_type(op->type), op->value);
}

void CodeGenLLVM::visit(const ir::StringImm* op) {
    llvm::Constant*& s = strings_[op->value];
    if (!s) s = builder_.CreateGlobalString(op->value, "str", 0, module_.get());
    value_ = s;
}

void CodeGenLLVM::visit(const ir::Variable* op) { value_ = symbol(op->name); }

void CodeGenLLVM::visit(const ir::Cast* op) { value_ = cast(codegen(op->value), op->value.type(), op->type); }

llvm::Value* CodeGenLLVM::cast(llvm::Value* v, Type from, Type to) {
    if (from == to) return v;
    llvm::Type* target = llvm_type(to);
    if (from.is_handle() || to.is_handle()) {
        if (from.is_handle() && to.is_handle()) return v;
        if (to.is_handle()) return builder_.CreateIntToPtr(v, target);
        Type address = UInt(64, from.lanes());
        return cast(builder_.CreatePtrToInt(v, llvm_type(address)), address, to);
    }
    if (to.is_bool()) {
        llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
        return from.is_float() ? builder_.CreateFCmpUNE(v, zero) : builder_.CreateICmpNE(v, zero);
    }
    if (from.is_float() && to.is_float()) return builder_.CreateFPCast(v, target);
    if (from.is_float()) {
        // Out-of-range conversions are poison in LLVM; frozen, they are some fixed value instead,
        // so no branch can depend on poison.
        llvm::Value* i = to.is_int() ? builder_.CreateFPToSI(v, target) : builder_.CreateFPToUI(v, target);
        return builder_.CreateFreeze(i);
    }
    if (to.is_float())
        return from.is_int() ? builder_.CreateSIToFP(v, target) : builder_.CreateUIToFP(v, target);
    return builder_.CreateIntCast(v, target, /*isSigned=*/from.is_int());
}

void CodeGenLLVM::visit(const ir::Reinterpret* op) {
    llvm::Value* v = codegen(op->value);
    Type from = op->value.type(), to = op->type;
    Type bits = UInt(from.bits() * from.lanes());
    if (from.is_handle()) v = builder_.CreatePtrToInt(v, llvm_type(bits));
    if (to.is_handle()) {
        value_ = builder_.CreateIntToPtr(builder_.CreateBitCast(v, llvm_type(bits)), llvm_type(to));
    } else {
        value_ = builder_.CreateBitCast(v, llvm_type(to));
    }
}

// ---- Arithmetic ----

void CodeGenLLVM::visit(const ir::Add* op) {
    llvm::Value* a = codegen(op->a);
    llvm::Value* b = codegen(op->b);
    value_ = op->type.is_float() ? builder_.CreateFAdd(a, b) : builder_.CreateAdd(a, b);
}

void CodeGenLLVM::visit(const ir::Sub* op) {
    llvm::Value* a = codegen(op->a);
    llvm::Value* b = codegen(op->b);
    value_ = op->type.is_float() ? builder_.CreateFSub(a, b) : builder_.CreateSub(a, b);
}

void CodeGenLLVM::visit(const ir::Mul* op) {
    llvm::Value* a = codegen(op->a);
    llvm::Value* b = codegen(op->b);
    value_ = op->type.is_float() ? builder_.CreateFMul(a, b) : builder_.CreateMul(a, b);
}

void CodeGenLLVM::visit(const ir::Div* op) {
    if (op->type.is_float()) {
        llvm::Value* a = codegen(op->a);
        value_ = builder_.CreateFDiv(a, codegen(op->b));
    } else {
        value_ = int_div_or_mod(op->a, op->b, /*want_div=*/true);
    }
}

void CodeGenLLVM::visit(const ir::Mod* op) {
    if (op->type.is_float()) {
        llvm::Value* a = codegen(op->a);
        value_ = float_mod(a, codegen(op->b));
    } else {
        value_ = int_div_or_mod(op->a, op->b, /*want_div=*/false);
    }
}

llvm::Value* CodeGenLLVM::int_div_or_mod(const Expr& a_expr, const Expr& b_expr, bool want_div) {
    Type t = a_expr.type();
    llvm::Value* a = codegen(a_expr);
    llvm::Value* zero = constant(t, 0);
    llvm::Value* one = constant(t, 1);

    // Constant divisors need no guards; positive powers of two become shifts and masks, which
    // round toward negative infinity as Euclidean division does for a positive divisor.
    std::optional<int64_t> b_int = t.is_int() ? ir::as_const_int(b_expr) : std::nullopt;
    std::optional<uint64_t> b_uint = t.is_int() ? std::nullopt : ir::as_const_uint(b_expr);
    if ((b_int && *b_int == 0) || (b_uint && *b_uint == 0)) return zero;
    uint64_t magnitude = b_int ? uint64_t(*b_int) : b_uint.value_or(0);
    if ((b_uint || (b_int && *b_int > 0)) && std::has_single_bit(magnitude)) {
        int k = std::countr_zero(magnitude);
        if (!want_div) return builder_.CreateAnd(a, constant(t, int64_t(magnitude - 1)));
        return t.is_int() ? builder_.CreateAShr(a, constant(t, k)) : builder_.CreateLShr(a, constant(t, k));
    }

    llvm::Value* b = codegen(b_expr);
    // The guard on the divisor depends on b alone: LLVM 19 folds a division by select(c,
    // 1, <constant vector with a zero lane>) as if every lane chose 1 when c varies by lane.
    llvm::Value* b_is_zero = builder_.CreateICmpEQ(b, zero);
    llvm::Value* safe_b = builder_.CreateSelect(b_is_zero, one, b);
    if (!t.is_int()) {
        if (!want_div) return builder_.CreateURem(a, safe_b);  // x % 1 is already the 0 we want
        return builder_.CreateSelect(b_is_zero, zero, builder_.CreateUDiv(a, safe_b));
    }
    // INT_MIN / -1 overflows (and traps on x86). Its wrapped quotient is INT_MIN and its remainder
    // 0: divide 0 instead and patch the quotient.
    llvm::Value* int_min = llvm::ConstantInt::get(llvm_type(t), llvm::APInt::getSignedMinValue(t.bits()));
    llvm::Value* overflows =
        builder_.CreateAnd(builder_.CreateICmpEQ(a, int_min), builder_.CreateICmpEQ(b, constant(t, -1)));
    llvm::Value* safe_a = builder_.CreateSelect(overflows, zero, a);
    llvm::Value* q = builder_.CreateSDiv(safe_a, safe_b);
    llvm::Value* r = builder_.CreateSRem(safe_a, safe_b);
    // sdiv rounds toward zero; where that leaves a negative remainder, step one divisor over.
    llvm::Value* r_negative = builder_.CreateICmpSLT(r, zero);
    llvm::Value* b_positive = builder_.CreateICmpSGT(safe_b, zero);
    if (want_div) {
        llvm::Value* stepped =
            builder_.CreateSelect(b_positive, builder_.CreateSub(q, one), builder_.CreateAdd(q, one));
        llvm::Value* quotient =
            builder_.CreateSelect(b_is_zero, zero, builder_.CreateSelect(r_negative, stepped, q));
        return builder_.CreateSelect(overflows, int_min, quotient);
    }
    llvm::Value* stepped =
        builder_.CreateSelect(b_positive, builder_.CreateAdd(r, safe_b), builder_.CreateSub(r, safe_b));
    return builder_.CreateSelect(r_negative, stepped, r);
}

llvm::Value* CodeGenLLVM::float_mod(llvm::Value* a, llvm::Value* b) {
    llvm::Value* quotient = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
    return builder_.CreateFSub(a, builder_.CreateFMul(b, quotient));
}

void CodeGenLLVM::visit(const ir::Min* op) {
    llvm::Value* a = codegen(op->a);
    llvm::Value* b = codegen(op->b);
    if (op->type.is_float()) {
        value_ = builder_.CreateSelect(builder_.CreateFCmpOLT(a, b), a, b);
    } else {
        value_ = builder_.CreateBinaryIntrinsic(
            op->type.is_int() ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
    }
}

void CodeGenLLVM::visit(const ir::Max* op) {
    llvm::Value* a = codegen(op->a);
    llvm::Value* b = codegen(op->b);
    if (op->type.is_float()) {
        value_ = builder_.CreateSelect(builder_.CreateFCmpOGT(a, b), a, b);
    } else {
        value_ = builder_.CreateBinaryIntrinsic(
            op->type.is_int() ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
    }
}

// ---- Comparisons and logic ----

llvm::Value* CodeGenLLVM::compare(ir::IRKind kind, llvm::Value* a, llvm::Value* b, Type t) {
    using P = llvm::CmpInst::Predicate;
    P predicate = P::BAD_ICMP_PREDICATE;
    if (t.is_float()) {
        // Ordered, except != which (as in C) is true when either side is NaN.
        switch (kind) {
            case ir::IRKind::EQ: predicate = P::FCMP_OEQ; break;
            case ir::IRKind::NE: predicate = P::FCMP_UNE; break;
            case ir::IRKind::LT: predicate = P::FCMP_OLT; break;
            case ir::IRKind::LE: predicate = P::FCMP_OLE; break;
            case ir::IRKind::GT: predicate = P::FCMP_OGT; break;
            case ir::IRKind::GE: predicate = P::FCMP_OGE; break;
            default: break;
        }
        return builder_.CreateFCmp(predicate, a, b);
    }
    bool is_signed = t.is_int();
    switch (kind) {
        case ir::IRKind::EQ: predicate = P::ICMP_EQ; break;
        case ir::IRKind::NE: predicate = P::ICMP_NE; break;
        case ir::IRKind::LT: predicate = is_signed ? P::ICMP_SLT : P::ICMP_ULT; break;
        case ir::IRKind::LE: predicate = is_signed ? P::ICMP_SLE : P::ICMP_ULE; break;
        case ir::IRKind::GT: predicate = is_signed ? P::ICMP_SGT : P::ICMP_UGT; break;
        case ir::IRKind::GE: predicate = is_signed ? P::ICMP_SGE : P::ICMP_UGE; break;
        default: break;
    }
    return builder_.CreateICmp(predicate, a, b);
}

#define TESSERA_VISIT_COMPARISON(T)                                       \
    void CodeGenLLVM::visit(const ir::T* op) {                            \
        llvm::Value* a = codegen(op->a);                                  \
        value_ = compare(ir::IRKind::T, a, codegen(op->b), op->a.type()); \
    }
TESSERA_VISIT_COMPARISON(EQ)
TESSERA_VISIT_COMPARISON(NE)
TESSERA_VISIT_COMPARISON(LT)
TESSERA_VISIT_COMPARISON(LE)
TESSERA_VISIT_COMPARISON(GT)
TESSERA_VISIT_COMPARISON(GE)
#undef TESSERA_VISIT_COMPARISON

void CodeGenLLVM::visit(const ir::And* op) {
    llvm::Value* a = codegen(op->a);
    value_ = builder_.CreateAnd(a, codegen(op->b));
}

void CodeGenLLVM::visit(const ir::Or* op) {
    llvm::Value* a = codegen(op->a);
    value_ = builder_.CreateOr(a, codegen(op->b));
}

void CodeGenLLVM::visit(const ir::Not* op) { value_ = builder_.CreateNot(codegen(op->a)); }

void CodeGenLLVM::visit(const ir::Select* op) {
    llvm::Value* condition = codegen(op->condition);
    llvm::Value* t = codegen(op->true_value);
    value_ = builder_.CreateSelect(condition, t, codegen(op->false_value));
}

// ---- Memory ----

void CodeGenLLVM::visit(const ir::Load* op) {
    if (op->type.is_vector()) {
        value_ = load_vector(op);
        return;
    }
    llvm::Value* address = element_address(op->name, op->type, codegen_index(op->name, op->index));
    llvm::Instruction* load =
        builder_.CreateAlignedLoad(memory_type(op->type), address, llvm::Align(op->type.bytes()));
    tag_access(load, op->name);
    value_ = op->type.is_bool() ? builder_.CreateTrunc(load, llvm_type(op->type)) : load;
}

llvm::Value* CodeGenLLVM::load_vector(const ir::Load* op) {
    Type t = op->type, element = t.element_of();
    llvm::Align align(element.bytes());
    llvm::Value* v = nullptr;
    const ir::Ramp* ramp = op->index.as<ir::Ramp>();
    if (op->predicate.defined()) {
        v = predicated_load(op);
    } else if (ramp && ir::is_const(ramp->stride, 1)) {
        v = dense_load(op->name, t, codegen_index(op->name, ramp->base),
                       dense_alignment(op->name, t, ramp->base));
    } else if (auto stride = ramp ? ir::as_const_int(ramp->stride) : std::nullopt;
               stride && *stride >= 2 && *stride <= 4) {
        v = strided_load(op->name, t, codegen_index(op->name, ramp->base), int(*stride));
    } else if (ramp && ir::is_const(ramp->stride, -1)) {
        // A dense load ending at base, reversed.
        v = builder_.CreateVectorReverse(dense_load(op->name, t, last_of_reversed(op->name, ramp), align));
    } else if (const ir::Broadcast* broadcast = op->index.as<ir::Broadcast>()) {
        llvm::Value* address = element_address(op->name, element, codegen_index(op->name, broadcast->value));
        llvm::Value* scalar =
            tag_access(builder_.CreateAlignedLoad(memory_type(element), address, align), op->name);
        v = builder_.CreateVectorSplat(t.lanes(), scalar);
    } else if (llvm::Value* upsampled = upsampled_load(op)) {
        v = upsampled;
    } else {
        llvm::Value* addresses = element_address(op->name, element, codegen_index(op->name, op->index));
        llvm::Value* all = llvm::ConstantInt::getTrue(llvm_type(Bool(t.lanes())));
        v = tag_access(builder_.CreateMaskedGather(memory_type(t), addresses, align, all), op->name);
    }
    return t.is_bool() ? builder_.CreateTrunc(v, llvm_type(t)) : v;
}

// Lanes whose predicate is false read nothing and are zero: a dense masked load, or a masked
// gather. (A broadcast index is read whole: the vectorizer predicates only where some lane runs,
// and every lane reads that one element.)
llvm::Value* CodeGenLLVM::predicated_load(const ir::Load* op) {
    Type t = op->type, element = t.element_of();
    llvm::Align align(element.bytes());
    llvm::Value* mask = codegen(op->predicate);
    llvm::Value* zero = llvm::Constant::getNullValue(memory_type(t));
    const ir::Ramp* ramp = op->index.as<ir::Ramp>();
    if (ramp && ir::is_const(ramp->stride, 1)) {
        llvm::Value* address = element_address(op->name, element, codegen_index(op->name, ramp->base));
        return tag_access(builder_.CreateMaskedLoad(memory_type(t), address, align, mask, zero), op->name);
    }
    if (const ir::Broadcast* broadcast = op->index.as<ir::Broadcast>()) {
        llvm::Value* address = element_address(op->name, element, codegen_index(op->name, broadcast->value));
        llvm::Value* scalar =
            tag_access(builder_.CreateAlignedLoad(memory_type(element), address, align), op->name);
        return builder_.CreateVectorSplat(t.lanes(), scalar);
    }
    llvm::Value* addresses = element_address(op->name, element, codegen_index(op->name, op->index));
    return tag_access(builder_.CreateMaskedGather(memory_type(t), addresses, align, mask, zero), op->name);
}

void CodeGenLLVM::visit(const ir::Ramp* op) {
    llvm::Value* base = codegen(op->base);
    llvm::Value* stride = codegen(op->stride);
    Type element = op->type.element_of();
    std::vector<llvm::Constant*> lane_numbers;
    for (int i = 0; i < op->lanes; i++) lane_numbers.push_back(constant(element, i));
    llvm::Value* offsets = llvm::ConstantVector::get(lane_numbers);
    llvm::Value* bases = builder_.CreateVectorSplat(op->lanes, base);
    llvm::Value* strides = builder_.CreateVectorSplat(op->lanes, stride);
    value_ = element.is_float() ? builder_.CreateFAdd(bases, builder_.CreateFMul(strides, offsets))
                                : builder_.CreateAdd(bases, builder_.CreateMul(strides, offsets));
}

void CodeGenLLVM::visit(const ir::Broadcast* op) {
    value_ = builder_.CreateVectorSplat(op->lanes, codegen(op->value));
}

void CodeGenLLVM::visit(const ir::Let* op) {
    // Iterative over the chain of lets, so that a long chain does not recurse once per let.
    std::vector<const ir::Let*> chain;
    const ir::Let* let = op;
    while (true) {
        llvm::Value* v = codegen(let->value);
        if (!llvm::isa<llvm::Constant>(v) && !v->hasName()) v->setName(let->name);
        push_symbol(let->name, v);
        chain.push_back(let);
        const ir::Let* next = let->body.as<ir::Let>();
        if (!next) break;
        let = next;
    }
    llvm::Value* result = codegen(let->body);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) pop_symbol((*it)->name);
    value_ = result;
}

// ---- Calls ----

void CodeGenLLVM::visit(const ir::Call* op) {
    switch (op->call_type) {
        case ir::CallType::Intrinsic: value_ = codegen_intrinsic(op); return;
        case ir::CallType::Extern: value_ = codegen_extern(op); return;
        case ir::CallType::Func:
        case ir::CallType::Image: break;
    }
    TESSERA_INTERNAL_ERROR << "call to " << op->name
                           << " left in flattened IR: " << ir::to_string(ir::handle_of(op));
}

llvm::Value* CodeGenLLVM::codegen_intrinsic(const ir::Call* op) {
    using ir::Intrinsic;
    auto arg = [&](size_t i) {
        TESSERA_INTERNAL_CHECK(i < op->args.size())
            << op->name << " needs at least " << i + 1 << " arguments";
        return codegen(op->args[i]);
    };
    switch (op->intrinsic) {
        case Intrinsic::Abs: {
            Type t = op->args.at(0).type();
            llvm::Value* v = arg(0);
            if (t.is_float()) return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
            // |INT_MIN| is INT_MIN's bits, which read as the unsigned result type are 2^(bits-1).
            if (t.is_int())
                return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, v, builder_.getFalse());
            return v;
        }
        case Intrinsic::Sqrt:
        case Intrinsic::Exp:
        case Intrinsic::Log:
        case Intrinsic::Pow:
        case Intrinsic::Fma:
        case Intrinsic::Sin:
        case Intrinsic::Cos:
        case Intrinsic::Tan:
        case Intrinsic::Tanh:
        case Intrinsic::Floor:
        case Intrinsic::Ceil:
        case Intrinsic::Round:
        case Intrinsic::Trunc: return codegen_math(op);
        case Intrinsic::IsNan: {
            llvm::Value* v = arg(0);
            return builder_.CreateFCmpUNO(v, v);
        }
        case Intrinsic::BitAnd: {
            llvm::Value* a = splat(arg(0), op->type.lanes());
            return builder_.CreateAnd(a, splat(arg(1), op->type.lanes()));
        }
        case Intrinsic::BitOr: {
            llvm::Value* a = splat(arg(0), op->type.lanes());
            return builder_.CreateOr(a, splat(arg(1), op->type.lanes()));
        }
        case Intrinsic::BitXor: {
            llvm::Value* a = splat(arg(0), op->type.lanes());
            return builder_.CreateXor(a, splat(arg(1), op->type.lanes()));
        }
        case Intrinsic::BitNot: return builder_.CreateNot(arg(0));
        case Intrinsic::ShiftLeft:
        case Intrinsic::ShiftRight: {
            Type t = op->args.at(0).type().with_lanes(op->type.lanes());
            llvm::Value* a = splat(arg(0), op->type.lanes());
            Type amount_type = op->args[1].type();
            llvm::Value* amount = splat(arg(1), op->type.lanes());
            amount = cast(amount, amount_type.with_lanes(op->type.lanes()), t);
            return shift(a, amount, t, op->intrinsic == Intrinsic::ShiftLeft);
        }
        case Intrinsic::Likely:
        case Intrinsic::LikelyIfInnermost: return arg(0);
        case Intrinsic::Require: check(op->args.at(0), op->args.at(2)); return arg(1);
        case Intrinsic::AllLanesTrue: {
            llvm::Value* v = arg(0);
            return op->args[0].type().is_vector() ? builder_.CreateAndReduce(v) : v;
        }
        case Intrinsic::ExtractLane: {
            llvm::Value* v = arg(0);
            if (!op->args[0].type().is_vector()) return v;
            llvm::Value* lane = cast(arg(1), op->args.at(1).type(), Int(32));
            return builder_.CreateExtractElement(v, lane);
        }
        case Intrinsic::Print:
        case Intrinsic::PrintWhen: return codegen_print(op);
        case Intrinsic::BufferView: return codegen_buffer_view(op);
        case Intrinsic::DotU8S8: return codegen_dot_u8s8(op);
        case Intrinsic::DotBF16: return codegen_dot_bf16(op);
        case Intrinsic::BufferHost:
        case Intrinsic::BufferMin:
        case Intrinsic::BufferExtent:
        case Intrinsic::BufferStride:
        case Intrinsic::BufferDimensions:
        case Intrinsic::BufferTypeCode:
        case Intrinsic::BufferTypeBits:
        case Intrinsic::BufferTypeLanes: return codegen_buffer_field(op);
        case Intrinsic::GPULaunch: return codegen_gpu_launch(op);
        case Intrinsic::CopyToDevice:
        case Intrinsic::CopyToHost:
        case Intrinsic::SetHostDirty:
        case Intrinsic::SetDeviceDirty: return codegen_device_copy(op);
        case Intrinsic::GPUBarrier:  // only in kernels (codegen_ptx.cpp)
        case Intrinsic::ErrorMessage:
        case Intrinsic::None: break;
    }
    TESSERA_INTERNAL_ERROR << "intrinsic " << op->name
                           << " where a value is needed: " << ir::to_string(ir::handle_of(op));
    return nullptr;
}

llvm::Value* CodeGenLLVM::codegen_math(const ir::Call* op) {
    using ir::Intrinsic;
    llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
    switch (op->intrinsic) {
        case Intrinsic::Sqrt: id = llvm::Intrinsic::sqrt; break;
        case Intrinsic::Exp: id = llvm::Intrinsic::exp; break;
        case Intrinsic::Log: id = llvm::Intrinsic::log; break;
        case Intrinsic::Pow: id = llvm::Intrinsic::pow; break;
        case Intrinsic::Fma: id = llvm::Intrinsic::fma; break;
        case Intrinsic::Sin: id = llvm::Intrinsic::sin; break;
        case Intrinsic::Cos: id = llvm::Intrinsic::cos; break;
        case Intrinsic::Tan: id = llvm::Intrinsic::tan; break;
        case Intrinsic::Tanh: id = llvm::Intrinsic::tanh; break;
        case Intrinsic::Floor: id = llvm::Intrinsic::floor; break;
        case Intrinsic::Ceil: id = llvm::Intrinsic::ceil; break;
        case Intrinsic::Trunc: id = llvm::Intrinsic::trunc; break;
        case Intrinsic::Round: id = llvm::Intrinsic::roundeven; break;  // half to even
        default: TESSERA_INTERNAL_ERROR << op->name << " is not a math function";
    }
    size_t arity = op->intrinsic == Intrinsic::Fma ? 3 : op->intrinsic == Intrinsic::Pow ? 2 : 1;
    TESSERA_INTERNAL_CHECK(op->args.size() == arity) << op->name << " takes " << arity << " arguments";
    std::vector<llvm::Value*> args;
    for (const Expr& a : op->args) {
        TESSERA_INTERNAL_CHECK(a.type().is_float() && a.type().element_of() == op->type.element_of())
            << op->name << " of " << type_name(a.type()) << " giving " << type_name(op->type);
        args.push_back(splat(codegen(a), op->type.lanes()));
    }
    // Rounding, square roots and fused multiply-adds are exact, lane by lane, as vector instructions. The
    // rest would become calls of a vector math library if LLVM had one, whose results may differ from the C
    // library's: they are computed one lane at a time, exactly as scalars are.
    const bool exact_as_vector = id == llvm::Intrinsic::sqrt || id == llvm::Intrinsic::floor ||
                                 id == llvm::Intrinsic::ceil || id == llvm::Intrinsic::trunc ||
                                 id == llvm::Intrinsic::roundeven || id == llvm::Intrinsic::fma;
    if (op->type.is_scalar() || exact_as_vector)
        return builder_.CreateIntrinsic(id, {llvm_type(op->type)}, args);
    return per_lane(op->type, args, [&](const std::vector<llvm::Value*>& lane_args) {
        return builder_.CreateIntrinsic(id, {llvm_type(op->type.element_of())}, lane_args);
    });
}

llvm::Value* CodeGenLLVM::splat(llvm::Value* v, int lanes) {
    return lanes > 1 && !v->getType()->isVectorTy() ? builder_.CreateVectorSplat(lanes, v) : v;
}

llvm::Value* CodeGenLLVM::per_lane(Type t, const std::vector<llvm::Value*>& args,
                                   const std::function<llvm::Value*(const std::vector<llvm::Value*>&)>& f) {
    llvm::Value* result = llvm::PoisonValue::get(llvm_type(t));
    for (int lane = 0; lane < t.lanes(); lane++) {
        std::vector<llvm::Value*> lane_args;
        for (llvm::Value* a : args)
            lane_args.push_back(a->getType()->isVectorTy() ? builder_.CreateExtractElement(a, lane) : a);
        result = builder_.CreateInsertElement(result, f(lane_args), lane);
    }
    return result;
}

llvm::Value* CodeGenLLVM::shift(llvm::Value* a, llvm::Value* amount, Type t, bool left) {
    // LLVM's shifts are poison for amounts of the width or more: shift by at most bits - 1, then
    // choose 0 where the true amount was too large. An arithmetic right shift by bits - 1 is
    // already the sign fill.
    llvm::Value* zero = constant(t, 0);
    llvm::Value* negative = t.is_int() ? builder_.CreateICmpSLT(amount, zero) : nullptr;
    // For INT_MIN the negation wraps to itself, which read as unsigned is still too far.
    llvm::Value* magnitude =
        negative ? builder_.CreateSelect(negative, builder_.CreateNeg(amount), amount) : amount;
    llvm::Value* clamped =
        builder_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, magnitude, constant(t, t.bits() - 1));
    llvm::Value* too_far = builder_.CreateICmpUGE(magnitude, constant(t, t.bits()));
    llvm::Value* shifted_left = builder_.CreateSelect(too_far, zero, builder_.CreateShl(a, clamped));
    llvm::Value* shifted_right = t.is_int()
                                     ? builder_.CreateAShr(a, clamped)
                                     : builder_.CreateSelect(too_far, zero, builder_.CreateLShr(a, clamped));
    if (!negative) return left ? shifted_left : shifted_right;
    // A negative amount shifts the other way.
    return left ? builder_.CreateSelect(negative, shifted_right, shifted_left)
                : builder_.CreateSelect(negative, shifted_left, shifted_right);
}

llvm::Value* CodeGenLLVM::codegen_buffer_field(const ir::Call* op) {
    using ir::Intrinsic;
    TESSERA_INTERNAL_CHECK(!op->args.empty() && op->args[0].type().is_handle())
        << op->name << " needs a buffer argument: " << ir::to_string(ir::handle_of(op));
    llvm::Value* buffer = codegen(op->args[0]);
    // The descriptor's fields, as in tessera_buffer_t and tessera_type_t.
    enum { kHost = 2, kType = 4, kDimensions = 5, kDim = 6 };
    const std::string descriptor = ".tessera_buffer_t";
    auto load = [&](llvm::Type* type, llvm::Value* address) {
        return tag_access(builder_.CreateLoad(type, address), descriptor);
    };
    auto type_field = [&](unsigned field, llvm::Type* type) {
        llvm::Value* address = builder_.CreateStructGEP(buffer_type_, buffer, kType);
        address = builder_.CreateStructGEP(buffer_type_->getElementType(kType), address, field);
        return builder_.CreateZExt(load(type, address), builder_.getInt32Ty());
    };
    switch (op->intrinsic) {
        case Intrinsic::BufferHost:
            return load(builder_.getPtrTy(), builder_.CreateStructGEP(buffer_type_, buffer, kHost));
        case Intrinsic::BufferDimensions:
            return load(builder_.getInt32Ty(), builder_.CreateStructGEP(buffer_type_, buffer, kDimensions));
        case Intrinsic::BufferTypeCode: return type_field(0, builder_.getInt8Ty());
        case Intrinsic::BufferTypeBits: return type_field(1, builder_.getInt8Ty());
        case Intrinsic::BufferTypeLanes: return type_field(2, builder_.getInt16Ty());
        default: break;
    }
    // min, extent and stride of dimension args[1], fields 0, 1 and 2 of tessera_dimension_t.
    TESSERA_INTERNAL_CHECK(op->args.size() == 2)
        << op->name << " needs a dimension: " << ir::to_string(ir::handle_of(op));
    unsigned field = op->intrinsic == Intrinsic::BufferMin      ? 0
                     : op->intrinsic == Intrinsic::BufferExtent ? 1
                                                                : 2;
    llvm::Value* dims = load(builder_.getPtrTy(), builder_.CreateStructGEP(buffer_type_, buffer, kDim));
    llvm::Value* dim = cast(codegen(op->args[1]), op->args[1].type(), Int(32));
    llvm::Value* address = builder_.CreateInBoundsGEP(dimension_type_, dims, {dim, builder_.getInt32(field)});
    return load(builder_.getInt32Ty(), address);
}

llvm::Value* CodeGenLLVM::codegen_print(const ir::Call* op) {
    llvm::Type* result_type = llvm_type(op->type);
    // print(a, b, ...) returns a; print_when(condition, value, args...) returns value.
    auto result_of = [&](llvm::Value* v) {
        return v && v->getType() == result_type ? v : llvm::Constant::getNullValue(result_type);
    };
    if (op->intrinsic == ir::Intrinsic::Print) {
        std::vector<llvm::Value*> values;
        for (const Expr& a : op->args) values.push_back(codegen(a));
        emit_print(op->args, values);
        return result_of(values.empty() ? nullptr : values[0]);
    }
    TESSERA_INTERNAL_CHECK(op->args.size() >= 2) << "print_when needs a condition and a value";
    llvm::Value* condition = codegen(op->args[0]);
    if (op->args[0].type().is_vector()) condition = builder_.CreateOrReduce(condition);
    llvm::Value* value = codegen(op->args[1]);
    // Like print(value, args...), where the condition holds.
    emit_if(condition, [&] {
        std::vector<Expr> args(op->args.begin() + 1, op->args.end());
        std::vector<llvm::Value*> values{value};
        for (size_t i = 1; i < args.size(); i++) values.push_back(codegen(args[i]));
        emit_print(args, values);
    });
    return result_of(value);
}

void CodeGenLLVM::emit_print(const std::vector<Expr>& args, const std::vector<llvm::Value*>& values) {
    llvm::Type* ptr = builder_.getPtrTy();
    builder_.CreateCall(runtime_function("tessera_print_begin", builder_.getVoidTy(), {ptr}),
                        {null_user_context()});
    for (size_t i = 0; i < args.size(); i++) {
        if (i > 0) append_string("tessera_print", " ");
        append_to_message("tessera_print", args[i], values[i]);
    }
    builder_.CreateCall(runtime_function("tessera_print_end", builder_.getVoidTy(), {ptr}),
                        {null_user_context()});
}

llvm::Value* CodeGenLLVM::codegen_extern(const ir::Call* op) {
    std::vector<llvm::Value*> args;
    std::vector<llvm::Type*> params;
    int lanes = op->type.lanes();
    for (const Expr& a : op->args) {
        args.push_back(codegen(a));
        params.push_back(llvm_type(a.type().element_of()));
        lanes = std::max(lanes, a.type().lanes());
    }
    llvm::Type* result = llvm_type(op->type.element_of());
    llvm::FunctionCallee callee =
        module_->getOrInsertFunction(op->name, llvm::FunctionType::get(result, params, false));
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) f->setDoesNotThrow();
    if (lanes == 1) return builder_.CreateCall(callee, args);
    // A C function takes scalars: call it once per lane.
    return per_lane(op->type.with_lanes(lanes), args, [&](const std::vector<llvm::Value*>& lane_args) {
        return builder_.CreateCall(callee, lane_args);
    });
}

}  // namespace tessera::targets::detail
