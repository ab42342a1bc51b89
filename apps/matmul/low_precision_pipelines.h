#pragma once
// Low-precision matrix multiplies in Tessera, tensorized with the dot-product intrinsics:
//
//   u8 x s8 -> s32:  C(x, y) = sum over k of i32(A(k, y)) * i32(B(x, k))
//   bf16 -> f32:     C(x, y) = sum over k of f32(A(k, y)) * f32(B(x, k)), bfloat16 bits in uint16
//
// K is a multiple of 4 (u8 x s8) or 2 (bf16). B is packed first, so that the values one instruction
// reduces are adjacent: packed(q, x, ko) = B(x, group * ko + q), group being 4 or 2. The bf16 sum
// runs in vdpbf16ps's order, for each pair of k the odd product then the even one, so that any
// schedule, tensorized or not, gives the bits of that loop in plain C++.

#include <tessera/tessera.h>

#include "register_tile.h"

namespace tessera_apps {

struct LowPrecisionGemm {
    tessera::ImageParam A, B;
    tessera::Func packed, C;
    tessera::Var x, y, q;
    tessera::RDom r;  // r.x: q, within a group; r.y: ko
    int group;
};

LowPrecisionGemm gemm_u8s8_pipeline();
LowPrecisionGemm gemm_bf16_pipeline();

// B packed at the root (in parallel over ko), and for bf16 the packed columns of each tile copied
// once more, densely, before the tile's rows (cache_read); C in bands of rows, one per task, of register
// tiles (two vectors of 32-bit lanes wide by default, register_tile.h) whose updates are the dot-product
// intrinsic (vpdpbusd or vdpbf16ps where the CPU has them, the same arithmetic in vector code elsewhere);
// tiles cut short by the edges run the loops.
void schedule_low_precision_gemm(
    LowPrecisionGemm& p, int row_tasks,
    RegisterTile tile = default_register_tile(tessera::get_jit_target_from_environment()));

}  // namespace tessera_apps
