#include "graph/ops/operator.h"

namespace tessera::graph {

void register_pooling_operators() {}

}  // namespace tessera::graph
