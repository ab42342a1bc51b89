#pragma once
// What the runtime's own files share; not part of the C interface.

#include <cstdint>
#include <string>

namespace tessera::runtime {

// Number formatting shared by error messages and print(): integers in decimal, floats with six
// decimals as C's "%f" writes them.
void append_int(std::string& out, int64_t x);
void append_uint(std::string& out, uint64_t x);
void append_float(std::string& out, double x);

// The thread count set by tessera_set_num_threads, or 0 for the default.
int requested_num_threads();
// The number of threads a parallel loop should use now, the calling thread included: the count
// set by tessera_set_num_threads, else TESSERA_NUM_THREADS, else the core count; at least 1.
int num_threads_to_use();

}  // namespace tessera::runtime
