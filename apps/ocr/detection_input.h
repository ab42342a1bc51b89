#pragma once
// The input of PaddleOCR's text detectors, made from an 8-bit image as PaddleOCR makes it
// (DetResizeForTest, NormalizeImage, ToCHWImage): resized to multiples of 32 (bilinear, each
// side at most limit_side), scaled to [0, 1], normalized per channel with ImageNet's mean and
// standard deviation in BGR order, planar.

#include <tessera/graph.h>
#include <tessera/tessera.h>

namespace ocr {

struct DetectionInput {
    tessera::graph::Tensor tensor;  // 1 x 3 x height x width
    int source_width = 0, source_height = 0;
};

// A gray image (x, y) or an RGB one (x, y, c).
DetectionInput make_detection_input(const tessera::Buffer<uint8_t>& image, int limit_side = 960);

}  // namespace ocr
