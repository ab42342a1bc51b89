// print() and print_when() in compiled pipelines: a line is assembled in a per-thread buffer and
// written to stderr at once, so that lines printed by several threads never interleave.

#include <cstdio>
#include <string>

#include "runtime_internal.h"
#include "tessera/runtime.h"

namespace {

std::string& line_buffer() {
    thread_local std::string buffer;
    return buffer;
}

}  // namespace

extern "C" {

void tessera_print_begin(void* /*user_context*/) { line_buffer().clear(); }

void tessera_print_append_string(void* /*user_context*/, const char* s) { line_buffer() += s ? s : "(null)"; }

void tessera_print_append_int(void* /*user_context*/, int64_t x) {
    tessera::runtime::append_int(line_buffer(), x);
}

void tessera_print_append_uint(void* /*user_context*/, uint64_t x) {
    tessera::runtime::append_uint(line_buffer(), x);
}

void tessera_print_append_float(void* /*user_context*/, double x) {
    tessera::runtime::append_float(line_buffer(), x);
}

void tessera_print_end(void* /*user_context*/) {
    std::string& line = line_buffer();
    line += '\n';
    // stdio locks the stream for the duration of one fwrite.
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
    line.clear();
}

}  // extern "C"
