// Error reporting for compiled pipelines: a message is assembled piece by piece in a per-thread
// buffer (tessera_error_begin, tessera_error_append_*) and handed whole to the error handler
// (tessera_error_end).

#include <atomic>
#include <cstdio>
#include <string>

#include "runtime_internal.h"
#include "tessera/runtime.h"

namespace {

void print_error_to_stderr(void* /*user_context*/, const char* message) {
    std::string line = "Error: ";
    line += message;
    line += '\n';
    // One write, so that errors from several threads do not interleave within a line.
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

std::atomic<tessera_error_handler_t> error_handler{print_error_to_stderr};

std::string& message_buffer() {
    thread_local std::string buffer;
    return buffer;
}

std::string& last_message() {
    thread_local std::string message;
    return message;
}

}  // namespace

extern "C" {

tessera_error_handler_t tessera_set_error_handler(tessera_error_handler_t handler) {
    return error_handler.exchange(handler ? handler : print_error_to_stderr);
}

void tessera_error_begin(void* /*user_context*/) { message_buffer().clear(); }

void tessera_error_append_string(void* /*user_context*/, const char* s) {
    message_buffer() += s ? s : "(null)";
}

void tessera_error_append_int(void* /*user_context*/, int64_t x) {
    tessera::runtime::append_int(message_buffer(), x);
}

void tessera_error_append_uint(void* /*user_context*/, uint64_t x) {
    tessera::runtime::append_uint(message_buffer(), x);
}

void tessera_error_append_float(void* /*user_context*/, double x) {
    tessera::runtime::append_float(message_buffer(), x);
}

int32_t tessera_error_end(void* user_context, int32_t code) {
    // Copy first: the handler may itself run a pipeline that reports an error on this thread.
    std::string message = std::move(message_buffer());
    message_buffer().clear();
    last_message() = message;
    error_handler.load()(user_context, message.c_str());
    return code;
}

const char* tessera_error_last_message(void) { return last_message().c_str(); }

}  // extern "C"
