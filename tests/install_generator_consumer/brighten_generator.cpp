// The generator of the consumer project: out = in * gain + offset, saturated to uint8.

#include <tessera/tessera.h>

namespace {

class Brighten : public tessera::Generator<Brighten> {
public:
    GeneratorParam<int> offset{"offset", 0, -255, 255};
    Input<Buffer<uint8_t, 2>> input{"input"};
    Input<float> gain{"gain", 1.0f};
    Output<Buffer<uint8_t, 2>> output{"output"};
    Var x{"x"}, y{"y"};

    void generate() {
        output(x, y) = cast<uint8_t>(clamp(cast<float>(input(x, y)) * gain + offset, 0.0f, 255.0f));
    }
    void schedule() { output.vectorize(x, natural_vector_size<float>()).parallel(y); }
};

}  // namespace

TESSERA_REGISTER_GENERATOR(Brighten, brighten)
