#pragma once
// Unsharp masking of an 8-bit color image: each channel moves away from its local mean by
// `amount` times its difference from it, where that difference exceeds `threshold`. The mean is a
// box of (2 radius + 1)^2 pixels; radius is fixed when the code is generated (a GeneratorParam),
// amount and threshold are arguments of the generated function (Inputs), checked against their
// ranges when it is called.

#include <tessera/tessera.h>

class UnsharpGenerator : public tessera::Generator<UnsharpGenerator> {
public:
    GeneratorParam<int> radius{"radius", 2, 1, 8};
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<float> amount{"amount", 1.0f, 0.0f, 8.0f};
    Input<int32_t> threshold{"threshold", 0, 0, 255};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        using tessera::cast;
        Func clamped = tessera::BoundaryConditions::repeat_edge(input);
        // The box's taps are written out: radius is known now, so the sums are plain adds.
        Expr row = 0;
        for (int i = -radius; i <= radius; i++) row = row + cast<int32_t>(clamped(x + i, y, c));
        box_x(x, y, c) = row;
        Expr column = 0;
        for (int i = -radius; i <= radius; i++) column = column + box_x(x, y + i, c);
        const int taps = (2 * radius + 1) * (2 * radius + 1);
        mean(x, y, c) = cast<float>(column) / float(taps);

        Expr original = cast<float>(input(x, y, c));
        Expr difference = original - mean(x, y, c);
        Expr sharpened = tessera::select(tessera::abs(difference) > cast<float>(threshold),
                                         original + amount * difference, original);
        output(x, y, c) = cast<uint8_t>(tessera::clamp(sharpened + 0.5f, 0.0f, 255.0f));
    }

    void schedule() {
        output.reorder(x, y, c).split(y, yo, yi, 16).parallel(yo).vectorize(x, 8);
        box_x.compute_at(output, yo).vectorize(x, 8);
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, yo{"yo"}, yi{"yi"};
    Func box_x{"box_x"}, mean{"mean"};
};
