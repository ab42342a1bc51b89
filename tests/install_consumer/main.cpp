// A program built against the installed package: defines, compiles and runs a small pipeline.

#include <tessera/tessera.h>
#include <cstdio>

using namespace tessera;

int main() {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x * x + y;
    Buffer<int> out = f.realize({7, 5});
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 7; i++)
            if (out(i, j) != i * i + j) {
                std::printf("wrong value at (%d, %d)\n", i, j);
                return 1;
            }
    std::printf("the installed package works\n");
    return 0;
}
