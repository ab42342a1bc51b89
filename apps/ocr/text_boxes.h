#pragma once
// Text boxes from a text detector's probability map, as PaddleOCR's DBPostProcess finds them:
// the map thresholded, its connected regions, the minimum-area rectangle of each, kept where the
// mean probability inside is high enough, then enlarged ("unclipped") by area * ratio / perimeter
// on every side, and scaled to the source image.

#include <array>
#include <vector>

namespace ocr {

struct Point {
    double x = 0, y = 0;
};

struct TextBox {
    std::array<Point, 4> corners;  // clockwise from the top-left one, in source image pixels
    double score = 0;              // the mean probability inside the box before it was enlarged
};

struct BoxOptions {
    float threshold = 0.3f;      // a pixel is text where its probability exceeds this
    float box_threshold = 0.6f;  // a box is kept where the mean probability inside exceeds this
    double unclip_ratio = 1.5;
    double min_side = 3;  // in map pixels
    int max_candidates = 1000;
};

// probability is width x height, row-major; the boxes are scaled to source_width x source_height.
std::vector<TextBox> find_text_boxes(const float* probability, int width, int height, int source_width,
                                     int source_height, const BoxOptions& options = {});

}  // namespace ocr
