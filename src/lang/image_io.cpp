// PNG (through libpng) and binary PGM / PPM reading and writing for load_image and save_image.
//
// Both formats are read as rows of interleaved samples, big-endian when 16-bit, which
// PlanarImage stores into a planar buffer of the requested type; writing packs rows the same way.
// libpng reports errors by longjmp: the functions that call setjmp hold only trivially
// destructible locals, and every C++ object they use lives in their callers.

#include "tessera/image_io.h"

#include <png.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace tessera {
namespace lang {
namespace {

[[noreturn]] void fail(const char* what, const std::string& path, const std::string& reason) {
    throw RuntimeError(std::string("Error: ") + what + "(\"" + path + "\"): " + reason);
}

std::string lowercase_extension(const std::string& path) {
    const size_t dot = path.find_last_of('.');
    const size_t slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot);
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

// ---- Converting samples --------------------------------------------------------------------
// As Halide's image tools convert: integers of other widths replicate (or round away) the bits so
// that full scale maps to full scale, signed types take the bits of the unsigned ones, and floats
// hold [0, 1] (the 8- and 16-bit divisions done in float even for double, as Halide does).

template <typename Dst>
Dst from_8_bits(uint8_t v) {
    using U = std::make_unsigned_t<
        std::conditional_t<std::is_integral_v<Dst> && !std::is_same_v<Dst, bool>, Dst, int>>;
    if constexpr (std::is_same_v<Dst, bool>)
        return v != 0;
    else if constexpr (std::is_floating_point_v<Dst>)
        return Dst(float(v) / 255.0f);
    else
        return Dst(U(U(v) * U(std::numeric_limits<U>::max() / 255)));  // 0x01, 0x0101, ...
}

template <typename Dst>
Dst from_16_bits(uint16_t v) {
    using U = std::make_unsigned_t<
        std::conditional_t<std::is_integral_v<Dst> && !std::is_same_v<Dst, bool>, Dst, int>>;
    if constexpr (std::is_same_v<Dst, bool>)
        return v != 0;
    else if constexpr (std::is_floating_point_v<Dst>)
        return Dst(float(v) / 65535.0f);
    else if constexpr (sizeof(Dst) == 1)
        return Dst(uint8_t(((uint32_t(v) + 0x80) * 255 + 255) >> 16));  // v / 257, rounded
    else
        return Dst(U(U(v) * U(std::numeric_limits<U>::max() / 65535)));  // 0x0001, 0x00010001, ...
}

// A float in [0, 1] scaled to `scale` and rounded; NaN and values too large to round become 0.
template <typename Src>
uint64_t scaled_float(Src v, double scale) {
    const Src s = v * Src(scale);
    if (!(std::abs(double(s)) < 9e18)) return 0;
    return uint64_t(std::llround(s));
}

// A sample of any type as an 8-bit sample, as Halide's tools convert it.
template <typename Src>
uint8_t to_8_bits(Src v) {
    if constexpr (std::is_same_v<Src, bool>) {
        return v;
    } else if constexpr (std::is_floating_point_v<Src>) {
        return uint8_t(scaled_float(v, 255.0));
    } else {
        using U = std::make_unsigned_t<Src>;
        const U u = U(v);
        if constexpr (sizeof(Src) == 1) return uint8_t(u);
        if constexpr (sizeof(Src) == 2) return uint8_t(((uint32_t(u) + 0x80) * 255 + 255) >> 16);
        if constexpr (sizeof(Src) == 4) return uint8_t((uint64_t(u) + 0x00808080) / 0x01010101);
        if constexpr (sizeof(Src) == 8) return to_8_bits<uint32_t>(uint32_t(u >> 32));
    }
}

// A sample of any type as a 16-bit sample, as Halide's tools convert it.
template <typename Src>
uint16_t to_16_bits(Src v) {
    if constexpr (std::is_same_v<Src, bool>) {
        return v;
    } else if constexpr (std::is_floating_point_v<Src>) {
        return uint16_t(scaled_float(v, 65535.0));
    } else {
        using U = std::make_unsigned_t<Src>;
        const U u = U(v);
        if constexpr (sizeof(Src) == 1) return uint16_t(uint16_t(u) * 0x0101);
        if constexpr (sizeof(Src) == 2) return uint16_t(u);
        if constexpr (sizeof(Src) == 4) return uint16_t(u >> 16);
        if constexpr (sizeof(Src) == 8) return uint16_t(u >> 48);
    }
}

// Calls f with a value of the C++ type of t (bool, any integer width, float or double).
template <typename F>
bool with_sample_type(Type t, F&& f) {
    if (t.lanes() != 1) return false;
    if (t == Bool()) return f(bool{}), true;
    if (t.is_float()) {
        if (t.bits() == 32) return f(float{}), true;
        if (t.bits() == 64) return f(double{}), true;
        return false;
    }
    if (!t.is_int_or_uint()) return false;
    const bool s = t.is_int();
    switch (t.bits()) {
        case 8: return s ? f(int8_t{}) : f(uint8_t{}), true;
        case 16: return s ? f(int16_t{}) : f(uint16_t{}), true;
        case 32: return s ? f(int32_t{}) : f(uint32_t{}), true;
        case 64: return s ? f(int64_t{}) : f(uint64_t{}), true;
    }
    return false;
}

bool loadable(Type t) {
    return with_sample_type(t, [](auto) {});
}

// A planar buffer of the requested type that receives rows of interleaved samples.
class PlanarImage {
public:
    PlanarImage(std::optional<Type> t, int width, int height, int channels, int bits)
        : type_(t.value_or(UInt(bits))), width_(width), channels_(channels), bits_(bits) {
        image = channels == 1 ? Buffer<>(type_, width, height) : Buffer<>(type_, width, height, channels);
    }

    void store_row(int y, const uint8_t* row) {
        with_sample_type(type_, [&](auto sample) { store<decltype(sample)>(y, row); });
    }

    Buffer<> image;

private:
    template <typename Dst>
    void store(int y, const uint8_t* row) {
        const tessera_buffer_t& raw = *image.raw_buffer();
        Dst* line = reinterpret_cast<Dst*>(raw.host) + std::ptrdiff_t(y) * raw.dim[1].stride;
        const std::ptrdiff_t plane = channels_ > 1 ? raw.dim[2].stride : 0;
        const int n = channels_;
        for (int c = 0; c < n; c++) {
            Dst* out = line + c * plane;
            if (bits_ == 8) {
                const uint8_t* in = row + c;
                for (int x = 0; x < width_; x++) out[x] = from_8_bits<Dst>(in[x * n]);
            } else {
                const uint8_t* in = row + 2 * c;
                for (int x = 0; x < width_; x++)
                    out[x] = from_16_bits<Dst>(uint16_t(in[2 * x * n] << 8 | in[2 * x * n + 1]));
            }
        }
    }

    Type type_;
    int width_, channels_, bits_;
};

// ---- PNG -----------------------------------------------------------------------------------

struct PngState {
    png_structp png = nullptr;
    png_infop info = nullptr;
    bool writing = false;
    char message[256] = "";

    ~PngState() {
        if (!png) return;
        if (writing)
            png_destroy_write_struct(&png, info ? &info : nullptr);
        else
            png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    }
};

void on_png_error(png_structp png, png_const_charp message) {
    auto* state = static_cast<PngState*>(png_get_error_ptr(png));
    std::snprintf(state->message, sizeof(state->message), "%s", message);
    std::longjmp(png_jmpbuf(png), 1);
}

void on_png_warning(png_structp, png_const_charp) {}

struct PngLayout {
    int width = 0, height = 0, channels = 0, bits = 0, passes = 1;
};

// Reads the header and sets up the transformations to 8- or 16-bit gray, gray + alpha, RGB or
// RGBA. Calls setjmp: only trivially destructible locals here.
bool read_png_header(PngState& s, FILE* file, PngLayout& layout) {
    if (setjmp(png_jmpbuf(s.png))) return false;
    png_init_io(s.png, file);
    png_set_sig_bytes(s.png, 8);
#ifdef PNG_IGNORE_ADLER32
    // Every chunk's CRC is still checked; zlib's own checksum costs ~6% of decoding a large image.
    png_set_option(s.png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
    png_read_info(s.png, s.info);
    png_set_expand(s.png);  // palette to RGB, low bit depths to 8, transparency to alpha
    layout.passes = png_set_interlace_handling(s.png);
    png_read_update_info(s.png, s.info);
    layout.width = int(png_get_image_width(s.png, s.info));
    layout.height = int(png_get_image_height(s.png, s.info));
    layout.channels = png_get_channels(s.png, s.info);
    layout.bits = png_get_bit_depth(s.png, s.info);
    return true;
}

// Reads the pixels: row by row into `rows[0]` and handing each to store, or, for an interlaced
// file, the whole image into `rows` first. Calls setjmp: only trivially destructible locals here.
bool read_png_rows(PngState& s, const PngLayout& layout, png_bytep* rows, PlanarImage& out) {
    if (setjmp(png_jmpbuf(s.png))) return false;
    if (layout.passes == 1) {
        for (int y = 0; y < layout.height; y++) {
            png_read_row(s.png, rows[0], nullptr);
            out.store_row(y, rows[0]);
        }
    } else {
        png_read_image(s.png, rows);
        for (int y = 0; y < layout.height; y++) out.store_row(y, rows[y]);
    }
    return true;
}

Buffer<> load_png(const std::string& path, FILE* file, std::optional<Type> t) {
    PngState s;
    s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_png_error, on_png_warning);
    if (s.png) s.info = png_create_info_struct(s.png);
    if (!s.png || !s.info) fail("load_image", path, "libpng could not start");
    PngLayout layout;
    if (!read_png_header(s, file, layout))
        fail("load_image", path, std::string("corrupt PNG file: ") + s.message);
    if (layout.channels < 1 || layout.channels > 4 || (layout.bits != 8 && layout.bits != 16))
        fail("load_image", path,
             "unsupported PNG layout: " + std::to_string(layout.channels) + " channels of " +
                 std::to_string(layout.bits) + " bits");
    PlanarImage out(t, layout.width, layout.height, layout.channels, layout.bits);
    const size_t row_bytes = size_t(layout.width) * layout.channels * (layout.bits / 8);
    const int rows_held = layout.passes == 1 ? 1 : layout.height;
    std::vector<uint8_t> pixels(row_bytes * rows_held);
    std::vector<png_bytep> rows(rows_held);
    for (int y = 0; y < rows_held; y++) rows[y] = pixels.data() + y * row_bytes;
    if (!read_png_rows(s, layout, rows.data(), out))
        fail("load_image", path, std::string("corrupt PNG file: ") + s.message);
    return out.image;
}

// Packs row y of an image (relative to its mins) into interleaved samples, 8-bit or big-endian
// 16-bit.
template <typename Src>
void pack_row(const Buffer<>& image, int y, uint8_t* out) {
    const tessera_buffer_t& raw = *image.raw_buffer();
    const Src* line = reinterpret_cast<const Src*>(raw.host) + std::ptrdiff_t(y) * raw.dim[1].stride;
    const std::ptrdiff_t sx = raw.dim[0].stride, sc = raw.dimensions > 2 ? raw.dim[2].stride : 0;
    const int width = image.width(), channels = image.channels();
    for (int x = 0; x < width; x++) {
        for (int c = 0; c < channels; c++) {
            const Src v = line[x * sx + c * sc];
            if constexpr (std::is_same_v<Src, uint16_t>) {
                *out++ = uint8_t(v >> 8);
                *out++ = uint8_t(v & 0xff);
            } else if constexpr (std::is_floating_point_v<Src>) {
                // save_image of floats (beyond Halide, which refuses them): clamped to [0, 1].
                *out++ = !(v > 0) ? 0 : v >= 1 ? 255 : to_8_bits<Src>(v);
            } else {
                *out++ = to_8_bits<Src>(v);
            }
        }
    }
}

void pack_any_row(const Buffer<>& image, int y, uint8_t* out) {
    const Type t = image.type();
    if (t == UInt(8))
        pack_row<uint8_t>(image, y, out);
    else if (t == UInt(16))
        pack_row<uint16_t>(image, y, out);
    else if (t == Float(32))
        pack_row<float>(image, y, out);
    else
        pack_row<double>(image, y, out);
}

// Calls setjmp: only trivially destructible locals here.
bool write_png_rows(PngState& s, FILE* file, const Buffer<>& image, int bits, uint8_t* row) {
    if (setjmp(png_jmpbuf(s.png))) return false;
    static const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                      PNG_COLOR_TYPE_RGB_ALPHA};
    png_init_io(s.png, file);
    png_set_IHDR(s.png, s.info, png_uint_32(image.width()), png_uint_32(image.height()), bits,
                 color_types[image.channels() - 1], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(s.png, s.info);
    for (int y = 0; y < image.height(); y++) {
        pack_any_row(image, y, row);
        png_write_row(s.png, row);
    }
    png_write_end(s.png, nullptr);
    return true;
}

void save_png(const Buffer<>& image, const std::string& path, FILE* file, int bits) {
    PngState s;
    s.writing = true;
    s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, on_png_error, on_png_warning);
    if (s.png) s.info = png_create_info_struct(s.png);
    if (!s.png || !s.info) fail("save_image", path, "libpng could not start");
    std::vector<uint8_t> row(size_t(image.width()) * image.channels() * (bits / 8));
    if (!write_png_rows(s, file, image, bits, row.data()))
        fail("save_image", path, std::string("libpng failed: ") + s.message);
}

// ---- PGM / PPM -----------------------------------------------------------------------------

// The next number of a PNM header, skipping whitespace and comments; -1 if there is none.
long read_pnm_number(FILE* file) {
    int c = std::fgetc(file);
    while (c != EOF && (std::isspace(c) || c == '#')) {
        if (c == '#')
            while (c != EOF && c != '\n') c = std::fgetc(file);
        c = std::fgetc(file);
    }
    if (c == EOF || !std::isdigit(c)) return -1;
    long value = 0;
    while (c != EOF && std::isdigit(c) && value < (1L << 30)) {
        value = value * 10 + (c - '0');
        c = std::fgetc(file);
    }
    return std::isspace(c) ? value : -1;  // exactly one whitespace character ends the header
}

Buffer<> load_pnm(const std::string& path, FILE* file, int channels, std::optional<Type> t) {
    const long width = read_pnm_number(file), height = read_pnm_number(file), maxval = read_pnm_number(file);
    if (width <= 0 || height <= 0 || maxval <= 0 || maxval > 65535 || width * height > (1L << 30))
        fail("load_image", path, "corrupt PGM/PPM header");
    const int bits = maxval < 256 ? 8 : 16;
    PlanarImage out(t, int(width), int(height), channels, bits);
    std::vector<uint8_t> row(size_t(width) * channels * (bits / 8));
    for (long y = 0; y < height; y++) {
        if (std::fread(row.data(), 1, row.size(), file) != row.size())
            fail("load_image", path, "the file ends before row " + std::to_string(y));
        out.store_row(int(y), row.data());
    }
    return out.image;
}

void save_pnm(const Buffer<>& image, const std::string& path, FILE* file, int bits) {
    std::fprintf(file, "P%c\n%d %d\n%d\n", image.channels() == 1 ? '5' : '6', image.width(), image.height(),
                 bits == 8 ? 255 : 65535);
    std::vector<uint8_t> row(size_t(image.width()) * image.channels() * (bits / 8));
    for (int y = 0; y < image.height(); y++) {
        pack_any_row(image, y, row.data());
        if (std::fwrite(row.data(), 1, row.size(), file) != row.size())
            fail("save_image", path, std::string("write failed: ") + std::strerror(errno));
    }
}

}  // namespace

Buffer<> load_image_file(const std::string& path, std::optional<Type> t) {
    if (t && !loadable(*t))
        fail("load_image", path,
             "cannot load an image as " + type_name(*t) + "; use bool, an integer type, float or double");
    File file(std::fopen(path.c_str(), "rb"));
    if (!file) fail("load_image", path, std::string("cannot open the file: ") + std::strerror(errno));
    uint8_t signature[8] = {};
    const size_t got = std::fread(signature, 1, sizeof(signature), file.get());
    if (got == 8 && png_sig_cmp(signature, 0, 8) == 0) return load_png(path, file.get(), t);
    if (got >= 3 && signature[0] == 'P' && (signature[1] == '5' || signature[1] == '6') &&
        std::isspace(signature[2])) {
        std::fseek(file.get(), 2, SEEK_SET);
        return load_pnm(path, file.get(), signature[1] == '5' ? 1 : 3, t);
    }
    fail("load_image", path, "not a PNG, PGM or PPM file");
}

void save_image_file(const Buffer<>& image, const std::string& path) {
    if (!image.defined()) fail("save_image", path, "the Buffer is undefined");
    const Type t = image.type();
    if (t != UInt(8) && t != UInt(16) && t != Float(32) && t != Float(64))
        fail("save_image", path,
             "cannot save a Buffer of " + type_name(t) + "; use uint8, uint16, float or double");
    if (image.dimensions() != 2 && image.dimensions() != 3)
        fail("save_image", path,
             "an image is a 2-D (gray) or 3-D (x, y, channel) Buffer, not " +
                 std::to_string(image.dimensions()) + "-D");
    if (image.channels() < 1 || image.channels() > 4)
        fail("save_image", path, "an image has 1 to 4 channels, not " + std::to_string(image.channels()));
    if (image.width() < 1 || image.height() < 1) fail("save_image", path, "the image is empty");
    const std::string ext = lowercase_extension(path);
    if (ext != ".png" && ext != ".pgm" && ext != ".ppm")
        fail("save_image", path, "unknown image format \"" + ext + "\"; use .png, .pgm or .ppm");
    if (ext != ".png" && image.channels() != 1 && image.channels() != 3)
        fail("save_image", path, "PGM and PPM hold 1 or 3 channels, not " + std::to_string(image.channels()));
    const int bits = t == UInt(16) ? 16 : 8;
    File file(std::fopen(path.c_str(), "wb"));
    if (!file) fail("save_image", path, std::string("cannot create the file: ") + std::strerror(errno));
    if (ext == ".png")
        save_png(image, path, file.get(), bits);
    else
        save_pnm(image, path, file.get(), bits);
    if (std::fflush(file.get()) != 0 || std::ferror(file.get()))
        fail("save_image", path, std::string("write failed: ") + std::strerror(errno));
}

Buffer<> convert_for_saving(const Buffer<>& image, const std::string& path) {
    if (!image.defined()) fail("convert_and_save_image", path, "the Buffer is undefined");
    const Type t = image.type();
    if (t == UInt(8) || t == UInt(16)) return image;
    // The sample width Halide's tools choose: the closest, preferring more bits to fewer.
    auto score = [&](int bits) {
        return std::max(0, t.bits() - bits) * 8 + std::max(0, bits - t.bits()) + (t.is_uint() ? 0 : 1);
    };
    const int bits = score(8) <= score(16) ? 8 : 16;
    std::vector<int> sizes, mins;
    for (int i = 0; i < image.dimensions(); i++) {
        sizes.push_back(image.extent(i));
        mins.push_back(image.min(i));
    }
    Buffer<> out(UInt(bits), sizes);
    out.set_min(mins);
    const bool converted = with_sample_type(t, [&](auto sample) {
        using Src = decltype(sample);
        Buffer<const Src> in = image.as<const Src>();
        if (bits == 8) {
            Buffer<uint8_t> dst = out.as<uint8_t>();
            in.for_each_element([&](const int* pos) { dst(pos) = to_8_bits<Src>(in(pos)); });
        } else {
            Buffer<uint16_t> dst = out.as<uint16_t>();
            in.for_each_element([&](const int* pos) { dst(pos) = to_16_bits<Src>(in(pos)); });
        }
    });
    if (!converted) fail("convert_and_save_image", path, "cannot convert a Buffer of " + type_name(t));
    return out;
}

void convert_and_save_image_file(const Buffer<>& image, const std::string& path) {
    save_image_file(convert_for_saving(image, path), path);
}

}  // namespace lang

Buffer<> load_image(const std::string& path) { return lang::load_image_file(path, std::nullopt); }

}  // namespace tessera
