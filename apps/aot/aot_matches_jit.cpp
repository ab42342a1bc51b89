// Runs an ahead-of-time app on a photograph and checks its output bit for bit against the same
// generator run through the JIT in this process, and against plain C++.
//   aot_matches_jit blur <blur_app> <image.png> <scratch dir>
//   aot_matches_jit unsharp <unsharp_app> <image.png> <scratch dir> <radius> <amount> <threshold>
// The radius must be the one the app's library was generated with.

#include <tessera/tessera.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "blur_generator.h"
#include "raw_image.h"
#include "unsharp_generator.h"

using namespace tessera;

namespace {

// The app's output for `input`, through files, as a Buffer of this process.
template <typename T>
Buffer<T> run_app(const std::string& app, const Buffer<T>& input, const std::string& dir,
                  const std::string& scalars) {
    std::filesystem::create_directories(dir);
    const std::string in_path = dir + "/input.raw", out_path = dir + "/output.raw";
    raw_image::write(in_path, Runtime::Buffer<T>(*input.raw_buffer()));
    const std::string command = app + " " + in_path + " " + scalars + " " + out_path;
    std::printf("running %s\n", command.c_str());
    if (std::system(command.c_str()) != 0) throw RuntimeError("the ahead-of-time app failed: " + command);
    Runtime::Buffer<T> output = raw_image::read<T>(out_path);
    Buffer<T> copy(std::vector<int>(
        output.dimensions() == 2 ? std::vector<int>{output.width(), output.height()}
                                 : std::vector<int>{output.width(), output.height(), output.channels()}));
    output.for_each_element([&](const int* pos) { copy(pos) = output(pos); });
    return copy;
}

template <typename T, typename Reference>
int count_differences(const Buffer<T>& aot, const Buffer<T>& jit, Reference reference) {
    int jit_differences = 0, reference_differences = 0;
    aot.for_each_element([&](const int* pos) {
        jit_differences += aot(pos) != jit(pos);
        reference_differences += aot(pos) != reference(pos);
    });
    std::printf("%lld values: %d differ from the JIT's, %d from plain C++\n",
                (long long)aot.number_of_elements(), jit_differences, reference_differences);
    return jit_differences + reference_differences;
}

int check_blur(const std::string& app, const std::string& image, const std::string& dir) {
    Buffer<uint16_t> input = load_image<uint16_t>(image);
    Buffer<uint16_t> aot = run_app(app, input, dir, "");

    auto generator = BlurGenerator::create(GeneratorContext(get_host_target()));
    Pipeline pipeline = generator->build_pipeline();
    generator->input.set(input);
    Buffer<uint16_t> jit = pipeline.realize({input.width(), input.height()});

    const int w = input.width(), h = input.height();
    auto at = [&](int x, int y) { return int(input(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1))); };
    auto blur_x = [&](int x, int y) { return (at(x - 1, y) + at(x, y) + at(x + 1, y)) / 3; };
    return count_differences(aot, jit, [&](const int* p) {
        return uint16_t((blur_x(p[0], p[1] - 1) + blur_x(p[0], p[1]) + blur_x(p[0], p[1] + 1)) / 3);
    });
}

int check_unsharp(const std::string& app, const std::string& image, const std::string& dir, int radius,
                  float amount, int threshold) {
    Buffer<uint8_t> input = load_image<uint8_t>(image);
    Buffer<uint8_t> aot = run_app(app, input, dir, std::to_string(amount) + " " + std::to_string(threshold));

    auto generator = UnsharpGenerator::create(GeneratorContext(get_host_target()));
    generator->set_generator_param_values({{"radius", std::to_string(radius)}});
    Pipeline pipeline = generator->build_pipeline();
    generator->input.set(input);
    generator->amount.set(amount);
    generator->threshold.set(threshold);
    Buffer<uint8_t> jit = pipeline.realize({input.width(), input.height(), input.channels()});

    const int w = input.width(), h = input.height();
    auto at = [&](int x, int y, int c) {
        return int(input(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1), c));
    };
    return count_differences(aot, jit, [&](const int* p) {
        int column = 0;
        for (int j = -radius; j <= radius; j++) {
            int row = 0;
            for (int i = -radius; i <= radius; i++) row += at(p[0] + i, p[1] + j, p[2]);
            column += row;
        }
        const float mean = float(column) / float((2 * radius + 1) * (2 * radius + 1));
        const float original = float(input(p[0], p[1], p[2]));
        const float difference = original - mean;
        const float sharpened =
            std::abs(difference) > float(threshold) ? original + amount * difference : original;
        return uint8_t(std::clamp(sharpened + 0.5f, 0.0f, 255.0f));
    });
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string which = argc > 1 ? argv[1] : "";
        if (which == "blur" && argc == 5) return check_blur(argv[2], argv[3], argv[4]) == 0 ? 0 : 1;
        if (which == "unsharp" && argc == 8)
            return check_unsharp(argv[2], argv[3], argv[4], std::atoi(argv[5]), std::strtof(argv[6], nullptr),
                                 std::atoi(argv[7])) == 0
                       ? 0
                       : 1;
        std::fprintf(stderr,
                     "usage: %s blur <blur_app> <image.png> <dir>\n"
                     "       %s unsharp <unsharp_app> <image.png> <dir> <radius> <amount> <threshold>\n",
                     argv[0], argv[0]);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
