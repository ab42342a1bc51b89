// An application of the ahead-of-time blur: it links the static library add_tessera_library made
// (the code and the runtime) and nothing of LLVM or of the Tessera compiler.
//   blur_app input.raw output.raw

#include <chrono>
#include <cstdio>
#include <exception>

#include "blur.h"  // generated: int blur(tessera_buffer_t* input, tessera_buffer_t* output)
#include "raw_image.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s input.raw output.raw\n", argv[0]);
        return 2;
    }
    try {
        tessera::Runtime::Buffer<uint16_t> input = raw_image::read<uint16_t>(argv[1]);
        tessera::Runtime::Buffer<uint16_t> output(input.width(), input.height());
        const auto start = std::chrono::steady_clock::now();
        if (blur(input, output) != 0) return 1;  // the message went to the runtime's error handler
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        std::printf("blurred %d x %d in %.2f ms\n", input.width(), input.height(), ms);
        raw_image::write(argv[2], output);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
