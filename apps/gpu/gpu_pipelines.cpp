#include "gpu_pipelines.h"

namespace gpu_apps {

using namespace tessera;

BlurPipeline blur_pipeline() {
    BlurPipeline p;
    Func clamped = BoundaryConditions::repeat_edge(p.input);
    const Var x = p.x, y = p.y;
    p.blur_x(x, y) = cast<uint16_t>((cast<int>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
    p.blur_y(x, y) =
        cast<uint16_t>((cast<int>(p.blur_x(x, y - 1)) + p.blur_x(x, y) + p.blur_x(x, y + 1)) / 3);
    return p;
}

void schedule_blur_for_gpu(BlurPipeline& p) {
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    p.blur_y.gpu_tile(p.x, p.y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
    // The 32 x 10 values of blur_x a block's outputs read, computed once by its threads.
    p.blur_x.compute_at(p.blur_y, xo).gpu_threads(p.x, p.y);
}

void schedule_blur_for_cpu(BlurPipeline& p) {
    Var xi("xi"), yi("yi");
    // apps/blur's tiled schedule: tiles of 256 x 32 in parallel, rows of 16 lanes, blur_x per tile
    // (for images of 256 x 32 pixels at least: the last tiles shift inwards).
    p.blur_y.tile(p.x, p.y, xi, yi, 256, 32).vectorize(xi, 16).parallel(p.y);
    p.blur_x.compute_at(p.blur_y, p.x).vectorize(p.x, 16);
}

SgemmPipeline sgemm_pipeline() {
    SgemmPipeline p;
    const Var x = p.x, y = p.y;
    p.k = RDom(0, p.A.width(), "k");
    // The tiles are copies of the inputs, which the schedule stages in shared memory; clamped at
    // the edges, because a block's register tiles may run past C's last row or column (their
    // values there are computed but never stored).
    p.A_tile(x, y) = p.A(x, clamp(y, 0, p.A.height() - 1));
    p.B_tile(x, y) = p.B(clamp(x, 0, p.B.width() - 1), y);
    p.acc(x, y) = 0.0f;
    p.acc(x, y) = fma(p.A_tile(p.k, y), p.B_tile(x, p.k), p.acc(x, y));
    p.C(x, y) = p.acc(x, y);
    return p;
}

void schedule_sgemm_for_gpu(SgemmPipeline& p) {
    constexpr int kBlockTile = 64, kThreadTile = 4, kStep = 16;
    constexpr int kThreads = kBlockTile / kThreadTile;
    const Var x = p.x, y = p.y;
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), xt("xt"), yt("yt"), xr("xr"), yr("yr"), s("s");
    RVar ko("ko"), ki("ki");
    // A block per 64 x 64 tile of C, 16 x 16 threads, each a 4 x 4 tile of C.
    p.C.tile(x, y, xo, yo, xi, yi, kBlockTile, kBlockTile, TailStrategy::GuardWithIf)
        .tile(xi, yi, xt, yt, xr, yr, kThreadTile, kThreadTile)
        .gpu_blocks(xo, yo)
        .gpu_threads(xt, yt)
        .unroll(xr)
        .unroll(yr);
    // Each thread keeps its 4 x 4 sums in registers (rows of 4, vectors) while it walks k in
    // steps of 16...
    p.acc.compute_at(p.C, xt)
        .bound_extent(x, kThreadTile)
        .bound_extent(y, kThreadTile)
        .vectorize(x)
        .unroll(y);
    p.acc.update()
        .split(p.k, ko, ki, kStep, TailStrategy::GuardWithIf)
        .reorder(x, y, ki, ko)
        .vectorize(x)
        .unroll(y);
    // ...and per step, the block's threads together copy the 16 x 64 values of A and the 64 x 16
    // of B that its tile reads into shared memory, four values each, consecutive threads reading
    // consecutive addresses; each thread then reads, per value of k, 4 values of A and a vector of
    // 4 of B (one 16-byte load) for its 16 multiply-adds.
    p.A_tile.compute_at(p.acc, ko)
        .split(y, yt, s, kBlockTile / kThreads)
        .reorder(s, x, yt)
        .gpu_threads(x, yt);
    p.B_tile.compute_at(p.acc, ko).split(x, s, xt, kThreads).reorder(s, xt, y).gpu_threads(xt, y);
}

RowSumPipeline row_sum_pipeline() {
    RowSumPipeline p;
    p.r = RDom(0, p.input.width(), "r");
    p.sum(p.y) = 0.0f;
    p.sum(p.y) += p.input(p.r, p.y);
    return p;
}

void schedule_row_sum_for_gpu(RowSumPipeline& p) {
    constexpr int kSlices = 256;
    Var u("u"), yo("yo"), yi("yi");
    RVar ro("ro"), ri("ri");
    // partial(y, u): the sum of row y's elements u, u + 256, u + 512, ...; a block per row, a
    // thread per u, so that the threads of a block read consecutive elements together.
    Func partial = p.sum.update().split(p.r, ro, ri, kSlices, TailStrategy::GuardWithIf).rfactor(ri, u);
    partial.compute_root().reorder(u, p.y).gpu_blocks(p.y).gpu_threads(u);
    partial.update().reorder(u, p.y).gpu_blocks(p.y).gpu_threads(u);
    // Then a thread per row adds its 256 partial sums.
    p.sum.gpu_tile(p.y, yo, yi, 128, TailStrategy::GuardWithIf);
    p.sum.update().gpu_tile(p.y, yo, yi, 128, TailStrategy::GuardWithIf);
}

void schedule_row_sum_for_cpu(RowSumPipeline& p) {
    constexpr int kSlices = 256;
    RVar ro("ro"), ri("ri");
    Var u("u");
    // The same 256 partial sums per row, as vectors of 16 across the slices, rows in parallel.
    Func partial = p.sum.update().split(p.r, ro, ri, kSlices, TailStrategy::GuardWithIf).rfactor(ri, u);
    partial.compute_root().vectorize(u, 16).parallel(p.y);
    partial.update().reorder(u, ro, p.y).vectorize(u, 16).parallel(p.y);
    p.sum.parallel(p.y);
    p.sum.update().parallel(p.y);
}

}  // namespace gpu_apps
