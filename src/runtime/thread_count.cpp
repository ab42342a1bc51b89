// The number of threads parallel loops may use. Stored here; the thread pool reads it.

#include <atomic>

#include "runtime_internal.h"
#include "tessera/runtime.h"

namespace {

std::atomic<int> num_threads{0};

}  // namespace

namespace tessera::runtime {

int requested_num_threads() { return num_threads.load(); }

}  // namespace tessera::runtime

extern "C" int tessera_set_num_threads(int n) { return num_threads.exchange(n > 0 ? n : 0); }
