// Lesson 15: the GPU.
//
// The same algorithm, scheduled for an NVIDIA GPU: the output's loops become a grid of blocks of
// threads (gpu_tile), and a producer computed at the block loop lives in the block's shared memory,
// computed by the block's threads together (gpu_threads), with a barrier before anyone reads it.
// This lesson:
//
//   1. schedules a 3x3 blur for the GPU and prints its loop nest;
//   2. runs it in emulation (the target feature gpu_emulation: blocks in turn on the CPU, each
//      block's threads split at its barriers), which checks its values on any machine;
//   3. writes the kernels' PTX (compile_to_assembly writes blur.s and blur.ptx) and names them;
//   4. runs it on the GPU when there is one ("host-cuda": the host's CPU, the device's GPU), where
//      a buffer passed to realize() keeps the result on the device until copy_to_host().

#include <tessera/runtime.h>
#include <tessera/tessera.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace tessera;

namespace {

struct Blur {
    Func blur_x{"blur_x"}, blur_y{"blur_y"};
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};

    explicit Blur(const Buffer<uint16_t>& input) {
        Func clamped = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = cast<uint16_t>((cast<int>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
        blur_y(x, y) = cast<uint16_t>((cast<int>(blur_x(x, y - 1)) + blur_x(x, y) + blur_x(x, y + 1)) / 3);
    }

    void schedule_for_the_gpu() {
        // Blocks of 32 x 8 threads, one output pixel each; the edge blocks guard their threads.
        blur_y.gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        // Per block, the 32 x 10 rows of blur_x that its 32 x 8 outputs read, in shared memory,
        // computed by the block's threads (10 rows of them; the extra two idle in blur_y).
        blur_x.compute_at(blur_y, xo).gpu_threads(x, y);
    }
};

int count_differences(const Buffer<uint16_t>& a, const Buffer<uint16_t>& b) {
    int differences = 0;
    for (int y = 0; y < a.height(); y++)
        for (int x = 0; x < a.width(); x++) differences += a(x, y) != b(x, y);
    return differences;
}

}  // namespace

int main() {
    Buffer<uint16_t> input = load_image<uint16_t>("apps/images/gray16.png");
    const int w = input.width(), h = input.height();

    Blur plain(input);
    const Buffer<uint16_t> expected = plain.blur_y.realize({w, h});

    // 1. The schedule, as loops: blocks and threads, blur_x inside the block.
    Blur gpu(input);
    gpu.schedule_for_the_gpu();
    gpu.blur_y.print_loop_nest();

    // 2. Emulated on the CPU: the bits of the default schedule.
    const Buffer<uint16_t> emulated = gpu.blur_y.realize({w, h}, Target("host-gpu_emulation"));
    const int wrong = count_differences(emulated, expected);
    std::printf("emulated on the CPU: %d of %d pixels differ from the default schedule\n", wrong, w * h);
    if (wrong) return 1;

    // 3. The kernels' PTX, for an sm_80 GPU (an A100's), beside the host's assembly.
    const char* dir = std::getenv("TESSERA_OUTPUT_DIR");
    const std::string base = std::string(dir ? dir : ".") + "/lesson_15_blur";
    gpu.blur_y.compile_to_assembly(base + ".s", {}, "blur", Target("host-cuda-cuda_capability_80"));
    std::ifstream ptx(base + ".ptx");
    int kernels = 0;
    for (std::string line; std::getline(ptx, line);) {
        if (line.find(".entry") == std::string::npos) continue;
        std::printf("PTX kernel: %s\n", line.c_str());
        kernels++;
    }
    if (kernels != 1) return 1;

    // 4. On the GPU, when this machine has one.
    int32_t capability = 0;
    if (tessera_cuda_device_capability(&capability) != 0) {
        std::printf("no CUDA device here: the run on the GPU is left out\n");
        return 0;
    }
    Buffer<uint16_t> on_gpu(w, h);
    gpu.blur_y.realize(on_gpu, Target("host-cuda"));
    on_gpu.copy_to_host();  // the result was left on the device
    const int wrong_on_gpu = count_differences(on_gpu, expected);
    std::printf("on the GPU (sm_%d): %d of %d pixels differ from the default schedule\n", capability,
                wrong_on_gpu, w * h);
    return wrong_on_gpu ? 1 : 0;
}
