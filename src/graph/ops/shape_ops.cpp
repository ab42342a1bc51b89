#include "graph/ops/operator.h"

namespace tessera::graph {

void register_shape_operators() {}

}  // namespace tessera::graph
