#pragma once
// Reading and writing images as Buffers, spelled as Halide's tools spell them (Halide::Tools::
// load_image, save_image, load_and_convert_image, convert_and_save_image), also available
// directly in namespace tessera.
//
// Formats: PNG (8- or 16-bit gray, gray + alpha, RGB, RGBA; palette images load as RGB or RGBA)
// and binary PGM / PPM. A gray image is a 2-D buffer (x, y); any other is a 3-D buffer (x, y, c)
// stored planar (c outermost), as in Halide. Every failure (a missing file, a file of another
// format, a corrupt file, a layout that cannot be written) throws RuntimeError naming the path
// and the reason.

#include <optional>
#include <string>

#include "tessera/buffer.h"

namespace tessera {
namespace lang {

// The image at path with elements of type t, converted as load_image<T> describes; without t, in
// the file's own element type (uint8 or uint16).
Buffer<> load_image_file(const std::string& path, std::optional<Type> t);
// Writes a 2-D buffer as gray, or a 3-D buffer of 1, 2, 3 or 4 channels; the file name's
// extension (.png, .pgm, .ppm) chooses the format.
void save_image_file(const Buffer<>& image, const std::string& path);
// Converts the buffer to 8 or 16 bits as Halide's convert_and_save_image does (floats, uint32 and
// 16-bit integers to 16 bits; 8-bit integers and bools to 8 bits), then saves it.
void convert_and_save_image_file(const Buffer<>& image, const std::string& path);

}  // namespace lang

// The image at path with elements of type T, converting the file's samples as Halide's tools do:
// unsigned integers cover their full range (an 8-bit v becomes v * 257 in uint16, a 16-bit v
// becomes v / 257 rounded in uint8), signed integers take the same bits, and float or double hold
// values in [0, 1] (v / 255.0f or v / 65535.0f, computed in float).
template <typename T>
Buffer<T> load_image(const std::string& path) {
    return Buffer<T>(lang::load_image_file(path, type_of<T>()));
}

// The image at path in the file's own element type, uint8 or uint16. As in Halide, assigning it to
// a Buffer<T> of another element type throws RuntimeError; load_image<T>() and
// load_and_convert_image() convert instead.
Buffer<> load_image(const std::string& path);

// The result of load_and_convert_image: becomes a Buffer of any element type, converted as
// load_image<T> describes.
class ImageToConvert {
public:
    explicit ImageToConvert(std::string path) : path_(std::move(path)) {}
    template <typename T, int Dims>
    operator Buffer<T, Dims>() const {
        if constexpr (std::is_void_v<T>)
            return Buffer<T, Dims>(lang::load_image_file(path_, std::nullopt));
        else
            return Buffer<T, Dims>(lang::load_image_file(path_, type_of<T>()));
    }

private:
    std::string path_;
};

inline ImageToConvert load_and_convert_image(const std::string& path) { return ImageToConvert(path); }

// Writes uint8 buffers as 8-bit images, uint16 as 16-bit, and float or double as 8-bit with
// values in [0, 1] scaled to [0, 255], rounded and clamped.
template <typename T, int Dims>
void save_image(const Buffer<T, Dims>& image, const std::string& path) {
    lang::save_image_file(Buffer<>(image), path);
}

// Any element type, converted as Halide's tools convert it: floats hold [0, 1] and are written as
// 16-bit samples (v * 65535, rounded), uint32 keeps its top 16 bits, 8-bit integers stay 8-bit.
template <typename T, int Dims>
void convert_and_save_image(const Buffer<T, Dims>& image, const std::string& path) {
    lang::convert_and_save_image_file(Buffer<>(image), path);
}

namespace Tools {
using tessera::convert_and_save_image;
using tessera::load_and_convert_image;
using tessera::load_image;
using tessera::save_image;
}  // namespace Tools

}  // namespace tessera
