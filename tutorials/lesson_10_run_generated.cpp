// Lesson 10, part 2: the application that calls generated code.
//
// This program links the static library that the build generated from lesson_10_generator.cpp
// (see its comment and tutorials/CMakeLists.txt), and nothing else of Tessera: no LLVM, no
// compiler. The library holds the pipeline's code and the small runtime it needs (its thread pool,
// memory and error reporting). Its header declares one C function per pipeline:
//
//   int lesson_10_brighter(tessera_buffer_t* input, uint8_t offset, tessera_buffer_t* brighter);
//
// Buffers travel as tessera_buffer_t*, the C struct of <tessera/runtime.h>; in C++,
// tessera::Runtime::Buffer owns or wraps memory and converts to one. The function returns 0, or an
// error code after passing a message to the runtime's error handler, which the application may
// replace.

#include <algorithm>
#include <cstdio>
#include <string>

#include <tessera/runtime_buffer.h>
#include "lesson_10_brighter.h"  // generated during the build

namespace {

std::string last_error;
void remember_error(void*, const char* message) { last_error = message; }

}  // namespace

int main() {
    // An input of 1000 x 700 pixels, and an output of the same size.
    tessera::Runtime::Buffer<uint8_t> input(1000, 700), output(1000, 700);
    input.for_each_element([&](int x, int y) { input(x, y) = uint8_t(x ^ (y + 27)); });

    // The call: input, the offset by value, then the output.
    const uint8_t offset = 60;
    if (lesson_10_brighter(input, offset, output) != 0) {
        std::printf("the generated function failed\n");
        return 1;
    }

    // The same computation in plain C++.
    bool ok = true;
    output.for_each_element([&](int x, int y) {
        const int expected = std::min(input(x, y) + offset, 255);
        if (output(x, y) != expected) {
            if (ok) std::printf("output(%d, %d) = %d, expected %d\n", x, y, output(x, y), expected);
            ok = false;
        }
    });

    // A bad call: the generated function checks its arguments before touching memory and says
    // what is wrong through the error handler.
    tessera_set_error_handler(remember_error);
    tessera::Runtime::Buffer<uint8_t> too_small(1000, 600);
    const int code = lesson_10_brighter(too_small, offset, output);
    std::printf("with an input too small: code %d, \"%s\"\n", code, last_error.c_str());
    ok = ok && code == tessera_error_buffer_too_small &&
         last_error.find("Input buffer input") != std::string::npos;

    std::printf(ok ? "Success!\n" : "FAILED\n");
    return ok ? 0 : 1;
}
