#pragma once
// Sliding windows. A Func stored outside a serial loop and computed inside it, whose region along
// one dimension moves forward with the loop, keeps what earlier iterations computed: after the
// first iteration, each iteration computes only the part of the region beyond what the previous
// one reached. Run after bounds inference, whose region of that Func it narrows where the Func is
// produced (and nowhere else), and after storage folding, which it does not disturb.

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

ir::Stmt sliding_window(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
