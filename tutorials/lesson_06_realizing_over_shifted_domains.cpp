// Lesson 6: realizing a Func over a domain that does not start at zero.
//
// f.realize({w, h}) computes f over [0, w) x [0, h). But a Func is defined over all integers, and
// the region computed is whatever the output buffer covers: give the buffer another origin with
// set_min(), or hand realize() a cropped view of a larger buffer, and the loops run over exactly
// those coordinates. This is how a large image is computed piece by piece, each piece by a call
// that writes into its own window of the result.

#include <tessera/tessera.h>
#include <cstdio>

using namespace tessera;

namespace {

// The value f must have at (x, y), in plain C++. Integer division in Tessera rounds toward
// negative infinity (as in Halide), unlike C++'s '/', which matters at negative coordinates.
int floor_div(int a, int b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int expected_value(int x, int y) { return 100 * y + x + floor_div(x, 2); }

// Prints the buffer as a table with its coordinates, and checks every element.
bool print_and_check(const Buffer<int>& b, const char* what) {
    std::printf("%s: x from %d to %d, y from %d to %d\n      ", what, b.dim(0).min(), b.dim(0).max(),
                b.dim(1).min(), b.dim(1).max());
    for (int x : b.dim(0)) std::printf("%7d", x);
    std::printf("\n");
    bool ok = true;
    for (int y : b.dim(1)) {
        std::printf("%6d", y);
        for (int x : b.dim(0)) {
            std::printf("%7d", b(x, y));
            ok &= b(x, y) == expected_value(x, y);
        }
        std::printf("\n");
    }
    if (!ok) std::printf("MISMATCH: %s differs from plain C++\n", what);
    std::printf("\n");
    return ok;
}

}  // namespace

int main() {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = 100 * y + x + x / 2;
    bool ok = true;

    // 1. The usual way: the domain starts at the origin.
    Buffer<int> at_origin = f.realize({5, 3});
    ok &= print_and_check(at_origin, "realize({5, 3})");

    // 2. A buffer whose first element is (100, 50): set_min() moves its origin, and realize()
    // computes f at x = 100..104, y = 50..52. The loop nest is the same; its bounds come from the
    // buffer at run time.
    Buffer<int> shifted(5, 3);
    shifted.set_min(100, 50);
    f.realize(shifted);
    ok &= print_and_check(shifted, "a 5 x 3 buffer with set_min(100, 50)");

    // 3. Negative coordinates are as good as any: here the window straddles the origin. x / 2
    // rounds down, so -3 / 2 is -2, not C++'s -1.
    Buffer<int> around_origin(6, 3);
    around_origin.set_min(-3, -1);
    f.realize(around_origin);
    ok &= print_and_check(around_origin, "a 6 x 3 buffer with set_min(-3, -1)");

    // 4. Computing a large result in pieces. cropped() gives a view of a window of the big buffer,
    // sharing its memory and keeping its coordinates; each realize() fills one window. Here a
    // 12 x 6 result is computed as four 6 x 3 quadrants, and the whole is then checked.
    Buffer<int> whole(12, 6);
    whole.fill(-1);  // so that a point no piece wrote would show
    for (int y0 = 0; y0 < 6; y0 += 3)
        for (int x0 = 0; x0 < 12; x0 += 6) {
            Buffer<int> piece = whole.cropped({{x0, 6}, {y0, 3}});
            f.realize(piece);
        }
    ok &= print_and_check(whole, "a 12 x 6 buffer realized as four cropped 6 x 3 pieces");

    // 5. A window that leaves the rest of the buffer alone: only the points of the crop change.
    Buffer<int> canvas(8, 4);
    canvas.fill(0);
    f.realize(canvas.cropped({{2, 3}, {1, 2}}));
    int touched = 0;
    for (int y0 = 0; y0 < 4; y0++)
        for (int x0 = 0; x0 < 8; x0++) {
            const bool inside = x0 >= 2 && x0 < 5 && y0 >= 1 && y0 < 3;
            if (inside) {
                touched++;
                ok &= canvas(x0, y0) == expected_value(x0, y0);
            } else {
                ok &= canvas(x0, y0) == 0;
            }
        }
    std::printf(
        "realizing into canvas.cropped({{2, 3}, {1, 2}}) wrote %d points and left the other %d "
        "at zero\n",
        touched, 8 * 4 - touched);

    std::printf(ok ? "lesson 6: every window holds the values of f at its own coordinates\n"
                   : "lesson 6: FAILED\n");
    return ok ? 0 : 1;
}
