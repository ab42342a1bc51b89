// Lesson 1: a first Func.
//
// A Func is a function over integer coordinates. Its definition says what value each point has;
// it says nothing about loops or memory. realize() compiles it (once) and computes it over a
// region, returning a Buffer.

#include <tessera/tessera.h>
#include <cstdio>
#include <iostream>

using namespace tessera;

int main() {
    // Vars name the dimensions of a Func's domain.
    Var x("x"), y("y");

    // gradient(x, y) is x + y at every point. The right-hand side is an Expr: a small tree
    // built by the operators, not a number.
    Func gradient("gradient");
    gradient(x, y) = x + y;

    // Compute it over an 8 x 6 region with its corner at (0, 0). The first realize() JIT-compiles
    // the pipeline; the result is a Buffer of the Func's type, here int32.
    Buffer<int> output = gradient.realize({8, 6});

    // Check every value against the definition.
    for (int j = 0; j < output.height(); j++) {
        for (int i = 0; i < output.width(); i++) {
            if (output(i, j) != i + j) {
                std::printf("wrong value at (%d, %d): %d\n", i, j, output(i, j));
                return 1;
            }
        }
    }

    // Exprs print as readable text.
    std::cout << "gradient(x, y) = " << gradient.value() << "\n";
    std::printf("lesson 1: computed %d x %d values of gradient, all correct\n", output.width(),
                output.height());
    return 0;
}
