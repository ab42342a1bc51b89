// A program that calls the library its generator wrote, with only <tessera/runtime.h>.

#include <cstdio>
#include <vector>

#include "brighten.h"

int main() {
    const int width = 37, height = 5;
    std::vector<uint8_t> in(width * height), out(width * height);
    for (int i = 0; i < width * height; i++) in[i] = uint8_t(i * 13);
    tessera_dimension_t dims[2] = {{0, width, 1, 0}, {0, height, width, 0}};
    tessera_buffer_t input{}, output{};
    input.host = in.data();
    output.host = out.data();
    input.type = output.type = {tessera_type_uint, 8, 1};
    input.dimensions = output.dimensions = 2;
    input.dim = output.dim = dims;
    if (brighten(&input, 2.0f, &output) != 0) return 1;
    for (int i = 0; i < width * height; i++) {
        int expected = in[i] * 2 + 3;
        expected = expected > 255 ? 255 : expected;
        if (out[i] != expected) {
            std::printf("wrong value at %d: %d, expected %d\n", i, out[i], expected);
            return 1;
        }
    }
    std::printf("the generated library works\n");
    return 0;
}
