#include "graph/ops/operator.h"

namespace tessera::graph {

void register_data_movement_operators() {}

}  // namespace tessera::graph
