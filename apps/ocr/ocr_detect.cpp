// Finds the text in a photograph with PaddleOCR's PP-OCRv4 text detector, run by Tessera's graph
// layer: the image preprocessed as PaddleOCR does it, the detector's probability map turned into
// text boxes, which are printed and drawn into a PNG.
//
//   ocr_detect [--model det.onnx] [--image page.png] [--output boxes.png] [--write-input x.pb]
//              [--time N]
//
// Without --model it uses the model the install script put in third_party/npm; without that
// model it says so and exits with 77, which ctest counts as skipped.

#include <tessera/graph.h>
#include <tessera/onnx.h>
#include <tessera/tessera.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "detection_input.h"
#include "draw_boxes.h"
#include "text_boxes.h"

namespace {

struct Options {
    std::string model = TESSERA_OCR_DETECTOR_MODEL;
    std::string image = TESSERA_SOURCE_DIR "/apps/images/page.png";
    std::string output = "ocr_boxes.png";
    std::string write_input;
    int time_runs = 0;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
        const std::string value = argv[++i];
        if (arg == "--model")
            o.model = value;
        else if (arg == "--image")
            o.image = value;
        else if (arg == "--output")
            o.output = value;
        else if (arg == "--write-input")
            o.write_input = value;
        else if (arg == "--time")
            o.time_runs = std::stoi(value);
        else
            throw std::invalid_argument("unknown option " + arg);
    }
    return o;
}

double median(std::vector<double> xs) {
    std::sort(xs.begin(), xs.end());
    return xs[xs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    using namespace tessera;
    try {
        const Options o = parse(argc, argv);
        if (!std::filesystem::exists(o.model)) {
            std::printf("skipped: no detector model at %s; scripts/install_dependencies.sh installs it\n",
                        o.model.c_str());
            return 77;  // ctest's skip code
        }
        Buffer<uint8_t> image = load_image<uint8_t>(o.image);
        const ocr::DetectionInput input = ocr::make_detection_input(image);
        if (!o.write_input.empty()) graph::write_tensor_proto(input.tensor, "x", o.write_input);
        const graph::Graph detector = graph::load_onnx(o.model);
        graph::CompileOptions options;
        options.input_shapes["x"] = input.tensor.shape();
        graph::CompiledModel model = graph::compile(detector, get_host_target(), options);
        const graph::Tensor probability = model.run({{"x", input.tensor}}).begin()->second;
        const int height = int(probability.shape()[2]), width = int(probability.shape()[3]);
        const std::vector<ocr::TextBox> boxes = ocr::find_text_boxes(probability.data<float>(), width, height,
                                                                     input.source_width, input.source_height);
        std::printf("%s: %dx%d, detector input %dx%d, %zu text boxes\n", o.image.c_str(), input.source_width,
                    input.source_height, width, height, boxes.size());
        for (size_t i = 0; i < boxes.size(); i++) {
            std::printf("box %zu: score %.3f", i, boxes[i].score);
            for (const ocr::Point& p : boxes[i].corners) std::printf(" (%.0f, %.0f)", p.x, p.y);
            std::printf("\n");
        }
        save_image(ocr::draw_boxes(image, boxes), o.output);
        std::printf("boxes drawn into %s; compile time %.2f s\n", o.output.c_str(), model.compile_seconds());
        if (o.time_runs > 0) {
            std::vector<double> ms;
            for (int i = 0; i < o.time_runs; i++) {
                const auto start = std::chrono::steady_clock::now();
                model.run({{"x", input.tensor}});
                ms.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                        .count());
            }
            std::printf("median run time %.2f ms over %d runs\n", median(ms), o.time_runs);
        }
        return boxes.empty() ? 1 : 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ocr_detect: %s\n", e.what());
        return 1;
    }
}
