// The number of threads parallel loops may use: set by the application, else from the
// environment, else the core count. The thread pool reads it at the start of each parallel loop.

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "runtime_internal.h"
#include "tessera/runtime.h"

namespace {

// More threads than this are surely a mistake (a typo in TESSERA_NUM_THREADS), and each costs a
// stack.
constexpr int kMaxThreads = 256;

std::atomic<int> num_threads{0};

int default_num_threads() {
    if (const char* text = std::getenv("TESSERA_NUM_THREADS")) {
        char* end = nullptr;
        long n = std::strtol(text, &end, 10);
        if (end != text && *end == '\0' && n > 0) return int(std::min<long>(n, kMaxThreads));
    }
    // hardware_concurrency() may be 0 when the count is unknown.
    return std::clamp(int(std::thread::hardware_concurrency()), 1, kMaxThreads);
}

}  // namespace

namespace tessera::runtime {

int requested_num_threads() { return num_threads.load(); }

int num_threads_to_use() {
    int n = num_threads.load();
    if (n > 0) return std::min(n, kMaxThreads);
    // The environment is read once: getenv races with setenv in other threads.
    static const int default_count = default_num_threads();
    return default_count;
}

}  // namespace tessera::runtime

extern "C" int tessera_set_num_threads(int n) { return num_threads.exchange(n > 0 ? n : 0); }
