// Generators compiled during the build by add_tessera_library() (see CMakeLists.txt) and checked by
// generator_libraries_test.cpp.

#include <tessera/tessera.h>

namespace {

// A box blur of radius `radius` with the edges repeated, scaled by `gain`.
class Blur : public tessera::Generator<Blur> {
public:
    GeneratorParam<int> radius{"radius", 1, 1, 4};
    Input<Buffer<uint16_t>> input{"input", 2};
    Input<float> gain{"gain", 1.0f, 0.0f, 4.0f};
    Output<Buffer<uint16_t>> output{"output", 2};
    Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"};
    Func blur_x{"blur_x"}, blur_y{"blur_y"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        RDom r(-radius, 2 * radius + 1, "r");
        blur_x(x, y) = 0.0f;
        blur_x(x, y) += cast<float>(clamped(x + r, y));
        blur_y(x, y) = 0.0f;
        blur_y(x, y) += blur_x(x, y + r);
        const int taps = (2 * radius + 1) * (2 * radius + 1);
        output(x, y) = cast<uint16_t>(clamp(blur_y(x, y) * gain / taps + 0.5f, 0.0f, 65535.0f));
    }
    void schedule() {
        output.tile(x, y, xi, yi, 32, 8).vectorize(xi, natural_vector_size<float>()).parallel(y);
        blur_y.compute_at(output, x).vectorize(x, natural_vector_size<float>());
        blur_x.compute_at(output, x).vectorize(x, natural_vector_size<float>());
    }
};

// An integer scale, as a Func assigned to the Output, with two Outputs.
class Scale : public tessera::Generator<Scale> {
public:
    GeneratorParam<int> factor{"factor", 2};
    Input<Buffer<int32_t, 1>> input{"input"};
    Input<int32_t> offset{"offset"};
    Output<Buffer<int32_t, 1>> scaled{"scaled"};
    Output<Buffer<int32_t, 1>> negated{"negated"};
    Var x{"x"}, xo{"xo"}, xi{"xi"};

    void generate() {
        Func f("f");
        f(x) = input(x) * factor + offset;
        scaled = f;
        negated(x) = -f(x);
    }
    void schedule() { scaled.compute_root().split(x, xo, xi, 8, TailStrategy::GuardWithIf).vectorize(xi); }
};

}  // namespace

TESSERA_REGISTER_GENERATOR(Blur, blur)
TESSERA_REGISTER_GENERATOR(Scale, scale)
