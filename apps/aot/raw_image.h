#pragma once
// A minimal image file for the ahead-of-time apps, which link no image library: a text line
// "tessera-raw <bytes per element> <dimensions> <extent>..." and then the elements, dense with
// dimension 0 innermost, in the machine's byte order. Header-only; needs only the runtime's buffer.

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <tessera/runtime_buffer.h>

namespace raw_image {

template <typename T>
tessera::Runtime::Buffer<T> read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string line, magic;
    if (!in || !std::getline(in, line)) throw std::runtime_error("cannot read " + path);
    std::istringstream header(line);
    int bytes = 0, dimensions = 0;
    header >> magic >> bytes >> dimensions;
    if (magic != "tessera-raw" || bytes != int(sizeof(T)) || dimensions < 1)
        throw std::runtime_error(path + " is not a tessera-raw image of " + std::to_string(sizeof(T)) +
                                 "-byte elements");
    std::vector<int> extents(dimensions);
    for (int& e : extents) header >> e;
    tessera::Runtime::Buffer<T> image(extents);
    in.read(reinterpret_cast<char*>(image.data()), std::streamsize(image.size_in_bytes()));
    if (!in) throw std::runtime_error(path + " is shorter than its header says");
    return image;
}

template <typename T>
void write(const std::string& path, const tessera::Runtime::Buffer<T>& image) {
    tessera::Runtime::Buffer<T> dense = image.copy();
    std::ofstream out(path, std::ios::binary);
    out << "tessera-raw " << sizeof(T) << " " << dense.dimensions();
    for (int d = 0; d < dense.dimensions(); d++) out << " " << dense.dim(d).extent();
    out << "\n";
    out.write(reinterpret_cast<const char*>(dense.data()), std::streamsize(dense.size_in_bytes()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace raw_image
