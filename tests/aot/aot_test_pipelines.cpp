// Writes the static libraries the ahead-of-time tests link: each pipeline here is compiled with
// compile_to_static_library into the directory given as the only argument.

#include <cstdio>
#include <string>

#include "tessera/tessera.h"

using namespace tessera;

namespace {

// Scalars of several types, and a tiled, vectorized, parallel schedule.
void brighten(const std::string& dir) {
    ImageParam input(UInt(16), 2, "input");
    Param<float> gain("gain", 1.0f, 0.0f, 4.0f);
    Param<int16_t> offset("offset");
    Param<bool> invert("invert");
    Func f("brighten");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Expr v = cast<float>(input(x, y)) * gain + cast<float>(offset);
    v = select(invert, 65535.0f - v, v);
    f(x, y) = cast<uint16_t>(clamp(v, 0.0f, 65535.0f));
    f.tile(x, y, xi, yi, 32, 8).vectorize(xi, 8).parallel(y);
    f.compile_to_static_library(dir + "/brighten", {input, gain, offset, invert}, "brighten");
}

// An input Buffer compiled into the code.
void apply_lut(const std::string& dir) {
    Buffer<uint8_t> lut(256, "lut");
    for (int i = 0; i < 256; i++) lut(i) = uint8_t((i * i) / 255);
    ImageParam input(UInt(8), 2, "input");
    Func f("apply_lut");
    Var x("x"), y("y");
    f(x, y) = lut(cast<int32_t>(input(x, y)));
    f.vectorize(x, 16, TailStrategy::GuardWithIf);
    f.compile_to_static_library(dir + "/apply_lut", {input}, "apply_lut");
}

// A reduction over the input's extent, with two outputs of different types.
void row_stats(const std::string& dir) {
    ImageParam input(Float(32), 2, "input");
    Param<double> scale("scale");
    Func stats("row_stats");
    Var y("y");
    RDom r(input.dim(0).min(), input.dim(0).extent());
    stats(y) = Tuple(0.0f, -1e30f);
    stats(y) = Tuple(stats(y)[0] + input(r, y) * cast<float>(scale), max(stats(y)[1], input(r, y)));
    stats.update().parallel(y);
    stats.compile_to_static_library(dir + "/row_stats", {input, scale}, "row_stats");
}

// Splits with RoundUp write whole vectors, so the output's width must be a multiple of 8.
void copy_rounded_up(const std::string& dir) {
    ImageParam input(UInt(8), 1, "input");
    Func f("copy_rounded_up");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = input(x);
    f.split(x, xo, xi, 8, TailStrategy::RoundUp).vectorize(xi);
    f.compile_to_static_library(dir + "/copy_rounded_up", {input}, "copy_rounded_up");
}

// One library with code for three x86-64 machines, most capable first; it runs on any of them.
void saxpy_multitarget(const std::string& dir) {
    ImageParam x_in(Float(32), 1, "x_in"), y_in(Float(32), 1, "y_in");
    Param<float> a("a");
    Func f("saxpy");
    Var i("i");
    f(i) = a * x_in(i) + y_in(i);
    f.vectorize(i, 16, TailStrategy::GuardWithIf);
    Pipeline(f).compile_to_multitarget_static_library(
        dir + "/saxpy", {a, x_in, y_in},
        {Target("x86-64-linux-sse41-avx-avx2-fma-avx512-avx512_skylake"),
         Target("x86-64-linux-sse41-avx-avx2-fma"), Target("x86-64-linux")});
}

// Kernels for a GPU: linking the library needs nothing of CUDA, running it needs the driver.
void gpu_scale(const std::string& dir) {
    ImageParam input(Float(32), 1, "input");
    Func f("gpu_scale");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = input(x) * 2.0f + 1.0f;
    f.gpu_tile(x, xo, xi, 64, TailStrategy::GuardWithIf);
    f.compile_to_static_library(dir + "/gpu_scale", {input}, "gpu_scale",
                                Target("x86-64-linux-cuda-cuda_capability_80"));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
        return 1;
    }
    const std::string dir = argv[1];
    brighten(dir);
    apply_lut(dir);
    row_stats(dir);
    copy_rounded_up(dir);
    saxpy_multitarget(dir);
    gpu_scale(dir);
    return 0;
}
