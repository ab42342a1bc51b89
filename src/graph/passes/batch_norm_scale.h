#pragma once
// The per-channel scale and shift a BatchNormalization in inference mode applies, as nodes over
// its constant parameters, for the passes that fold it away.

#include <vector>

#include "tessera/graph.h"

namespace tessera::graph {

struct BatchNormScale {
    int scale;  // value id of s = scale / sqrt(var + epsilon), shape [C]
    int mean;   // the node's mean, shape [C]
    int bias;   // the node's B, shape [C]
};

// Whether node is a BatchNormalization whose parameters are constants and whose extra (training)
// outputs nothing reads.
bool is_foldable_batch_norm(const Graph& g, const Node& node);
// Adds the nodes computing s to new_nodes.
BatchNormScale batch_norm_scale(Graph& g, const Node& bn, std::vector<Node>& new_nodes);
// Adds a Reshape of value (of shape [C]) to [C, 1, ..., 1] with trailing ones.
int per_channel(Graph& g, int value, int64_t channels, int trailing_ones, const std::string& name,
                std::vector<Node>& new_nodes);

}  // namespace tessera::graph
