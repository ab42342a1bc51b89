// An application of the ahead-of-time unsharp mask, a pipeline with scalar arguments: the amount
// and the threshold are passed to the generated function by value; the radius was fixed when the
// library was generated.
//   unsharp_app input.raw amount threshold output.raw

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "raw_image.h"
#include "unsharp.h"  // generated: int unsharp(tessera_buffer_t* input, float amount, int32_t threshold,
                      //                        tessera_buffer_t* output)

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s input.raw amount threshold output.raw\n", argv[0]);
        return 2;
    }
    try {
        tessera::Runtime::Buffer<uint8_t> input = raw_image::read<uint8_t>(argv[1]);
        tessera::Runtime::Buffer<uint8_t> output(input.width(), input.height(), input.channels());
        const float amount = std::strtof(argv[2], nullptr);
        const int32_t threshold = std::atoi(argv[3]);
        // A nonzero result means the runtime's error handler has printed why (an amount outside
        // [0, 8], for one).
        if (unsharp(input, amount, threshold, output) != 0) return 1;
        raw_image::write(argv[4], output);
        std::printf("sharpened %d x %d x %d by %g above %d\n", input.width(), input.height(),
                    input.channels(), amount, threshold);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
