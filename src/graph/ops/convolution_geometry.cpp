#include "graph/ops/convolution_geometry.h"

namespace tessera::graph {
namespace {

std::vector<int64_t> per_dimension(const OpContext& ctx, const char* name, int rank, int64_t fallback) {
    std::vector<int64_t> v = ctx.attributes().get_ints(name, std::vector<int64_t>(rank, fallback));
    if (int(v.size()) != rank)
        TESSERA_GRAPH_ERROR(ctx) << "the attribute " << name << " has " << v.size() << " values for " << rank
                                 << " spatial dimensions.";
    for (int64_t x : v)
        if (x < 1)
            TESSERA_GRAPH_ERROR(ctx) << "the attribute " << name << " holds " << x
                                     << "; its values must be 1 or more.";
    return v;
}

// Pads that auto_pad SAME_UPPER or SAME_LOWER asks for: the total needed, split.
void split_total_padding(int64_t total, bool upper, int64_t& begin, int64_t& end) {
    total = std::max<int64_t>(total, 0);
    begin = upper ? total / 2 : total - total / 2;
    end = total - begin;
}

void resolve_pads(const OpContext& ctx, ConvGeometry& g, const std::vector<int64_t>& x_shape,
                  bool transposed) {
    const int rank = g.spatial_rank();
    const std::string auto_pad = ctx.attributes().get_string("auto_pad", "NOTSET");
    std::vector<int64_t> pads = ctx.attributes().get_ints("pads", std::vector<int64_t>(2 * rank, 0));
    if (int(pads.size()) != 2 * rank)
        TESSERA_GRAPH_ERROR(ctx) << "the attribute pads has " << pads.size() << " values for " << rank
                                 << " spatial dimensions.";
    for (int64_t p : pads)
        if (p < 0) TESSERA_GRAPH_UNSUPPORTED(ctx) << "negative pads are not supported.";
    g.pads_begin.assign(pads.begin(), pads.begin() + rank);
    g.pads_end.assign(pads.begin() + rank, pads.end());
    if (auto_pad == "NOTSET" || auto_pad == "VALID") {
        if (auto_pad == "VALID") g.pads_begin = g.pads_end = std::vector<int64_t>(rank, 0);
        return;
    }
    if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
        TESSERA_GRAPH_ERROR(ctx) << "auto_pad is " << auto_pad
                                 << "; it must be NOTSET, VALID, SAME_UPPER or SAME_LOWER.";
    for (int d = 0; d < rank; d++) {
        const int64_t in = x_shape[2 + d], span = (g.kernel[d] - 1) * g.dilations[d] + 1;
        const int64_t total = transposed
                                  ? span - g.strides[d]
                                  : ((in + g.strides[d] - 1) / g.strides[d] - 1) * g.strides[d] + span - in;
        split_total_padding(total, auto_pad == "SAME_UPPER", g.pads_begin[d], g.pads_end[d]);
    }
}

}  // namespace

bool ConvGeometry::has_padding() const {
    for (size_t d = 0; d < pads_begin.size(); d++)
        if (pads_begin[d] || pads_end[d]) return true;
    return false;
}

ConvGeometry conv_geometry(const OpContext& ctx, const std::vector<int64_t>& x_shape,
                           const std::vector<int64_t>& w_shape, bool transposed) {
    ConvGeometry g;
    const int rank = int(x_shape.size()) - 2;
    g.kernel.assign(w_shape.begin() + 2, w_shape.end());
    if (ctx.attributes().has("kernel_shape") && ctx.attributes().get_ints("kernel_shape") != g.kernel)
        TESSERA_GRAPH_ERROR(ctx) << "kernel_shape differs from the weights' shape.";
    g.strides = per_dimension(ctx, "strides", rank, 1);
    g.dilations = per_dimension(ctx, "dilations", rank, 1);
    g.groups = ctx.attributes().get_int("group", 1);
    if (g.groups < 1 || x_shape[1] % g.groups != 0 || (!transposed && w_shape[0] % g.groups != 0))
        TESSERA_GRAPH_ERROR(ctx) << "group " << g.groups << " does not divide the channels.";
    resolve_pads(ctx, g, x_shape, transposed);
    const int64_t out_channels = transposed ? w_shape[1] * g.groups : w_shape[0];
    g.output_shape = {x_shape[0], out_channels};
    const std::vector<int64_t> output_padding =
        ctx.attributes().get_ints("output_padding", std::vector<int64_t>(rank, 0));
    const std::vector<int64_t> requested = ctx.attributes().get_ints("output_shape");
    for (int d = 0; d < rank; d++) {
        const int64_t in = x_shape[2 + d], span = (g.kernel[d] - 1) * g.dilations[d] + 1;
        int64_t out;
        if (!transposed) {
            out = (in + g.pads_begin[d] + g.pads_end[d] - span) / g.strides[d] + 1;
        } else if (!requested.empty()) {
            const int64_t wanted = requested[requested.size() - rank + d];
            const int64_t total = g.strides[d] * (in - 1) + output_padding[d] + span - wanted;
            split_total_padding(total, ctx.attributes().get_string("auto_pad", "NOTSET") == "SAME_UPPER",
                                g.pads_begin[d], g.pads_end[d]);
            out = wanted;
        } else {
            out = g.strides[d] * (in - 1) + output_padding[d] + span - g.pads_begin[d] - g.pads_end[d];
        }
        if (out < 1)
            TESSERA_GRAPH_ERROR(ctx) << "spatial dimension " << d << " of the output would be " << out
                                     << "; the kernel does not fit the padded input.";
        g.output_shape.push_back(out);
    }
    Region region;
    for (int d = rank - 1; d >= 0; d--) region.emplace_back(0, int(g.kernel[d]));
    region.emplace_back(0, int(transposed ? x_shape[1] / g.groups : w_shape[1]));
    g.reduction = RDom(region, ctx.func_name("r"));
    return g;
}

}  // namespace tessera::graph
