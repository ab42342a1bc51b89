// DB post-processing on probability maps drawn by hand: each region of text gives the box PaddleOCR
// would give it.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "text_boxes.h"

namespace {

// A map of width x height with probability p inside the axis-aligned rectangle [x0, x1) x [y0, y1).
void fill(std::vector<float>& map, int width, int x0, int y0, int x1, int y1, float p) {
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) map[size_t(y) * width + x] = p;
}

}  // namespace

TEST_CASE("an upright region of text gives its rectangle, enlarged by area * 1.5 / perimeter on each side") {
    const int w = 64, h = 32;
    std::vector<float> map(w * h, 0.0f);
    fill(map, w, 10, 8, 50, 18, 0.9f);  // pixel centers 10..49 by 8..17: a 39 x 9 rectangle
    std::vector<ocr::TextBox> boxes = ocr::find_text_boxes(map.data(), w, h, w, h);
    REQUIRE(boxes.size() == 1);
    CHECK(boxes[0].score == doctest::Approx(0.9).epsilon(1e-6));
    const double d = 39.0 * 9 * 1.5 / (2 * (39 + 9));
    CHECK(boxes[0].corners[0].x == std::round(10 - d));
    CHECK(boxes[0].corners[0].y == std::round(8 - d));
    CHECK(boxes[0].corners[2].x == std::round(49 + d));
    CHECK(boxes[0].corners[2].y == std::round(17 + d));
}

TEST_CASE("faint regions, thin regions and separate regions are told apart") {
    const int w = 80, h = 40;
    std::vector<float> map(w * h, 0.0f);
    fill(map, w, 5, 5, 30, 12, 0.95f);   // kept
    fill(map, w, 40, 5, 70, 12, 0.45f);  // above the pixel threshold, below the box threshold
    fill(map, w, 5, 20, 60, 22, 0.99f);  // two pixels high: thinner than the minimum side
    fill(map, w, 50, 25, 75, 35, 0.8f);  // kept
    std::vector<ocr::TextBox> boxes = ocr::find_text_boxes(map.data(), w, h, 2 * w, 2 * h);
    REQUIRE(boxes.size() == 2);
    // Scaled to a source twice the map's size.
    CHECK(boxes[0].corners[0].x < 10);
    CHECK(boxes[1].corners[0].x > 80);
    CHECK(boxes[1].score == doctest::Approx(0.8).epsilon(1e-6));
}

TEST_CASE("a tilted region gives a tilted box") {
    const int w = 100, h = 100;
    std::vector<float> map(w * h, 0.0f);
    // A band 8 pixels thick along the diagonal y = x.
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (std::abs(x - y) <= 4 && x > 20 && x < 80) map[size_t(y) * w + x] = 0.9f;
    std::vector<ocr::TextBox> boxes = ocr::find_text_boxes(map.data(), w, h, w, h);
    REQUIRE(boxes.size() == 1);
    const ocr::Point& a = boxes[0].corners[0];
    const ocr::Point& b = boxes[0].corners[1];
    // The long side runs at 45 degrees.
    const double length = std::hypot(b.x - a.x, b.y - a.y);
    const ocr::Point& c = boxes[0].corners[3];
    const double other = std::hypot(c.x - a.x, c.y - a.y);
    const ocr::Point& far = length > other ? b : c;
    CHECK(std::abs(std::abs(far.x - a.x) - std::abs(far.y - a.y)) < 3);
}
