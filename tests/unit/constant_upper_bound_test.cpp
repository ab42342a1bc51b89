// constant_upper_bound: the fixed sizes of GPU blocks and shared memory, found for regions that a
// tile clamps at the edges of an image, where the terms that vary cancel.

#include <doctest/doctest.h>

#include "ir/constant_upper_bound.h"
#include "ir/ir_util.h"
#include "tessera/operators.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int v) { return ir::make_const(Int(32), int64_t(v)); }

}  // namespace

TEST_CASE("a tile clamped at the image's end is no longer than the tile") {
    const Expr tile_min = int_var("x.min") + int_var("xo") * 16, image_max = int_var("width") - 1;
    const Expr tile_max = min(tile_min + 15, image_max);
    CHECK(constant_upper_bound(tile_max - tile_min + 1) == 16);
    CHECK(constant_upper_bound(tile_max - tile_min + max(int_var("n"), 2)) == std::nullopt);
}

TEST_CASE("a tile shifted inwards at its end, under a clamped tile, keeps the sum of their sizes") {
    // A producer's region when its consumer's 16-wide tile, clamped at the image's end, reads
    // 100 further, and the producer's own loop is split by 16 and shifted inwards: its storage
    // starts at min(tile min, max - 15).
    const Expr tile_min = int_var("x.min") + int_var("xo") * 16;
    const Expr tile_max = min(tile_min + 15, int_var("width") - 1);
    const Expr producer_max = tile_max + 100;
    const Expr realized_min = min(tile_min, producer_max - 15);
    CHECK(constant_upper_bound(producer_max - realized_min + 1) == 116);
}

TEST_CASE("a constant, and what has no constant bound") {
    CHECK(constant_upper_bound(i32(7)) == 7);
    CHECK(constant_upper_bound(int_var("n")) == std::nullopt);
    CHECK(constant_upper_bound(max(int_var("n"), 3)) == std::nullopt);
    CHECK(constant_upper_bound(min(int_var("n"), 3)) == 3);
}

TEST_CASE("the terms that a let names cancel with the rest") {
    const Expr tile_min = int_var("x.min") + int_var("xo") * 6;
    const Expr end = min(tile_min + 5, int_var("width") - 1) + 3;
    const Expr extent = Let::make("end", end, int_var("end") - 1) - (tile_min - 2) + 1;
    CHECK(constant_upper_bound(extent) == 10);
}
