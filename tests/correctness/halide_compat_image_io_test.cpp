// Image files as Halide 14's image tools read and write them (Halide::Tools::load_image,
// save_image, load_and_convert_image, convert_and_save_image), with the same sample conversions.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

using namespace tessera;

namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("tessera_compat_io_" + name)).string();
}

template <typename T>
Buffer<T> random_image(int w, int h, int c, unsigned seed) {
    std::mt19937 rng(seed);
    Buffer<T> b = c == 1 ? Buffer<T>(w, h) : Buffer<T>(w, h, c);
    b.for_each_value([&](T& v) { v = T(rng()); });
    return b;
}

}  // namespace

TEST_CASE("8- and 16-bit images round-trip through save_image and load_image") {
    Buffer<uint8_t> gray = random_image<uint8_t>(21, 13, 1, 1);
    Buffer<uint8_t> rgb = random_image<uint8_t>(17, 11, 3, 2);
    Buffer<uint16_t> deep = random_image<uint16_t>(9, 7, 4, 3);
    Tools::save_image(gray, temp_path("gray.png"));
    Tools::save_image(rgb, temp_path("rgb.ppm"));
    Tools::save_image(deep, temp_path("deep.png"));
    Buffer<uint8_t> gray_back = Tools::load_image(temp_path("gray.png"));
    Buffer<uint8_t> rgb_back = Tools::load_image(temp_path("rgb.ppm"));
    Buffer<uint16_t> deep_back = Tools::load_image(temp_path("deep.png"));
    CHECK(gray_back.dimensions() == 2);
    CHECK(rgb_back.channels() == 3);
    CHECK(deep_back.channels() == 4);
    gray.for_each_element([&](int x, int y) { CHECK(gray_back(x, y) == gray(x, y)); });
    rgb.for_each_element([&](int x, int y, int c) { CHECK(rgb_back(x, y, c) == rgb(x, y, c)); });
    deep.for_each_element([&](int x, int y, int c) { CHECK(deep_back(x, y, c) == deep(x, y, c)); });
    // load_image keeps the file's type: asking for another one is an error.
    CHECK_THROWS([&] { Buffer<float> wrong = Tools::load_image(temp_path("gray.png")); }());
}

TEST_CASE("load_and_convert_image scales samples as Halide's tools do") {
    Buffer<uint8_t> small = random_image<uint8_t>(11, 6, 3, 4);
    Buffer<uint16_t> deep = random_image<uint16_t>(11, 6, 3, 5);
    Tools::save_image(small, temp_path("small.png"));
    Tools::save_image(deep, temp_path("deep16.png"));
    Buffer<uint16_t> widened = Tools::load_and_convert_image(temp_path("small.png"));
    Buffer<uint8_t> narrowed = Tools::load_and_convert_image(temp_path("deep16.png"));
    Buffer<float> unit = Tools::load_and_convert_image(temp_path("small.png"));
    Buffer<double> unit16 = Tools::load_and_convert_image(temp_path("deep16.png"));
    Buffer<uint32_t> wide = Tools::load_and_convert_image(temp_path("deep16.png"));
    small.for_each_element([&](int x, int y, int c) {
        CHECK(widened(x, y, c) == small(x, y, c) * 257);
        CHECK(unit(x, y, c) == small(x, y, c) / 255.0f);
        const uint16_t v = deep(x, y, c);
        CHECK(narrowed(x, y, c) == uint8_t(std::lround(v / 257.0)));
        CHECK(unit16(x, y, c) == double(v / 65535.0f));
        CHECK(wide(x, y, c) == uint32_t(v) * 65537u);
    });
}

TEST_CASE("convert_and_save_image writes floats as 16-bit samples and a pipeline reads them back") {
    std::mt19937 rng(6);
    Buffer<float> ramp(23, 9);
    ramp.for_each_value([&](float& v) { v = float(rng() % 100001) / 100000.0f; });
    Tools::convert_and_save_image(ramp, temp_path("ramp.png"));
    Buffer<uint16_t> stored = Tools::load_image(temp_path("ramp.png"));
    ramp.for_each_element(
        [&](int x, int y) { CHECK(stored(x, y) == uint16_t(std::lround(ramp(x, y) * 65535.0f))); });

    Buffer<float> input = Tools::load_and_convert_image(temp_path("ramp.png"));
    Func inverted;
    Var x, y;
    inverted(x, y) = 1.0f - input(x, y);
    Buffer<float> out = inverted.realize({input.width(), input.height()});
    Tools::convert_and_save_image(out, temp_path("inverted.png"));
    Buffer<uint16_t> back = Tools::load_image(temp_path("inverted.png"));
    out.for_each_element([&](int i, int j) {
        CHECK(out(i, j) == 1.0f - stored(i, j) / 65535.0f);
        CHECK(back(i, j) == uint16_t(std::lround(out(i, j) * 65535.0f)));
    });
    for (const char* f :
         {"gray.png", "rgb.ppm", "deep.png", "small.png", "deep16.png", "ramp.png", "inverted.png"})
        std::filesystem::remove(temp_path(f));
}
