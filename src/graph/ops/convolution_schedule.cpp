// The register-tile schedule that Conv and ConvTranspose share.

#include "graph/ops/convolution_schedule.h"

namespace tessera::graph {

ConvTile conv_tile(const Target& target, int64_t width, int64_t channels, bool depthwise) {
    const int lanes = target.natural_vector_size(Float(32));
    ConvTile tile{2 * lanes, depthwise ? 1 : (lanes >= 16 ? 8 : 6)};
    if (width < tile.columns) tile.columns = width >= lanes ? lanes : int(width);
    if (channels < tile.channels) tile.channels = int(channels);
    return tile;
}

Var tile_conv_output(Func out, int spatial, const ConvTile& tile) {
    std::vector<Var> v = out.args();  // innermost first: spatial (x first), channel, batch
    Var xo("xo"), xi("xi"), co("co"), ci("ci");
    out.split(v[0], xo, xi, tile.columns, TailStrategy::ShiftInwards)
        .split(v[spatial], co, ci, tile.channels, TailStrategy::ShiftInwards);
    std::vector<VarOrRVar> order{xi, ci, xo, co};
    for (int d = 1; d < spatial; d++) order.push_back(v[d]);
    order.push_back(v[spatial + 1]);
    out.reorder(order).vectorize(xi).unroll(ci);
    out.parallel(spatial >= 2 ? v[spatial - 1] : co);
    return xo;
}

void schedule_register_tile(Func f, const std::vector<RVar>& reduction, int spatial, const ConvTile& tile) {
    std::vector<Var> a = f.args();  // innermost first: spatial (x first), channel, ...
    f.vectorize(a[0], tile.columns).unroll(a[spatial], tile.channels);
    std::vector<VarOrRVar> update_order{a[0], a[spatial]};
    update_order.insert(update_order.end(), reduction.begin(), reduction.end());
    f.update().reorder(update_order).vectorize(a[0], tile.columns).unroll(a[spatial], tile.channels);
}

}  // namespace tessera::graph
