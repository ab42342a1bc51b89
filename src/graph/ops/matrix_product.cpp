#include "graph/ops/operator.h"

namespace tessera::graph {

void register_matrix_product_operators() {}

}  // namespace tessera::graph
