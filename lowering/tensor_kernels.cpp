// The implementations of tensor intrinsics, as loop-nest IR.
//
// The built-in kernels keep a tile of the output in a Register allocation across the reduction
// (loaded once, updated by vector operations, stored once), which LLVM keeps in vector registers.

#include "lowering/tensor_kernels.h"

#include "ir/ir_util.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

using ir::For;
using ir::ForKind;

Expr i32(int64_t v) { return ir::make_const(Int(32), v); }

Expr var(const std::string& name) { return ir::int_var(name); }

// element (coordinates) of an operand.
Expr element(const TensorOperandView& v, const std::vector<Expr>& coordinates) {
    Expr index = v.base;
    for (size_t d = 0; d < coordinates.size(); d++) index = index + coordinates[d] * v.strides[d];
    return index;
}

Expr load(const TensorOperandView& v, const std::vector<Expr>& coordinates) {
    return ir::Load::make(v.type, v.buffer, element(v, coordinates));
}

// `lanes` consecutive elements along dimension `dim` from coordinates.
Expr load_lanes(const TensorOperandView& v, const std::vector<Expr>& coordinates, int dim, int lanes) {
    return ir::Load::make(v.type.with_lanes(lanes), v.buffer,
                          ir::Ramp::make(element(v, coordinates), v.strides[dim], lanes));
}

Expr view_argument(const TensorOperandView& v) {
    std::vector<Expr> args{ir::StringImm::make(v.buffer), v.base, i32(int(v.type.code())),
                           i32(v.type.bits())};
    for (size_t d = 0; d < v.strides.size(); d++) {
        args.push_back(v.extents[d]);
        args.push_back(v.strides[d]);
    }
    return ir::Call::make_intrinsic(Handle(), ir::Intrinsic::BufferView, std::move(args));
}

TensorKernel extern_call(const lang::TensorIntrinsicContents& in, const TensorBinding& b,
                         const std::string& unique) {
    std::vector<Expr> args;
    for (const TensorOperandView& v : b.inputs) args.push_back(view_argument(v));
    args.push_back(view_argument(b.output));
    for (const Expr& e : b.extent_values) args.push_back(e);
    const std::string result = unique + ".result";
    Expr code = var(result);
    Expr message = ir::Call::make_intrinsic(
        Int(32), ir::Intrinsic::ErrorMessage,
        {code,
         ir::StringImm::make("The tensor intrinsic " + in.name + " (the C function " + in.function_name +
                             ") returned error code "),
         code, ir::StringImm::make(".")});
    ir::Stmt check = ir::AssertStmt::make(code == i32(0), message);
    return {ir::LetStmt::make(result, ir::Call::make_extern(Int(32), in.function_name, args), check),
            ir::const_true()};
}

// The output tile in a Register allocation: loaded before `update` and stored after it. acc(i, j)
// is element i + j * columns.
ir::Stmt with_accumulator(const TensorBinding& b, const std::string& acc, int columns, int rows,
                          const std::string& unique, const ir::Stmt& update) {
    const TensorOperandView& c = b.output;
    Expr i = var(unique + ".i"), j = var(unique + ".j");
    Expr slot = i + j * columns;
    ir::Stmt load = ir::Store::make(acc, ir::Load::make(c.type, c.buffer, element(c, {i, j})), slot);
    ir::Stmt store = ir::Store::make(c.buffer, ir::Load::make(c.type, acc, slot), element(c, {i, j}));
    auto tile = [&](const ir::Stmt& s) {
        ir::Stmt inner = For::make(unique + ".i", i32(0), i32(columns), ForKind::Vectorized, s);
        return For::make(unique + ".j", i32(0), i32(rows), ForKind::Unrolled, inner);
    };
    ir::Stmt body = ir::Block::make({tile(load), update, tile(store)});
    return ir::Allocate::make(acc, c.type, {i32(columns * rows)}, body, MemoryType::Register);
}

TensorKernel fma_f32(const lang::TensorIntrinsicContents& in, const TensorBinding& b,
                     const std::string& unique) {
    const TensorOperandView &a = b.inputs[0], &bm = b.inputs[1];
    const std::string acc = unique + ".acc", k = unique + ".k", j = unique + ".rj", i = unique + ".ri";
    Expr slot = var(i) + var(j) * in.columns;
    Expr value = ir::Call::make_intrinsic(
        Float(32), ir::Intrinsic::Fma,
        {load(a, {var(k), var(j)}), load(bm, {var(i), var(k)}), ir::Load::make(Float(32), acc, slot)});
    ir::Stmt step = ir::Store::make(acc, value, slot);
    step = For::make(i, i32(0), i32(in.columns), ForKind::Vectorized, step);
    step = For::make(j, i32(0), i32(in.rows), ForKind::Unrolled, step);
    step = For::make(k, i32(0), b.extent_values.at(0), ForKind::Serial, step);
    return {with_accumulator(b, acc, in.columns, in.rows, unique, step), ir::const_true()};
}

// The dot-product kernels: per ko and row j, chunks of n output lanes, each one instruction over
// `group` consecutive reduction values.
TensorKernel dot_kernel(const lang::TensorIntrinsicContents& in, const TensorBinding& b,
                        const std::string& unique, ir::Intrinsic op, int group) {
    const TensorOperandView &a = b.inputs[0], &bm = b.inputs[1];
    const int n = in.columns % 16 == 0 ? 16 : 8;
    const std::string acc = unique + ".acc", ko = unique + ".ko", j = unique + ".rj",
                      chunk = unique + ".chunk";
    const Type acc_type = b.output.type.with_lanes(n);
    Expr first = var(chunk) * n + var(j) * in.columns;
    Expr slots = ir::Ramp::make(first, i32(1), n);
    // a's `group` values of this ko (coordinate group * ko + q), the same for every lane.
    Expr a_group = load_lanes(a, {var(ko) * group, var(j)}, 0, group);
    // b's values for n lanes: packed, so group * n consecutive elements.
    Expr b_lanes =
        ir::Load::make(bm.type.with_lanes(group * n), bm.buffer,
                       ir::Ramp::make(element(bm, {i32(0), var(chunk) * n, var(ko)}), i32(1), group * n));
    Expr value =
        ir::Call::make_intrinsic(acc_type, op, {ir::Load::make(acc_type, acc, slots), a_group, b_lanes});
    ir::Stmt step = ir::Store::make(acc, value, slots);
    step = For::make(chunk, i32(0), i32(in.columns / n), ForKind::Unrolled, step);
    step = For::make(j, i32(0), i32(in.rows), ForKind::Unrolled, step);
    step = For::make(ko, i32(0), b.extent_values.at(0), ForKind::Serial, step);
    Expr packed = bm.strides[0] == i32(1) && bm.strides[1] == i32(group);
    return {with_accumulator(b, acc, in.columns, in.rows, unique, step), packed};
}

}  // namespace

TensorKernel tensor_kernel(const lang::TensorIntrinsicContents& intrinsic, const TensorBinding& binding,
                           const std::string& unique) {
    using lang::TensorImplementation;
    switch (intrinsic.implementation) {
        case TensorImplementation::ExternFunction: return extern_call(intrinsic, binding, unique);
        case TensorImplementation::FmaF32: return fma_f32(intrinsic, binding, unique);
        case TensorImplementation::DotU8S8:
            return dot_kernel(intrinsic, binding, unique, ir::Intrinsic::DotU8S8, 4);
        case TensorImplementation::DotBF16:
            return dot_kernel(intrinsic, binding, unique, ir::Intrinsic::DotBF16, 2);
    }
    TESSERA_INTERNAL_ERROR << "unknown tensor implementation";
    return {};
}

}  // namespace tessera::lowering
