#pragma once
// The loop nest of a scheduled pipeline as short, readable text: what print_loop_nest() shows.

#include <string>

#include "ir/stmt.h"

namespace tessera::lowering {

std::string loop_nest_text(const ir::Stmt& scheduled);

}  // namespace tessera::lowering
