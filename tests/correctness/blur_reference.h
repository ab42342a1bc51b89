#pragma once
// The 3x3 blur of the demo, shared by the correctness tests: a random 16-bit image, the blur in
// plain C++ with edges repeated, the blur as Funcs (unscheduled), and an exact comparison.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <algorithm>
#include <random>

namespace blur_reference {

using namespace tessera;

inline Buffer<uint16_t> random_image(int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    Buffer<uint16_t> b(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = uint16_t(rng() & 0xffff);
    return b;
}

inline Buffer<uint16_t> reference_blur(const Buffer<uint16_t>& in) {
    const int w = in.width(), h = in.height();
    auto at = [&](int x, int y) { return int(in(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1))); };
    auto bx = [&](int x, int y) { return (at(x - 1, y) + at(x, y) + at(x + 1, y)) / 3; };
    Buffer<uint16_t> out(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) out(x, y) = uint16_t((bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3);
    return out;
}

struct Blur {
    Func clamped, blur_x{"blur_x"}, blur_y{"blur_y"};
    Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"}, xo{"xo"}, yo{"yo"};
    explicit Blur(const Buffer<uint16_t>& in) {
        clamped = BoundaryConditions::repeat_edge(in);
        blur_x(x, y) = cast<uint16_t>((cast<int>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
        blur_y(x, y) = cast<uint16_t>((cast<int>(blur_x(x, y - 1)) + blur_x(x, y) + blur_x(x, y + 1)) / 3);
    }
};

template <typename T>
void check_equal(const Buffer<T>& actual, const Buffer<T>& expected) {
    REQUIRE(actual.width() == expected.width());
    REQUIRE(actual.height() == expected.height());
    int mismatches = 0;
    for (int y = 0; y < expected.height(); y++)
        for (int x = 0; x < expected.width(); x++)
            if (actual(x, y) != expected(x, y) && mismatches++ < 5)
                CHECK_MESSAGE(actual(x, y) == expected(x, y), "at " << x << ", " << y);
    CHECK(mismatches == 0);
}

}  // namespace blur_reference
