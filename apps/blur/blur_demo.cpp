// The demo: a 3x3 box blur of a 16-bit photograph, JIT-compiled and checked against plain C++.
//   blur_demo input.png output.png

#include <tessera/tessera.h>
#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace tessera;

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The same blur as plain C++ loops, to check every pixel.
Buffer<uint16_t> reference_blur(const Buffer<uint16_t>& in) {
    const int w = in.width(), h = in.height();
    auto at = [&](int x, int y) { return int(in(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1))); };
    auto blur_x = [&](int x, int y) { return (at(x - 1, y) + at(x, y) + at(x + 1, y)) / 3; };
    Buffer<uint16_t> out(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            out(x, y) = uint16_t((blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s input.png output.png\n", argv[0]);
        return 2;
    }
    try {
        Buffer<uint16_t> input = load_image<uint16_t>(argv[1]);
        std::printf("loaded %s: %d x %d, 16-bit gray\n", argv[1], input.width(), input.height());

        // The algorithm.
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func blur_x("blur_x"), blur_y("blur_y");
        Var x("x"), y("y"), xi("xi"), yi("yi");
        blur_x(x, y) = cast<uint16_t>((cast<int>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
        blur_y(x, y) = cast<uint16_t>((cast<int>(blur_x(x, y - 1)) + blur_x(x, y) + blur_x(x, y + 1)) / 3);

        // The schedule: blur_y in tiles of 256 x 32, rows of tiles in parallel and 16 pixels at a
        // time; blur_x computed per tile, as the tile needs it, also 16 pixels at a time.
        blur_y.tile(x, y, xi, yi, 256, 32).vectorize(xi, 16).parallel(y);
        blur_x.compute_at(blur_y, x).vectorize(x, 16);

        Pipeline pipeline(blur_y);
        pipeline.compile_jit();
        std::printf("compiled the pipeline in %.1f ms; its loop nest:\n%s", pipeline.last_compile_time_ms(),
                    pipeline.loop_nest().c_str());

        Buffer<uint16_t> output(input.width(), input.height());
        auto start = std::chrono::steady_clock::now();
        pipeline.realize(output);
        std::printf("blurred in %.2f ms\n", milliseconds_since(start));

        Buffer<uint16_t> expected = reference_blur(input);
        int mismatches = 0;
        for (int j = 0; j < output.height(); j++)
            for (int i = 0; i < output.width(); i++) mismatches += output(i, j) != expected(i, j);
        std::printf("checked against plain C++: %d of %d pixels differ\n", mismatches,
                    output.width() * output.height());

        save_image(output, argv[2]);
        std::printf("wrote %s\n", argv[2]);
        return mismatches == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
