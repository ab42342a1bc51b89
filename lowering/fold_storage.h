#pragma once
// Storage folding. A Func stored outside a serial loop and computed inside it, whose region along
// one dimension moves forward with the loop over a window of constant size, needs only a window's
// worth of storage in that dimension: its accesses there are taken modulo the next power of two at
// least the window, and its Realize shrinks to that. A line buffer instead of a whole image.
// Parallel and vectorized loops between the storage and the computation prevent folding, since
// their iterations would share the window.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt fold_storage(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
