#include "detection_input.h"

#include <algorithm>
#include <cmath>

namespace ocr {
namespace {

using namespace tessera;

// PaddleOCR's rounding of each side to a multiple of 32, after scaling the longest side down to
// limit_side when it is longer.
int detector_side(int side, double ratio) { return std::max(int(std::lround(side * ratio / 32.0)) * 32, 32); }

}  // namespace

DetectionInput make_detection_input(const Buffer<uint8_t>& image, int limit_side) {
    const int w = image.width(), h = image.height();
    const bool gray = image.dimensions() == 2;
    const double ratio = std::max(w, h) > limit_side ? double(limit_side) / std::max(w, h) : 1.0;
    const int out_w = detector_side(w, ratio), out_h = detector_side(h, ratio);

    Func source("source");
    Var x("x"), y("y"), c("c");
    // The detector's channels are in BGR order: channel k reads the image's channel 2 - k.
    source(x, y, c) = cast<float>(gray ? image(clamp(x, 0, w - 1), clamp(y, 0, h - 1))
                                       : image(clamp(x, 0, w - 1), clamp(y, 0, h - 1), 2 - c));
    // Bilinear with pixel centers aligned, as OpenCV's INTER_LINEAR, rounded to 8 bits as its
    // 8-bit output is.
    const float sx = float(w) / out_w, sy = float(h) / out_h;
    Expr fx = max((cast<float>(x) + 0.5f) * sx - 0.5f, 0.0f),
         fy = max((cast<float>(y) + 0.5f) * sy - 0.5f, 0.0f);
    Expr x0 = cast<int>(floor(fx)), y0 = cast<int>(floor(fy));
    Expr ax = fx - cast<float>(x0), ay = fy - cast<float>(y0);
    Func resized("resized");
    resized(x, y, c) = round(lerp(lerp(source(x0, y0, c), source(x0 + 1, y0, c), ax),
                                  lerp(source(x0, y0 + 1, c), source(x0 + 1, y0 + 1, c), ax), ay));
    Func normalized("normalized");
    const Expr mean = mux(c, {0.485f, 0.456f, 0.406f}), deviation = mux(c, {0.229f, 0.224f, 0.225f});
    normalized(x, y, c) = (resized(x, y, c) / 255.0f - mean) / deviation;
    normalized.vectorize(x, 8, TailStrategy::GuardWithIf).parallel(y);

    DetectionInput input;
    input.source_width = w;
    input.source_height = h;
    input.tensor = graph::Tensor(Float(32), {1, 3, out_h, out_w});
    normalized.realize(Buffer<float>(input.tensor.data<float>(), out_w, out_h, 3));
    return input;
}

}  // namespace ocr
