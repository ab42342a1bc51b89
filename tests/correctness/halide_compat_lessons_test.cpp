// Programs in the style of Halide 14's tutorial lessons 1-9 and 13 (without scheduling), ported
// by swapping the include and the namespace, checked against plain C++ on random inputs.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <random>
#include <string>

using namespace tessera;
using namespace tessera::Tools;

namespace {

Buffer<uint8_t> random_image(int w, int h, int c, unsigned seed) {
    std::mt19937 rng(seed);
    Buffer<uint8_t> b(w, h, c);
    b.for_each_value([&](uint8_t& v) { v = uint8_t(rng()); });
    return b;
}

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("tessera_compat_" + name)).string();
}

}  // namespace

TEST_CASE("lesson 1: a gradient over unnamed Vars and Funcs") {
    Func gradient("gradient");
    Var x("x"), y("y");
    Expr e = x + y;
    gradient(x, y) = e;
    Buffer<int32_t> output = gradient.realize({37, 29});
    CHECK(output.width() == 37);
    CHECK(output.height() == 29);
    for (int j = 0; j < output.height(); j++)
        for (int i = 0; i < output.width(); i++) CHECK(output(i, j) == i + j);

    Func unnamed;
    Var u, v;
    unnamed(u, v) = u * 3 - v;
    Buffer<int> out2 = unnamed.realize({5, 3});
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 5; i++) CHECK(out2(i, j) == i * 3 - j);
}

TEST_CASE("lesson 2: brightening an image loaded from a file") {
    Buffer<uint8_t> original = random_image(23, 17, 3, 1);
    const std::string path = temp_path("lesson2.png");
    save_image(original, path);
    Buffer<uint8_t> input = load_image(path);
    REQUIRE(input.channels() == 3);

    Func brighter;
    Var x, y, c;
    Expr value = input(x, y, c);
    value = cast<float>(value);
    value = value * 1.5f;
    value = min(value, 255.0f);
    value = cast<uint8_t>(value);
    brighter(x, y, c) = value;
    Buffer<uint8_t> output = brighter.realize({input.width(), input.height(), input.channels()});
    save_image(output, temp_path("lesson2_out.png"));
    Buffer<uint8_t> reloaded = load_image(temp_path("lesson2_out.png"));
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 17; j++)
            for (int i = 0; i < 23; i++) {
                const uint8_t expected = uint8_t(std::min(float(original(i, j, k)) * 1.5f, 255.0f));
                CHECK(output(i, j, k) == expected);
                CHECK(reloaded(i, j, k) == expected);
            }
    std::filesystem::remove(path);
    std::filesystem::remove(temp_path("lesson2_out.png"));
}

TEST_CASE("lesson 4: print and print_when leave the values unchanged") {
    Func f("f");
    Var x("x"), y("y");
    Expr e = cos(cast<float>(y));
    e = print_when(x == 3 && y == 2, e, "<- this is cos(y) at x, y ==", x, y);
    f(x, y) = sin(cast<float>(x)) + e;
    Func g("g");
    g(x) = print(x * 2, "is twice", x) + 1;
    Buffer<float> out = f.realize({5, 4});
    Buffer<int> out2 = g.realize({3});
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 5; i++) CHECK(out(i, j) == std::sin(float(i)) + std::cos(float(j)));
    for (int i = 0; i < 3; i++) CHECK(out2(i) == i * 2 + 1);
}

TEST_CASE("lesson 6: realizing over a buffer with a shifted domain") {
    Func gradient("gradient");
    Var x("x"), y("y");
    gradient(x, y) = x + y;
    Buffer<int> result(8, 8);
    gradient.realize(result);
    Buffer<int> shifted(5, 7);
    shifted.set_min(100, 50);
    gradient.realize(shifted);
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 8; i++) CHECK(result(i, j) == i + j);
    CHECK(shifted.dim(0).min() == 100);
    CHECK(shifted.dim(1).min() == 50);
    for (int j = 50; j < 57; j++)
        for (int i = 100; i < 105; i++) CHECK(shifted(i, j) == i + j);
}

TEST_CASE("lesson 7: a multi-stage blur, over a cropped output and with clamped edges") {
    Buffer<uint8_t> input = random_image(31, 21, 3, 2);
    Var x("x"), y("y"), c("c");
    auto reference = [&](const std::function<int(int, int, int)>& in, int i, int j, int k) {
        auto bx = [&](int ii, int jj) {
            return (in(ii - 1, jj, k) + 2 * in(ii, jj, k) + in(ii + 1, jj, k)) / 4;
        };
        return uint8_t((bx(i, j - 1) + 2 * bx(i, j) + bx(i, j + 1)) / 4);
    };
    {
        Func input_16("input_16");
        input_16(x, y, c) = cast<uint16_t>(input(x, y, c));
        Func blur_x("blur_x");
        blur_x(x, y, c) = (input_16(x - 1, y, c) + 2 * input_16(x, y, c) + input_16(x + 1, y, c)) / 4;
        Func blur_y("blur_y");
        blur_y(x, y, c) = (blur_x(x, y - 1, c) + 2 * blur_x(x, y, c) + blur_x(x, y + 1, c)) / 4;
        Func output("output");
        output(x, y, c) = cast<uint8_t>(blur_y(x, y, c));
        Buffer<uint8_t> result(input.width() - 2, input.height() - 2, 3);
        result.set_min(1, 1);
        output.realize(result);
        auto in = [&](int i, int j, int k) { return int(input(i, j, k)); };
        for (int k = 0; k < 3; k++)
            for (int j = result.top(); j <= result.bottom(); j++)
                for (int i = result.left(); i <= result.right(); i++)
                    CHECK(result(i, j, k) == reference(in, i, j, k));
    }
    {
        Func clamped("clamped");
        Expr clamped_x = clamp(x, 0, input.width() - 1);
        Expr clamped_y = clamp(y, 0, input.height() - 1);
        clamped(x, y, c) = input(clamped_x, clamped_y, c);
        Func input_16("input_16");
        input_16(x, y, c) = cast<uint16_t>(clamped(x, y, c));
        Func blur_x("blur_x");
        blur_x(x, y, c) = (input_16(x - 1, y, c) + 2 * input_16(x, y, c) + input_16(x + 1, y, c)) / 4;
        Func blur_y("blur_y");
        blur_y(x, y, c) = (blur_x(x, y - 1, c) + 2 * blur_x(x, y, c) + blur_x(x, y + 1, c)) / 4;
        Func output("output");
        output(x, y, c) = cast<uint8_t>(blur_y(x, y, c));
        Buffer<uint8_t> result = output.realize({input.width(), input.height(), 3});
        auto in = [&](int i, int j, int k) {
            return int(input(std::clamp(i, 0, input.width() - 1), std::clamp(j, 0, input.height() - 1), k));
        };
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < input.height(); j++)
                for (int i = 0; i < input.width(); i++) CHECK(result(i, j, k) == reference(in, i, j, k));
    }
}

TEST_CASE("lesson 9: update definitions at points, rows and over reduction domains") {
    Var x("x"), y("y");
    {
        Func f("f");
        f(x, y) = x + y;
        f(3, 7) = 42;
        f(x, y) = f(x, y) + 17;
        f(x, 3) = f(x, 0) * f(x, 10);
        f(0, y) = f(0, y) / f(3, y);
        Buffer<int> out = f.realize({9, 13});
        auto pure = [](int i, int j) { return i + j + 17 + (i == 3 && j == 7 ? 42 - (i + j) : 0); };
        for (int j = 0; j < 13; j++)
            for (int i = 0; i < 9; i++) {
                auto at = [&](int ii, int jj) { return jj == 3 ? pure(ii, 0) * pure(ii, 10) : pure(ii, jj); };
                int expected = at(i, j);
                if (i == 0) {
                    const int d = at(3, j);
                    expected = d == 0 ? 0 : int(std::floor(double(at(0, j)) / d));
                }
                CHECK_MESSAGE(out(i, j) == expected, "at " << i << ", " << j);
            }
    }
    {
        // A prefix sum, scanning left to right.
        Buffer<int> input(57);
        std::mt19937 rng(3);
        input.for_each_value([&](int& v) { v = int(rng() % 100) - 50; });
        Func scan("scan");
        scan(x) = input(x);
        RDom r(1, input.width() - 1);
        scan(r) = scan(r) + scan(r - 1);
        Buffer<int> out = scan.realize({input.width()});
        int running = 0;
        for (int i = 0; i < input.width(); i++) {
            running += input(i);
            CHECK(out(i) == running);
        }
    }
    {
        // A histogram, then a blur with an inline sum over a 5x5 RDom.
        Buffer<uint8_t> input = random_image(41, 27, 1, 4).sliced(2, 0);
        Func histogram("histogram");
        histogram(x) = 0;
        RDom r(0, input.width(), 0, input.height());
        histogram(input(r.x, r.y)) += 1;
        Buffer<int> hist = histogram.realize({256});
        std::vector<int> expected(256, 0);
        for (int j = 0; j < input.height(); j++)
            for (int i = 0; i < input.width(); i++) expected[input(i, j)]++;
        for (int k = 0; k < 256; k++) CHECK(hist(k) == expected[k]);

        Func clamped("clamped");
        clamped(x, y) = input(clamp(x, 0, input.width() - 1), clamp(y, 0, input.height() - 1));
        RDom box(-2, 5, -2, 5);
        Func blurry("blurry");
        blurry(x, y) = cast<uint8_t>(sum(cast<uint16_t>(clamped(x + box.x, y + box.y))) / 25);
        Func brightest("brightest");
        brightest(x, y) = maximum(clamped(x + box.x, y + box.y));
        Buffer<uint8_t> blurred = blurry.realize({input.width(), input.height()});
        Buffer<uint8_t> bright = brightest.realize({input.width(), input.height()});
        for (int j = 0; j < input.height(); j++)
            for (int i = 0; i < input.width(); i++) {
                int total = 0, most = 0;
                for (int dy = -2; dy <= 2; dy++)
                    for (int dx = -2; dx <= 2; dx++) {
                        const int v = input(std::clamp(i + dx, 0, input.width() - 1),
                                            std::clamp(j + dy, 0, input.height() - 1));
                        total += v;
                        most = std::max(most, v);
                    }
                CHECK(blurred(i, j) == uint8_t(total / 25));
                CHECK(bright(i, j) == most);
            }
    }
    {
        // Reductions over a buffer: sum, product, minimum, argmax.
        Buffer<int> input(19);
        std::mt19937 rng(5);
        input.for_each_value([&](int& v) { v = int(rng() % 21) - 10; });
        RDom r(0, input.width());
        Func s("s"), lowest("lowest"), where_max("where_max"), prod("prod");
        s() = sum(input(r));
        lowest() = minimum(input(r) * 2);
        Tuple am = argmax(input(r));
        where_max() = am[0];
        prod() = product(input(r) % 3 + 1);
        Buffer<int> so = s.realize(), lo = lowest.realize(), wm = where_max.realize(), po = prod.realize();
        int total = 0, least = 1 << 30, best = 0, product_value = 1;
        for (int i = 0; i < input.width(); i++) {
            total += input(i);
            least = std::min(least, input(i) * 2);
            if (input(i) > input(best)) best = i;
            product_value *= ((input(i) % 3) + 3) % 3 + 1;
        }
        CHECK(so() == total);
        CHECK(lo() == least);
        CHECK(wm() == best);
        CHECK(po() == product_value);
    }
}

namespace {

// Lesson 13's complex numbers: a user type convertible to and from Tuples.
struct Complex {
    Expr real, imag;
    Complex(Tuple t) : real(t[0]), imag(t[1]) {}
    Complex(Expr r, Expr i) : real(r), imag(i) {}
    Complex(FuncRef t) : Complex(Tuple(t)) {}
    operator Tuple() const { return {real, imag}; }
    Complex operator+(const Complex& other) const { return {real + other.real, imag + other.imag}; }
    Complex operator*(const Complex& other) const {
        return {real * other.real - imag * other.imag, real * other.imag + imag * other.real};
    }
    Expr magnitude() const { return real * real + imag * imag; }
};

}  // namespace

TEST_CASE("lesson 13: Tuple-valued Funcs, Tuple reductions and a Mandelbrot set") {
    Var x, y;
    Func multi_valued;
    multi_valued(x, y) = Tuple(x + y, sin(cast<float>(x * y)));
    {
        Realization r = multi_valued.realize({80, 60});
        CHECK(r.size() == 2);
        Buffer<int> im0 = r[0];
        Buffer<float> im1 = r[1];
        CHECK(im0(30, 40) == 30 + 40);
        CHECK(im1(30, 40) == std::sin(float(30 * 40)));
    }
    Func multi_valued_2;
    multi_valued_2(x, y) = {x + y, sin(cast<float>(x * y))};
    Expr integer_part = multi_valued_2(x, y)[0];
    Expr floating_part = multi_valued_2(x, y)[1];
    Func consumer;
    consumer(x, y) = {integer_part + 10, floating_part + 10.0f};
    {
        Realization r = consumer.realize({7, 5});
        Buffer<int> a = r[0];
        Buffer<float> b = r[1];
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 7; i++) {
                CHECK(a(i, j) == i + j + 10);
                CHECK(b(i, j) == std::sin(float(i * j)) + 10.0f);
            }
    }
    {
        Func input_func;
        input_func(x) = sin(cast<float>(x));
        Buffer<float> input = input_func.realize({100});
        Func arg_max;
        arg_max() = {0, input(0)};
        RDom r(1, 99);
        Expr old_index = arg_max()[0];
        Expr old_max = arg_max()[1];
        Expr new_index = select(old_max < input(r), r, old_index);
        Expr new_max = max(input(r), old_max);
        arg_max() = {new_index, new_max};
        int arg_max_0 = 0;
        float arg_max_1 = input(0);
        for (int i = 1; i < 100; i++) {
            const int idx = arg_max_1 < input(i) ? i : arg_max_0;
            arg_max_1 = std::max(input(i), arg_max_1);
            arg_max_0 = idx;
        }
        Realization rr = arg_max.realize();
        Buffer<int> r0 = rr[0];
        Buffer<float> r1 = rr[1];
        CHECK(r0(0) == arg_max_0);
        CHECK(r1(0) == arg_max_1);
    }
    {
        Func mandelbrot;
        Complex initial(x / 15.0f - 2.5f, y / 6.0f - 2.0f);
        Var t;
        mandelbrot(x, y, t) = Complex(0.0f, 0.0f);
        RDom r(1, 12);
        Complex current = mandelbrot(x, y, r - 1);
        mandelbrot(x, y, r) = current * current + initial;
        Expr escape_condition = Complex(mandelbrot(x, y, r)).magnitude() < 16.0f;
        Tuple first_escape = argmin(escape_condition);
        Func escape;
        escape(x, y) = first_escape[0];
        Buffer<int> result = escape.realize({61, 25});
        for (int j = 0; j < 25; j++)
            for (int i = 0; i < 61; i++) {
                const float cr = float(i) / 15.0f - 2.5f, ci = float(j) / 6.0f - 2.0f;
                float zr = 0.0f, zi = 0.0f;
                int first = 0;  // argmin's initial index when every step stays inside
                bool found = false;
                for (int k = 1; k <= 12; k++) {
                    const float nr = zr * zr - zi * zi + cr, ni = zr * zi + zi * zr + ci;
                    zr = nr;
                    zi = ni;
                    if (!found && !(zr * zr + zi * zi < 16.0f)) {
                        first = k;
                        found = true;
                    }
                }
                CHECK_MESSAGE(result(i, j) == first, "at " << i << ", " << j);
            }
    }
}
