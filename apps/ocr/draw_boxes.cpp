#include "draw_boxes.h"

#include <algorithm>
#include <cmath>

namespace ocr {
namespace {

void plot(tessera::Buffer<uint8_t>& out, int x, int y) {
    if (x < 0 || y < 0 || x >= out.width() || y >= out.height()) return;
    out(x, y, 0) = 255;
    out(x, y, 1) = 0;
    out(x, y, 2) = 0;
}

// A line two pixels wide from a to b.
void draw_line(tessera::Buffer<uint8_t>& out, const Point& a, const Point& b) {
    const int steps = int(std::ceil(std::max(std::abs(b.x - a.x), std::abs(b.y - a.y)))) + 1;
    for (int i = 0; i <= steps; i++) {
        const double t = double(i) / steps;
        const int x = int(std::lround(a.x + (b.x - a.x) * t)), y = int(std::lround(a.y + (b.y - a.y) * t));
        plot(out, x, y);
        plot(out, x + 1, y);
        plot(out, x, y + 1);
    }
}

}  // namespace

tessera::Buffer<uint8_t> draw_boxes(const tessera::Buffer<uint8_t>& image,
                                    const std::vector<TextBox>& boxes) {
    const bool gray = image.dimensions() == 2;
    tessera::Buffer<uint8_t> out(image.width(), image.height(), 3);
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < image.height(); y++)
            for (int x = 0; x < image.width(); x++) out(x, y, c) = gray ? image(x, y) : image(x, y, c);
    for (const TextBox& box : boxes)
        for (size_t i = 0; i < 4; i++) draw_line(out, box.corners[i], box.corners[(i + 1) % 4]);
    return out;
}

}  // namespace ocr
