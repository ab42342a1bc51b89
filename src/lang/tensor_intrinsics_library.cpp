// The built-in tensor intrinsics: their declarations. Their implementations are the kernels of
// lowering/tensor_kernels.cpp.

#include <memory>

#include "lang/tensor_intrinsic.h"
#include "tessera/operators.h"
#include "tessera/rdom.h"
#include "tessera/tensorize.h"
#include "util/error_stream.h"

namespace tessera::intrinsics {
namespace {

void check_tile(const char* intrinsic, int columns, int rows) {
    TESSERA_USER_CHECK(columns > 0 && columns % 8 == 0 && rows > 0 && rows <= 32)
        << "intrinsics::" << intrinsic << "(" << columns << ", " << rows
        << ") cannot be built: columns must be a positive multiple of 8 and rows in [1, 32].";
}

TensorIntrinsic built_in(lang::TensorIntrinsicContents c, lang::TensorImplementation implementation,
                         int columns, int rows) {
    c.implementation = implementation;
    c.columns = columns;
    c.rows = rows;
    return TensorIntrinsic(std::make_shared<lang::TensorIntrinsicContents>(std::move(c)));
}

std::string tile_name(const char* base, int columns, int rows) {
    return std::string(base) + "_" + std::to_string(columns) + "x" + std::to_string(rows);
}

}  // namespace

Expr bfloat16_to_float(const Expr& bits) {
    return reinterpret(Float(32), cast(UInt(32), cast(UInt(16), bits)) << 16);
}

TensorIntrinsic fma_f32(int columns, int rows) {
    check_tile("fma_f32", columns, rows);
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Param<int> depth("depth");
    Func c("c");
    Var i("i"), j("j");
    RDom k(0, depth, "k");
    c(i, j) = 0.0f;
    c(i, j) = fma(a(k, j), b(i, k), c(i, j));
    c.bound(i, 0, columns).bound(j, 0, rows);
    c.update().reorder(i, j, k);
    const std::string name = tile_name("fma_f32", columns, rows);
    return built_in(lang::declare_tensor_intrinsic(name, c, {"a", "b"}, {"depth"}),
                    lang::TensorImplementation::FmaF32, columns, rows);
}

TensorIntrinsic dot_u8s8(int columns, int rows) {
    check_tile("dot_u8s8", columns, rows);
    ImageParam a(UInt(8), 2, "a"), b(Int(8), 3, "b");
    Param<int> depth("depth");
    Func c("c");
    Var i("i"), j("j");
    RDom r(0, 4, 0, depth, "r");
    c(i, j) = 0;
    c(i, j) += cast<int32_t>(a(4 * r.y + r.x, j)) * cast<int32_t>(b(r.x, i, r.y));
    c.bound(i, 0, columns).bound(j, 0, rows);
    c.update().reorder(r.x, i, j, r.y);
    const std::string name = tile_name("dot_u8s8", columns, rows);
    return built_in(lang::declare_tensor_intrinsic(name, c, {"a", "b"}, {"depth"}),
                    lang::TensorImplementation::DotU8S8, columns, rows);
}

TensorIntrinsic dot_bf16(int columns, int rows) {
    check_tile("dot_bf16", columns, rows);
    ImageParam a(UInt(16), 2, "a"), b(UInt(16), 3, "b");
    Param<int> depth("depth");
    Func c("c");
    Var i("i"), j("j");
    RDom r(0, 2, 0, depth, "r");
    c(i, j) = 0.0f;
    c(i, j) = c(i, j) + bfloat16_to_float(a(2 * r.y + 1 - r.x, j)) * bfloat16_to_float(b(1 - r.x, i, r.y));
    c.bound(i, 0, columns).bound(j, 0, rows);
    c.update().reorder(r.x, i, j, r.y);
    const std::string name = tile_name("dot_bf16", columns, rows);
    return built_in(lang::declare_tensor_intrinsic(name, c, {"a", "b"}, {"depth"}),
                    lang::TensorImplementation::DotBF16, columns, rows);
}

}  // namespace tessera::intrinsics
