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

namespace tessera_apps {

struct SgemmPipeline {
    tessera::ImageParam A, B;  // float, two dimensions each
    tessera::Func C;
    tessera::Var x, y;
    tessera::RDom k;  // 0 .. A.width() - 1
};

// Defines C = A B over the given inputs; unscheduled, it computes C at the root, point by point.
SgemmPipeline sgemm_pipeline(const tessera::ImageParam& A, const tessera::ImageParam& B);

// The hand schedule, for matrices of at least 16 columns and 6 rows (smaller ones are refused
// when the pipeline runs):
//
//   - C is cut into tiles of 16 columns by 6 rows (ShiftInwards: the last tiles of a ragged edge
//     overlap their neighbours and compute some values twice, identically). Each tile is
//     accumulated by cache_write in a 16 x 6 local array kept in registers: twelve 8-lane vectors
//     on AVX2, updated by k outermost, rows unrolled, columns vectorized; then copied to C once.
//     One step of k is two vector loads of B, six broadcasts of A and twelve vector FMAs.
//   - Tiles are visited a column panel at a time (16 columns, every row), and cache_read copies
//     the panel of B, K x 16, into a dense local array first: the tiles of the panel then read B
//     in order, from cache, whatever B's stride.
//   - row_tasks > 1 cuts the rows into that many bands of whole tiles (the last ones overlapping),
//     run as a parallel loop; each band walks every panel and packs its own copy of it, so the
//     bands share nothing and never wait for one another. One band per thread is the fastest on a
//     quiet machine.
void schedule_sgemm_tiled(SgemmPipeline& p, int row_tasks = 1);

// The same tiles, bands and packed panels, with the 16 x 6 tile's update tensorized: the loops over
// k, rows and columns of a tile become intrinsics::fma_f32(16, 6), which keeps the tile in vector
// registers across k (twelve 8-lane FMAs per k on AVX2, six 16-lane ones on AVX-512). Tiles that a
// ragged edge cuts short run the loops instead (GuardWithIf: an update may not compute a point
// twice). Any size is accepted.
void schedule_sgemm_tensorized(SgemmPipeline& p, int row_tasks = 1);

}  // namespace tessera_apps
