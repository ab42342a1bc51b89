#pragma once
// Funcs that the threads of a GPU block compute together from inside each thread's code, as TVM's
// cooperative fetching: a Func computed at a loop inside another stage's gpu_threads loops, with
// gpu_threads loops of its own. Each thread runs the code around it for itself (a register tile's
// loop over k, say); at the Func, every thread of the block takes its part of one shared tile.

#include <set>
#include <string>

#include "ir/stmt.h"
#include "lowering/environment.h"

namespace tessera::lowering {

// The cooperative Funcs of s: those produced inside a GPU thread loop by loops that include
// thread loops of their own.
std::set<std::string> cooperative_funcs(const ir::Stmt& s);

// Bounds inference first gives a cooperative Func's loops and storage in terms of the thread that
// computes it: what that thread's code reads. This widens them to what all the block's threads
// read, the same in every thread, for each thread region (the outermost thread loops and what
// they hold) directly in s, whose lets are by then all defined. A cooperative Func that reads a
// Func each thread computes for itself is a CompileError: its threads would read each other's.
ir::Stmt widen_cooperative_regions(const ir::Stmt& s, const Environment& env);

}  // namespace tessera::lowering
