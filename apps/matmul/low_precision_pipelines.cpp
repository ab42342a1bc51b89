#include "low_precision_pipelines.h"
#include "row_bands.h"

namespace tessera_apps {

using namespace tessera;

namespace {

LowPrecisionGemm define(Type a_type, Type b_type, int group) {
    ImageParam A(a_type, 2, "A"), B(b_type, 2, "B");
    LowPrecisionGemm p{A,        B,        Func("packed"), Func("C"),
                       Var("x"), Var("y"), Var("q"),       RDom(0, group, 0, A.width() / group, "r"),
                       group};
    p.packed(p.q, p.x, p.y) = B(p.x, group * p.y + p.q);
    return p;
}

}  // namespace

LowPrecisionGemm gemm_u8s8_pipeline() {
    LowPrecisionGemm p = define(UInt(8), Int(8), 4);
    p.C(p.x, p.y) = 0;
    p.C(p.x, p.y) += cast<int32_t>(p.A(4 * p.r.y + p.r.x, p.y)) * cast<int32_t>(p.packed(p.r.x, p.x, p.r.y));
    return p;
}

LowPrecisionGemm gemm_bf16_pipeline() {
    LowPrecisionGemm p = define(UInt(16), UInt(16), 2);
    p.C(p.x, p.y) = 0.0f;
    p.C(p.x, p.y) = p.C(p.x, p.y) + intrinsics::bfloat16_to_float(p.A(2 * p.r.y + 1 - p.r.x, p.y)) *
                                        intrinsics::bfloat16_to_float(p.packed(1 - p.r.x, p.x, p.r.y));
    return p;
}

void schedule_low_precision_gemm(LowPrecisionGemm& p, int row_tasks, RegisterTile tile) {
    Var band("band"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    const TensorIntrinsic kernel = p.group == 4 ? intrinsics::dot_u8s8(tile.columns, tile.rows)
                                                : intrinsics::dot_bf16(tile.columns, tile.rows);
    p.packed.compute_root().parallel(p.y).vectorize(p.x, 8, TailStrategy::GuardWithIf);

    const Expr band_rows = rows_per_band(p.A.height(), tile.rows, row_tasks);
    p.C.vectorize(p.x, 8, TailStrategy::GuardWithIf);
    p.C.update()
        .split(p.y, band, p.y, band_rows, TailStrategy::GuardWithIf)
        .tile(p.x, p.y, xo, yo, xi, yi, tile.columns, tile.rows, TailStrategy::GuardWithIf)
        .reorder(p.r.x, xi, yi, p.r.y, yo, xo, band)
        .unroll(yi)
        .tensorize(p.r.y, kernel);
    if (row_tasks > 1) p.C.update().parallel(band);
    // bf16: the packed columns of one tile, copied before its rows are visited: K / 2 steps of
    // 2 x columns values each, dense. Read in place, a step of ko is 2 N values from the last, a
    // stride of 4 KiB at N = 1024 that maps every step to the same cache sets. On a Sapphire Rapids
    // Xeon the copy made the bf16 product 1.2-1.4x faster on two threads and the u8 x s8 one (four
    // times the arithmetic per byte) 1.3-1.7x slower, so only bf16 has it.
    if (p.group == 2) {
        Func panel = cache_read(p.packed, {p.C});
        panel.compute_at(p.C, xo).vectorize(panel.args()[1], 16, TailStrategy::GuardWithIf);
    }
}

}  // namespace tessera_apps
