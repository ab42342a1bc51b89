#pragma once
// Keeps the host's and the device's memory of every buffer that GPU kernels use up to date where
// each side uses it, through the buffers' dirty flags: before a kernel, copy_to_device of each
// buffer it uses (which copies only where the host's memory is newer, or, for a buffer the kernel
// reads, where the device memory is new); after it, set_device_dirty
// of each it writes; around host code that uses such a buffer, copy_to_host before and
// set_host_dirty after, if it writes. Host code is taken in the largest statements that contain
// no kernel. Fills device_allocations with the allocations that kernels use, each with whether
// host code uses it too (see LoweredFunction). Run on code whose kernels are not emulated.

#include <map>
#include <string>

#include "ir/stmt.h"

namespace tessera::lowering {

ir::Stmt inject_device_copies(const ir::Stmt& s, std::map<std::string, bool>& device_allocations);

}  // namespace tessera::lowering
