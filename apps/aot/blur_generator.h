#pragma once
// The blur of the demo (apps/blur) as a generator: a 3x3 box blur of a 16-bit image with its edges
// repeated, under the demo's tiled, vectorized, parallel schedule. blur_generator.cpp registers it
// as "blur"; programs that run it through the JIT include this header.

#include <tessera/tessera.h>

class BlurGenerator : public tessera::Generator<BlurGenerator> {
public:
    Input<Buffer<uint16_t>> input{"input", 2};
    Output<Buffer<uint16_t>> output{"output", 2};

    void generate() {
        Func clamped = tessera::BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = tessera::cast<uint16_t>(
            (tessera::cast<int>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
        output(x, y) = tessera::cast<uint16_t>(
            (tessera::cast<int>(blur_x(x, y - 1)) + blur_x(x, y) + blur_x(x, y + 1)) / 3);
    }

    void schedule() {
        output.tile(x, y, xi, yi, 256, 32).vectorize(xi, 16).parallel(y);
        blur_x.compute_at(output, x).vectorize(x, 16);
    }

private:
    Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"};
    Func blur_x{"blur_x"};
};
