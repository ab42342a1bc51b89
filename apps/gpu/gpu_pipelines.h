#pragma once
// The GPU benchmarks' pipelines, each a definition and, apart, its schedule for an NVIDIA GPU and
// one for the CPU (apps/matmul's serves SGEMM there):
//
//   - the 3x3 blur of apps/blur (uint16, edges repeated), its output in blocks of 32 x 8 threads,
//     a pixel each, and the horizontal pass a block needs staged in its shared memory;
//   - SGEMM, C = A B in Halide's order of dimensions (the first is the column) and with the CPU's
//     chain of fused multiply-adds in increasing k (apps/matmul), so that any schedule gives the
//     plain loop's bits: 64 x 64 tiles of C per block, 16 x 16 threads, each keeping a 4 x 4 tile
//     of sums in registers, and per step of 16 values of k the tiles of A and B that the block
//     reads staged in shared memory by all its threads together;
//   - a row sum, out(y) = the sum of in(x, y) over x in increasing order of 256 slices: rfactor
//     makes 256 partial sums per row, one per thread of the row's block, reading memory in
//     order across the threads, and a second kernel adds each row's partial sums.

#include <tessera/tessera.h>

namespace gpu_apps {

struct BlurPipeline {
    tessera::ImageParam input{tessera::UInt(16), 2, "input"};
    tessera::Func blur_x{"blur_x"}, blur_y{"blur_y"};
    tessera::Var x{"x"}, y{"y"};
};
BlurPipeline blur_pipeline();
void schedule_blur_for_gpu(BlurPipeline& p);
void schedule_blur_for_cpu(BlurPipeline& p);

struct SgemmPipeline {
    tessera::ImageParam A{tessera::Float(32), 2, "A"}, B{tessera::Float(32), 2, "B"};
    tessera::Func A_tile{"A_tile"}, B_tile{"B_tile"}, acc{"acc"}, C{"C"};
    tessera::Var x{"x"}, y{"y"};
    tessera::RDom k;
};
SgemmPipeline sgemm_pipeline();
void schedule_sgemm_for_gpu(SgemmPipeline& p);

struct RowSumPipeline {
    tessera::ImageParam input{tessera::Float(32), 2, "input"};
    tessera::Func sum{"row_sum"};
    tessera::Var y{"y"};
    tessera::RDom r;
};
RowSumPipeline row_sum_pipeline();
void schedule_row_sum_for_gpu(RowSumPipeline& p);
void schedule_row_sum_for_cpu(RowSumPipeline& p);

}  // namespace gpu_apps
