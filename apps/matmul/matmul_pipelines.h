#pragma once
// Single-precision matrix multiply in Tessera: C = A B for row-major matrices, in Halide's order of
// dimensions (the first is the column, the contiguous one):
//
//   C(x, y) = 0
//   C(x, y) = fma(A(k, y), B(x, k), C(x, y))    for k = 0, 1, ..., K - 1 in turn
//
// A is K wide and M tall, B N wide and K tall, C N wide and M tall. Every element of C is the chain
// of fused multiply-adds in increasing k, rounded once per step, so any schedule gives the same
// bits as the plain loop `c = std::fma(a[y][k], b[k][x], c)` over k, and the benchmark checks
// exactly that.
//
// The definition and its schedule are apart: sgemm_pipeline() defines, a schedule_* function
// schedules what it returns. Another schedule is another function taking the SgemmPipeline.

#include <tessera/tessera.h>

#include "register_tile.h"

namespace tessera_apps {

struct SgemmPipeline {
    tessera::ImageParam A, B;  // float, two dimensions each
    tessera::Func C;
    tessera::Var x, y;
    tessera::RDom k;  // 0 .. A.width() - 1
};

// Defines C = A B over the given inputs; unscheduled, it computes C at the root, point by point.
SgemmPipeline sgemm_pipeline(const tessera::ImageParam& A, const tessera::ImageParam& B);

// The hand schedule, for matrices of at least as many columns and rows as the register tile
// (smaller ones are refused when the pipeline runs). The tile is two vectors wide by default
// (register_tile.h): 16 x 6 on AVX2, 32 x 8 on AVX-512.
//
//   - C is cut into tiles (ShiftInwards: the last tiles of a ragged edge overlap their neighbours
//     and compute some values twice, identically). Each tile is accumulated by cache_write in a
//     local array kept in registers (twelve vectors on AVX2, sixteen on AVX-512), updated by k
//     outermost, rows unrolled, columns vectorized; then copied to C once. One step of k is two
//     vector loads of B and, per row, a broadcast of A and two vector FMAs.
//   - Tiles are visited a column panel at a time (a tile's columns, every row), and cache_read
//     copies the panel of B, K x columns, into a dense local array first: the tiles of the panel
//     then read B in order, from cache, whatever B's stride.
//   - row_tasks > 1 cuts the rows into that many bands of whole tiles (the last ones overlapping),
//     run as a parallel loop; each band walks every panel and packs its own copy of it, so the
//     bands share nothing and never wait for one another. One band per thread is the fastest on a
//     quiet machine.
void schedule_sgemm_tiled(
    SgemmPipeline& p, int row_tasks = 1,
    RegisterTile tile = default_register_tile(tessera::get_jit_target_from_environment()));

// The same tiles, bands and packed panels, with the tile's update tensorized: the loops over k,
// rows and columns of a tile become intrinsics::fma_f32(columns, rows), which keeps the tile in
// vector registers across k. Tiles that a ragged edge cuts short run the loops instead
// (GuardWithIf: an update may not compute a point twice). Any size is accepted.
void schedule_sgemm_tensorized(
    SgemmPipeline& p, int row_tasks = 1,
    RegisterTile tile = default_register_tile(tessera::get_jit_target_from_environment()));

}  // namespace tessera_apps
