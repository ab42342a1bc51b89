#include "graph/ops/operator.h"

namespace tessera::graph {

void register_convolution_operators() {}

}  // namespace tessera::graph
