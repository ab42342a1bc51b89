#include "graph/ops/broadcast.h"

#include <sstream>

namespace tessera::graph {

std::vector<int64_t> broadcast_shapes(const OpContext& ctx, const std::vector<std::vector<int64_t>>& shapes) {
    size_t rank = 0;
    for (const auto& s : shapes) rank = std::max(rank, s.size());
    std::vector<int64_t> out(rank, 1);
    for (const auto& s : shapes) {
        for (size_t i = 0; i < s.size(); i++) {
            int64_t& o = out[rank - s.size() + i];
            if (s[i] == o || s[i] == 1) continue;
            if (o == 1) {
                o = s[i];
                continue;
            }
            std::ostringstream text;
            for (const auto& t : shapes) {
                text << " " << shape_text(t);
            }
            TESSERA_GRAPH_ERROR(ctx) << "the input shapes" << text.str()
                                     << " do not broadcast together (a dimension of " << o << " against "
                                     << s[i] << ").";
        }
    }
    return out;
}

Expr broadcast_read(const TensorFunc& t, const std::vector<Expr>& out_index,
                    const std::vector<int64_t>& out_shape) {
    const size_t offset = out_shape.size() - t.shape.size();
    std::vector<Expr> index;
    for (size_t i = 0; i < t.shape.size(); i++)
        index.push_back(t.shape[i] == 1 && out_shape[offset + i] != 1 ? Expr(0) : out_index[offset + i]);
    return t(index);
}

}  // namespace tessera::graph
