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

SgemmPipeline sgemm_pipeline() {
    SgemmPipeline p;
    const Var x = p.x, y = p.y;
    p.k = RDom(0, p.A.width(), "k");
    // The tiles are copies of the inputs, which the schedule stages in shared memory.
    p.A_tile(x, y) = p.A(x, y);
    p.B_tile(x, y) = p.B(x, y);
    p.C(x, y) = 0.0f;
    p.C(x, y) = fma(p.A_tile(p.k, y), p.B_tile(x, p.k), p.C(x, y));
    return p;
}

void schedule_sgemm_for_gpu(SgemmPipeline& p) {
    constexpr int kTile = 16;
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    RVar ko("ko"), ki("ki");
    p.C.gpu_tile(p.x, p.y, xo, yo, xi, yi, kTile, kTile, TailStrategy::GuardWithIf);
    // Blocks of 16 x 16 threads walk k in steps of 16: per step, the block's threads copy a tile
    // of A and one of B into shared memory, then each adds its 16 products from there.
    p.C.update()
        .split(p.k, ko, ki, kTile, TailStrategy::GuardWithIf)
        .split(p.x, xo, xi, kTile, TailStrategy::GuardWithIf)
        .split(p.y, yo, yi, kTile, TailStrategy::GuardWithIf)
        .reorder(ki, xi, yi, ko, xo, yo)
        .gpu_blocks(xo, yo)
        .gpu_threads(xi, yi);
    p.A_tile.compute_at(p.C, ko).gpu_threads(p.x, p.y);
    p.B_tile.compute_at(p.C, ko).gpu_threads(p.x, p.y);
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

}  // namespace gpu_apps
