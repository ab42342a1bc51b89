#pragma once
// The source image in color with the text boxes drawn over it.

#include <tessera/tessera.h>

#include <vector>

#include "text_boxes.h"

namespace ocr {

// image is gray (x, y) or RGB (x, y, c); the result is RGB with each box outlined in red.
tessera::Buffer<uint8_t> draw_boxes(const tessera::Buffer<uint8_t>& image, const std::vector<TextBox>& boxes);

}  // namespace ocr
