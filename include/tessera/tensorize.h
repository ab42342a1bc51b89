#pragma once
// Tensorization, with TVM's meaning: a loop nest of a schedule replaced by a hardware instruction
// or a micro-kernel that computes the same thing.
//
// A TensorIntrinsic is declared by a small Tessera definition of what it computes over fixed
// extents, written over ImageParams, for example a 16 x 6 tile of a matrix product:
//
//   ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
//   Param<int> depth("depth");
//   Func c("c");
//   Var i("i"), j("j");
//   RDom k(0, depth, "k");
//   c(i, j) = 0.0f;
//   c(i, j) = fma(a(k, j), b(i, k), c(i, j));
//   c.bound(i, 0, 16).bound(j, 0, 6);
//   c.update().reorder(i, j, k);  // the loop nest it replaces: k outermost, i innermost
//
// The declaration's last definition, with the loop order of its schedule, is what is matched:
// bound() gives the extents of its pure Vars, the RDom those of its reduction. An extent may be a
// Param<int> (the intrinsic then takes any extent there, given to the implementation).
//
// f.update().tensorize(v, intrinsic) matches the loops from v inwards against the declaration:
// their number, their extents, the statement (its operations, types and operands, up to the
// order of the operands of + and *), and each operand's accesses, which must move through memory
// as the declaration's do (any strides, as long as each dimension of the declaration is one
// stride). A mismatch is a CompileError that shows both sides. Where the loops are guarded (a
// split that does not divide its loop), the intrinsic runs on the tiles that are whole and the
// original loops on the others, so results never depend on sizes.

#include <memory>
#include <string>
#include <vector>

#include "tessera/func.h"
#include "tessera/param.h"

namespace tessera {

namespace lang {
struct TensorIntrinsicContents;
}

class TensorIntrinsic {
public:
    TensorIntrinsic() = default;
    explicit TensorIntrinsic(std::shared_ptr<const lang::TensorIntrinsicContents> contents)
        : contents_(std::move(contents)) {}

    // An intrinsic implemented by a C function
    //   int function_name(tessera_buffer_t* input0, ..., tessera_buffer_t* output, int32_t extent0, ...)
    // taking a view of each operand (the `inputs`, in this order, then the declaration's Func), whose
    // dimensions are those of the operand's declaration with the strides of the memory matched, and
    // the value of each Param<int> extent in `extents`. It returns 0, or an error code that the
    // pipeline returns. `address` is where the function is in this process, for the JIT; ahead-of-
    // time code links to it by name.
    static TensorIntrinsic extern_function(const std::string& function_name, const Func& declaration,
                                           const std::vector<ImageParam>& inputs, const void* address,
                                           const std::vector<Param<int>>& extents = {});

    const std::string& name() const;
    // The declaration as the loop nest it replaces.
    std::string to_string() const;
    bool defined() const { return contents_ != nullptr; }
    const std::shared_ptr<const lang::TensorIntrinsicContents>& contents() const { return contents_; }

private:
    std::shared_ptr<const lang::TensorIntrinsicContents> contents_;
};

// Intrinsics of this CPU, each with its declaration. They compile to the named instructions where
// the target has them, and to equivalent vector code elsewhere, with the same results.
namespace intrinsics {

// C(i, j) = fma(A(k, j), B(i, k), C(i, j)) for i < columns, j < rows, over any depth k (k
// outermost, i innermost): a register-blocked f32 micro-kernel keeping the columns x rows tile of C
// in vector registers across k (AVX-512 FMA on 16 lanes; columns must be a multiple of 16, or of 8
// for AVX2). A is read a scalar at a time, B and C as contiguous rows (stride 1 in i).
TensorIntrinsic fma_f32(int columns, int rows);

// C(i, j) += i32(A(4 ko + q, j)) * i32(B(q, i, ko)) for i < columns, j < rows, q < 4, over any
// ko (ko outermost, then j, i, q): u8 times s8 summed four at a time into s32, AVX512-VNNI's
// vpdpbusd. B is packed: the four values of q for one i are consecutive, then i, then ko.
TensorIntrinsic dot_u8s8(int columns, int rows);

// C(i, j) = C(i, j) + f32(A(2 ko + 1 - q, j)) * f32(B(1 - q, i, ko)) for i < columns, j < rows,
// q < 2, over any ko, where A and B hold bfloat16 values (uint16 bits, f32(v) being v << 16):
// AVX512-BF16's vdpbf16ps, which adds the odd product, then the even one. B is packed in pairs.
TensorIntrinsic dot_bf16(int columns, int rows);

// The float32 value of bfloat16 bits held in a uint16.
Expr bfloat16_to_float(const Expr& bits);

}  // namespace intrinsics
}  // namespace tessera
