#include "matmul_pipelines.h"
#include "row_bands.h"

namespace tessera_apps {

using namespace tessera;

SgemmPipeline sgemm_pipeline(const ImageParam& A, const ImageParam& B) {
    SgemmPipeline p{A, B, Func("C"), Var("x"), Var("y"), RDom(0, A.width(), "k")};
    p.C(p.x, p.y) = 0.0f;
    p.C(p.x, p.y) = fma(A(p.k, p.y), B(p.x, p.k), p.C(p.x, p.y));
    return p;
}

void schedule_sgemm_tiled(SgemmPipeline& p, int row_tasks, RegisterTile tile) {
    Var band("band"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func C_tile = cache_write(p.C, MemoryType::Register);
    Func B_panel = cache_read(p.B, {C_tile});

    // Bands of whole tiles, as equal as can be; a single band when the rows are fewer than that.
    const Expr rows = p.A.height();
    const Expr band_rows =
        min(rows, (rows + tile.rows * row_tasks - 1) / (tile.rows * row_tasks) * tile.rows);
    p.C.split(p.y, band, p.y, band_rows, TailStrategy::ShiftInwards)
        .tile(p.x, p.y, xo, yo, xi, yi, tile.columns, tile.rows, TailStrategy::ShiftInwards)
        .reorder(xi, yi, yo, xo, band)
        .vectorize(xi)
        .unroll(yi);
    if (row_tasks > 1) p.C.parallel(band);

    // The tile's accumulators: their loops have a constant extent only once bounds are inferred,
    // hence the explicit factors.
    C_tile.compute_at(p.C, yo).vectorize(p.x, tile.columns).unroll(p.y, tile.rows);
    C_tile.update().reorder(p.x, p.y, p.k).vectorize(p.x, tile.columns).unroll(p.y, tile.rows);

    B_panel.compute_at(p.C, xo).vectorize(B_panel.args()[0], tile.columns);
}

void schedule_sgemm_tensorized(SgemmPipeline& p, int row_tasks, RegisterTile tile) {
    Var band("band"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func B_panel = cache_read(p.B, {p.C});

    const Expr band_rows = rows_per_band(p.A.height(), tile.rows, row_tasks);
    p.C.vectorize(p.x, 8, TailStrategy::GuardWithIf);
    p.C.update()
        .split(p.y, band, p.y, band_rows, TailStrategy::GuardWithIf)
        .tile(p.x, p.y, xo, yo, xi, yi, tile.columns, tile.rows, TailStrategy::GuardWithIf)
        .reorder(xi, yi, p.k, yo, xo, band)
        .vectorize(xi)
        .unroll(yi)
        .tensorize(p.k, intrinsics::fma_f32(tile.columns, tile.rows));
    if (row_tasks > 1) p.C.update().parallel(band);
    // The panel is as wide as the tile, or narrower at the last one, whose copy is guarded.
    B_panel.compute_at(p.C, xo).vectorize(B_panel.args()[0], tile.columns, TailStrategy::GuardWithIf);
}

}  // namespace tessera_apps
