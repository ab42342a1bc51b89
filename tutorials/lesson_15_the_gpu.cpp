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
//      a buffer passed to realize() keeps the result on the device until copy_to_host();
//   5. schedules a matrix product with register tiles: each thread keeps a 4 x 4 tile of sums in
//      registers while it walks k, and at each step of k all the block's threads together stage
//      the tiles of the inputs that the block reads in shared memory. A Func computed inside each
//      thread's code with gpu_threads loops of its own is computed that way (TVM's cooperative
//      fetching): every thread of the block takes its part, and barriers keep them in step.

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

// C = A B (Halide's order of dimensions: A(k, y), B(x, k)), with each thread's tile of sums in
// registers and the block's tiles of A and B in shared memory.
int matrix_product_differences() {
    const int n = 100, depth = 70;
    Buffer<float> a(depth, n), b(n, depth);
    for (int y = 0; y < a.height(); y++)
        for (int x = 0; x < a.width(); x++) a(x, y) = float((x * 7 + y * 3) % 11) - 5.0f;
    for (int y = 0; y < b.height(); y++)
        for (int x = 0; x < b.width(); x++) b(x, y) = float((x * 5 + y) % 13) - 6.0f;
    Func a_tile("a_tile"), b_tile("b_tile"), sums("sums"), c("c");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), xt("xt"), yt("yt"), xr("xr"), yr("yr"),
        s("s");
    RVar ko("ko"), ki("ki");
    RDom k(0, depth, "k");
    // The tiles are clamped copies: a block's last register tiles run past C's edge.
    a_tile(x, y) = a(x, clamp(y, 0, n - 1));
    b_tile(x, y) = b(clamp(x, 0, n - 1), y);
    sums(x, y) = 0.0f;
    sums(x, y) += a_tile(k, y) * b_tile(x, k);
    c(x, y) = sums(x, y);
    const Buffer<float> expected = c.realize({n, n});

    // 64 x 64 outputs per block, 16 x 16 threads, a 4 x 4 tile each.
    c.tile(x, y, xo, yo, xi, yi, 64, 64, TailStrategy::GuardWithIf)
        .tile(xi, yi, xt, yt, xr, yr, 4, 4)
        .gpu_blocks(xo, yo)
        .gpu_threads(xt, yt);
    // Per thread, in registers (its extent is the thread's tile, unrolled), over steps of 16 of k.
    sums.compute_at(c, xt).bound_extent(x, 4).bound_extent(y, 4).unroll(x).unroll(y);
    sums.update().split(k, ko, ki, 16, TailStrategy::GuardWithIf).reorder(x, y, ki, ko).unroll(x).unroll(y);
    // At each step, the 16 x 64 values of A and 64 x 16 of B the block reads, computed inside each
    // thread's loop over ko but on thread loops of their own: by all the block's threads together.
    a_tile.compute_at(sums, ko).split(y, yt, s, 4).reorder(s, x, yt).gpu_threads(x, yt);
    b_tile.compute_at(sums, ko).split(x, s, xt, 16).reorder(s, xt, y).gpu_threads(xt, y);
    c.print_loop_nest();
    const Buffer<float> emulated = c.realize({n, n}, Target("host-gpu_emulation"));
    int differences = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) differences += emulated(i, j) != expected(i, j);
    return differences;
}

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
    } else {
        Buffer<uint16_t> on_gpu(w, h);
        gpu.blur_y.realize(on_gpu, Target("host-cuda"));
        on_gpu.copy_to_host();  // the result was left on the device
        const int wrong_on_gpu = count_differences(on_gpu, expected);
        std::printf("on the GPU (sm_%d): %d of %d pixels differ from the default schedule\n", capability,
                    wrong_on_gpu, w * h);
        if (wrong_on_gpu) return 1;
    }

    // 5. Register tiles, and tiles staged by all the block's threads together.
    const int differences = matrix_product_differences();
    std::printf("matrix product with register tiles, emulated: %d of %d values differ\n", differences,
                100 * 100);
    return differences ? 1 : 0;
}
