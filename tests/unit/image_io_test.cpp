#include <doctest/doctest.h>
#include <png.h>
#include <unistd.h>

#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "tessera/image_io.h"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

// A fresh directory for the files one test case writes, removed afterwards.
struct TempDir {
    fs::path path;
    TempDir() {
        static int count = 0;
        path = fs::temp_directory_path() /
               ("tessera_image_io_" + std::to_string(getpid()) + "_" + std::to_string(count++));
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

template <typename T>
Buffer<T> random_image(int width, int height, int channels, unsigned seed) {
    Buffer<T> b = channels == 1 ? Buffer<T>(width, height) : Buffer<T>(width, height, channels);
    std::mt19937 rng(seed);
    b.for_each_value([&](T& v) { v = T(rng()); });
    return b;
}

template <typename A, typename B>
bool same_pixels(const Buffer<A>& a, const Buffer<B>& b) {
    if (a.dimensions() != b.dimensions()) return false;
    for (int i = 0; i < a.dimensions(); i++)
        if (a.extent(i) != b.extent(i)) return false;
    bool same = true;
    a.for_each_element([&](const int* pos) {
        int at[3];
        for (int i = 0; i < a.dimensions(); i++) at[i] = pos[i] - a.min(i) + b.min(i);
        same = same && a(pos) == b(at);
    });
    return same;
}

template <typename F>
std::string runtime_error_of(F&& f) {
    try {
        f();
    } catch (const RuntimeError& e) {
        return e.what();
    }
    return "(no RuntimeError)";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Writes an image with libpng directly, for layouts save_image does not produce (interlaced,
// palette). Calls setjmp: only trivially destructible locals.
bool write_png_with_libpng(const char* path, int width, int height, int bits, int color_type, int interlace,
                           png_bytep* rows, png_colorp palette, int palette_size) {
    FILE* f = std::fopen(path, "wb");
    if (!f) return false;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        std::fclose(f);
        return false;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, width, height, bits, color_type, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (palette) png_set_PLTE(png, info, palette, palette_size);
    png_write_info(png, info);
    png_set_interlace_handling(png);
    png_write_image(png, rows);
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    return true;
}

}  // namespace

TEST_CASE("8-bit gray, gray + alpha, RGB and RGBA images of odd sizes survive a round trip") {
    TempDir dir;
    for (int channels = 1; channels <= 4; channels++) {
        Buffer<uint8_t> image = random_image<uint8_t>(37, 23, channels, 1 + channels);
        const std::string path = dir.file("u8_" + std::to_string(channels) + ".png");
        save_image(image, path);
        Buffer<uint8_t> back = load_image<uint8_t>(path);
        CHECK_MESSAGE(back.dimensions() == (channels == 1 ? 2 : 3), channels << " channels");
        CHECK_MESSAGE(back.channels() == channels, channels << " channels");
        CHECK_MESSAGE(same_pixels(image, back), channels << " channels");
        // Planar, as in Halide: the channel is the outermost dimension.
        if (channels > 1) CHECK(back.stride(2) == 37 * 23);
    }
}

TEST_CASE("16-bit gray, gray + alpha, RGB and RGBA images of odd sizes survive a round trip") {
    TempDir dir;
    for (int channels = 1; channels <= 4; channels++) {
        Buffer<uint16_t> image = random_image<uint16_t>(19, 41, channels, 10 + channels);
        const std::string path = dir.file("u16_" + std::to_string(channels) + ".png");
        save_image(image, path);
        Buffer<> native = load_image(path);
        CHECK(native.type() == UInt(16));
        Buffer<uint16_t> back = native;
        CHECK_MESSAGE(same_pixels(image, back), channels << " channels");
    }
}

TEST_CASE("loading as another element type scales the samples as Halide's tools do") {
    TempDir dir;
    Buffer<uint8_t> u8 = random_image<uint8_t>(13, 7, 3, 5);
    Buffer<uint16_t> u16 = random_image<uint16_t>(13, 7, 3, 6);
    save_image(u8, dir.file("u8.png"));
    save_image(u16, dir.file("u16.png"));

    Buffer<uint16_t> widened = load_image<uint16_t>(dir.file("u8.png"));
    Buffer<uint8_t> narrowed = load_image<uint8_t>(dir.file("u16.png"));
    Buffer<float> unit = load_image<float>(dir.file("u8.png"));
    Buffer<double> unit16 = load_image<double>(dir.file("u16.png"));
    Buffer<uint32_t> wide = load_image<uint32_t>(dir.file("u16.png"));
    u8.for_each_element([&](int x, int y, int c) {
        REQUIRE(widened(x, y, c) == u8(x, y, c) * 257);
        REQUIRE(unit(x, y, c) == doctest::Approx(u8(x, y, c) / 255.0));
        REQUIRE(narrowed(x, y, c) == uint8_t(((u16(x, y, c) + 0x80) * 255 + 255) >> 16));
        REQUIRE(unit16(x, y, c) == doctest::Approx(u16(x, y, c) / 65535.0));
        REQUIRE(wide(x, y, c) == u16(x, y, c) * 65537u);
    });
    float lo = 1, hi = 0;
    unit.for_each_value([&](float v) { lo = std::min(lo, v), hi = std::max(hi, v); });
    CHECK(lo >= 0.0f);
    CHECK(hi <= 1.0f);

    // Halide's load_image keeps the file's type; load_and_convert_image converts.
    Buffer<float> converted = load_and_convert_image(dir.file("u8.png"));
    CHECK(converted(3, 4, 1) == unit(3, 4, 1));
    CHECK(contains(runtime_error_of([&] { Buffer<float> f = Tools::load_image(dir.file("u8.png")); }),
                   "float32"));
    Buffer<uint8_t> same = Tools::load_image(dir.file("u8.png"));
    CHECK(same_pixels(u8, same));
}

TEST_CASE("float images are saved as 8 bits, scaled from [0, 1], rounded and clamped") {
    TempDir dir;
    Buffer<float> f(6, 1);
    const float values[6] = {-0.5f, 0.0f, 0.5f, 1.0f / 255 * 7.4f, 1.5f, std::nanf("")};
    for (int x = 0; x < 6; x++) f(x, 0) = values[x];
    save_image(f, dir.file("f.png"));
    Buffer<> native = load_image(dir.file("f.png"));
    CHECK(native.type() == UInt(8));
    Buffer<uint8_t> back = native;
    CHECK(back(0, 0) == 0);
    CHECK(back(1, 0) == 0);
    CHECK(back(2, 0) == 128);
    CHECK(back(3, 0) == 7);
    CHECK(back(4, 0) == 255);
    CHECK(back(5, 0) == 0);
}

TEST_CASE("buffers with mins, crops and interleaved strides are saved by their own coordinates") {
    TempDir dir;
    Buffer<uint8_t> planar = random_image<uint8_t>(20, 15, 3, 9);
    Buffer<uint8_t> interleaved = planar.copy_to_interleaved();
    interleaved.set_min(-4, 100, 0);
    save_image(interleaved, dir.file("interleaved.png"));
    CHECK(same_pixels(planar, load_image<uint8_t>(dir.file("interleaved.png"))));

    Buffer<uint8_t> part = planar.cropped({{3, 9}, {2, 5}});
    save_image(part, dir.file("part.png"));
    Buffer<uint8_t> back = load_image<uint8_t>(dir.file("part.png"));
    CHECK(back.width() == 9);
    CHECK(back.height() == 5);
    CHECK(back(0, 0, 2) == planar(3, 2, 2));
    CHECK(back(8, 4, 1) == planar(11, 6, 1));
}

TEST_CASE("binary PGM and PPM images survive a round trip") {
    TempDir dir;
    Buffer<uint8_t> gray = random_image<uint8_t>(11, 9, 1, 21);
    Buffer<uint16_t> rgb = random_image<uint16_t>(10, 3, 3, 22);
    save_image(gray, dir.file("gray.pgm"));
    save_image(rgb, dir.file("rgb.PPM"));
    CHECK(same_pixels(gray, load_image<uint8_t>(dir.file("gray.pgm"))));
    CHECK(same_pixels(rgb, load_image<uint16_t>(dir.file("rgb.PPM"))));
}

TEST_CASE("interlaced and palette PNG files load like any other") {
    TempDir dir;
    const int w = 21, h = 17;
    // 16-bit RGB, Adam7-interlaced.
    std::vector<uint8_t> pixels(size_t(w) * h * 6);
    std::mt19937 rng(3);
    for (uint8_t& p : pixels) p = uint8_t(rng());
    std::vector<png_bytep> rows(h);
    for (int y = 0; y < h; y++) rows[y] = pixels.data() + y * w * 6;
    REQUIRE(write_png_with_libpng(dir.file("adam7.png").c_str(), w, h, 16, PNG_COLOR_TYPE_RGB,
                                  PNG_INTERLACE_ADAM7, rows.data(), nullptr, 0));
    Buffer<uint16_t> adam7 = load_image<uint16_t>(dir.file("adam7.png"));
    REQUIRE(adam7.channels() == 3);
    bool same = true;
    adam7.for_each_element([&](int x, int y, int c) {
        const uint8_t* p = pixels.data() + (y * w + x) * 6 + 2 * c;
        same = same && adam7(x, y, c) == (p[0] << 8 | p[1]);
    });
    CHECK(same);

    // 4-bit palette: loads as 8-bit RGB.
    png_color palette[16];
    for (int i = 0; i < 16; i++) palette[i] = png_color{uint8_t(i * 16), uint8_t(255 - i), uint8_t(i)};
    std::vector<uint8_t> indices(size_t((w + 1) / 2) * h);
    for (uint8_t& p : indices) p = uint8_t(rng());
    for (int y = 0; y < h; y++) rows[y] = indices.data() + y * ((w + 1) / 2);
    REQUIRE(write_png_with_libpng(dir.file("palette.png").c_str(), w, h, 4, PNG_COLOR_TYPE_PALETTE,
                                  PNG_INTERLACE_NONE, rows.data(), palette, 16));
    Buffer<uint8_t> pal = load_image<uint8_t>(dir.file("palette.png"));
    REQUIRE(pal.channels() == 3);
    same = true;
    pal.for_each_element([&](int x, int y, int c) {
        const uint8_t byte = indices[y * ((w + 1) / 2) + x / 2];
        const int index = x % 2 == 0 ? byte >> 4 : byte & 15;
        const uint8_t want = c == 0   ? palette[index].red
                             : c == 1 ? palette[index].green
                                      : palette[index].blue;
        same = same && pal(x, y, c) == want;
    });
    CHECK(same);
}

TEST_CASE("the bundled images and the shared photographs load with their sizes and types") {
    const std::string apps = std::string(TESSERA_SOURCE_DIR) + "/apps/images/";
    Buffer<> gray16 = load_image(apps + "gray16.png");
    CHECK(gray16.type() == UInt(16));
    CHECK(gray16.dimensions() == 2);
    CHECK(gray16.width() == 600);
    CHECK(gray16.height() == 400);
    Buffer<> rgb8 = load_image(apps + "rgb8.png");
    CHECK(rgb8.type() == UInt(8));
    CHECK(rgb8.dimensions() == 3);
    CHECK(rgb8.width() == 512);
    CHECK(rgb8.height() == 384);
    CHECK(rgb8.channels() == 3);

    const fs::path shared = fs::path(TESSERA_SOURCE_DIR) / ".." / "shared" / "images";
    if (!fs::exists(shared / "astronaut.png")) {
        MESSAGE("skipped: no shared photographs at " << shared);
        return;
    }
    struct Photo {
        const char* file;
        int width, height;
    };
    for (Photo p :
         {Photo{"astronaut.png", 512, 512}, Photo{"chelsea.png", 451, 300}, Photo{"coffee.png", 600, 400}}) {
        Buffer<uint8_t> image = load_image<uint8_t>((shared / p.file).string());
        CHECK_MESSAGE(image.width() == p.width, p.file);
        CHECK_MESSAGE(image.height() == p.height, p.file);
        CHECK_MESSAGE(image.channels() == 3, p.file);
        // A photograph has texture: not all of its pixels are equal.
        CHECK_MESSAGE(!image.all_equal(image(0, 0, 0)), p.file);
    }
}

TEST_CASE("bad files and bad buffers are RuntimeErrors naming the path and the reason") {
    TempDir dir;
    const std::string missing = dir.file("missing.png");
    std::string e = runtime_error_of([&] { load_image<uint8_t>(missing); });
    CHECK(contains(e, missing));
    CHECK(contains(e, "cannot open"));

    { std::ofstream(dir.file("text.png")) << "this is not an image\n"; }
    CHECK(contains(runtime_error_of([&] { load_image(dir.file("text.png")); }), "not a PNG"));

    // A PNG cut short in its pixel data.
    save_image(random_image<uint8_t>(64, 64, 3, 4), dir.file("whole.png"));
    fs::copy_file(dir.file("whole.png"), dir.file("cut.png"));
    fs::resize_file(dir.file("cut.png"), fs::file_size(dir.file("whole.png")) / 2);
    e = runtime_error_of([&] { load_image<uint8_t>(dir.file("cut.png")); });
    CHECK(contains(e, "cut.png"));
    CHECK(contains(e, "corrupt"));

    CHECK(contains(runtime_error_of([&] { load_image<int*>(dir.file("whole.png")); }), "handle"));
    CHECK(contains(runtime_error_of([&] { save_image(Buffer<int>(4, 4), dir.file("i.png")); }), "int32"));
    CHECK(contains(runtime_error_of([&] { save_image(Buffer<uint8_t>(4), dir.file("1d.png")); }), "1-D"));
    CHECK(contains(runtime_error_of([&] { save_image(Buffer<uint8_t>(4, 4, 5), dir.file("5.png")); }), "5"));
    CHECK(contains(runtime_error_of([&] { save_image(Buffer<uint8_t>(4, 4), dir.file("x.bmp")); }), ".bmp"));
    CHECK(
        contains(runtime_error_of([&] { save_image(Buffer<uint8_t>(4, 4, 4), dir.file("x.ppm")); }), "PPM"));
    CHECK(contains(runtime_error_of([&] { save_image(Buffer<uint8_t>(4, 4), dir.file("no/such/dir.png")); }),
                   "cannot create"));
    CHECK(contains(runtime_error_of([&] { save_image(Buffer<uint8_t>(), dir.file("u.png")); }), "undefined"));
}
