// Lesson 2: an image in and out.
//
// Load a photograph, brighten it with arithmetic on wider types, and save the result.

#include <tessera/tessera.h>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tessera;

int main() {
    // An 8-bit RGB image: a Buffer with dimensions x, y and c (the channel).
    Buffer<uint8_t> input = load_image<uint8_t>("apps/images/rgb8.png");
    Var x("x"), y("y"), c("c");

    // Work in float to avoid overflow, clamp, and cast back to 8 bits. Mixing a uint8 value with a
    // float constant converts the value to float, as in Halide.
    Func brighter("brighter");
    Expr value = cast<float>(input(x, y, c)) * 1.5f;
    brighter(x, y, c) = cast<uint8_t>(min(value, 255.0f));

    // realize() over the same region as the input.
    Buffer<uint8_t> output = brighter.realize({input.width(), input.height(), input.channels()});

    for (int k = 0; k < input.channels(); k++)
        for (int j = 0; j < input.height(); j++)
            for (int i = 0; i < input.width(); i++) {
                float expected = std::min(input(i, j, k) * 1.5f, 255.0f);
                if (output(i, j, k) != uint8_t(expected)) {
                    std::printf("wrong value at (%d, %d, %d)\n", i, j, k);
                    return 1;
                }
            }

    const char* dir = std::getenv("TESSERA_OUTPUT_DIR");
    std::string path = std::string(dir ? dir : ".") + "/brighter.png";
    save_image(output, path);
    std::printf("lesson 2: brightened a %d x %d x %d image into %s\n", input.width(), input.height(),
                input.channels(), path.c_str());
    return 0;
}
