// The host's side of GPU pipelines, against the fake driver of tests/gpu/fake_driver (which records
// launches and copies but runs no kernel, so no value is checked here; gpu/ checks values): the
// lowered host code launches outlined kernels with the schedule's grid, copies each buffer once
// each way as the dirty flags say, gives intermediates that kernels use device memory, loads the
// PTX once, and reports a failing driver call as a RuntimeError naming the call and the kernel.

#include <dlfcn.h>

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <tessera/tessera.h>

#include "tests/correctness/blur_reference.h"
#include "tests/gpu/fake_driver/fake_cuda_driver.h"

using namespace tessera;
using namespace blur_reference;

namespace {

FakeCudaState& fake() {
    setenv("TESSERA_CUDA_DRIVER", TESSERA_FAKE_CUDA_DRIVER, 1);
    void* library = dlopen(TESSERA_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(library, dlerror());
    void* symbol = dlsym(library, "fake_cuda_state");
    REQUIRE(symbol);
    return *reinterpret_cast<FakeCudaState* (*)()>(symbol)();
}

const Target gpu("host-cuda-cuda_capability_80");

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::string lowered_text(Func f, const Target& target) {
    const std::string path = "gpu_launch_test_" + f.name() + ".stmt";
    f.compile_to_lowered_stmt(path, {}, StmtOutputFormat::Text, target);
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("a kernel is outlined into a launch with the copies its buffers need") {
    Buffer<uint16_t> in = random_image(67, 45, 1);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 16, 8,
                         TailStrategy::GuardWithIf);
    blur.blur_x.compute_root();
    const std::string host = lowered_text(blur.blur_y, gpu);
    CHECK_MESSAGE(contains(host, "gpu_launch(\"blur_y_kernel0\""), host);
    // blur_x is computed on the host and read by the kernel: it has memory on both sides.
    CHECK_MESSAGE(contains(host, "copy_to_host(blur_x.buffer)"), host);
    CHECK_MESSAGE(contains(host, "set_host_dirty(blur_x.buffer)"), host);
    CHECK_MESSAGE(contains(host, "copy_to_device(blur_x.buffer, (bool)1)"), host);
    CHECK_MESSAGE(contains(host, "set_device_dirty(blur_y.buffer)"), host);
    CHECK_MESSAGE(!contains(host, "gpu_block"), "a GPU loop stayed in the host's code:\n" << host);
    // In emulation nothing is outlined.
    const std::string emulated = lowered_text(blur.blur_y, Target("host-gpu_emulation"));
    CHECK_MESSAGE(!contains(emulated, "gpu_launch"), emulated);
}

TEST_CASE("a GPU pipeline launches its kernel with the schedule's grid and copies each buffer once") {
    FakeCudaState& state = fake();
    Buffer<uint16_t> in = random_image(67, 45, 2);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 16, 8,
                         TailStrategy::GuardWithIf);
    const int launches = state.launches, loads = state.module_loads;
    const int to_device = state.copies_to_device, to_host = state.copies_to_host;
    Buffer<uint16_t> out = blur.blur_y.realize({67, 45}, gpu);
    CHECK(state.launches == launches + 1);
    CHECK(std::string(state.last_entry) == "blur_y_kernel0");
    CHECK(state.last_grid[0] == 5);  // ceil(67 / 16)
    CHECK(state.last_grid[1] == 6);  // ceil(45 / 8)
    CHECK(state.last_grid[2] == 1);
    CHECK(state.last_block[0] == 16);
    CHECK(state.last_block[1] == 8);
    CHECK(state.last_block[2] == 1);
    CHECK(state.module_loads == loads + 1);
    CHECK(state.copies_to_device == to_device + 1);  // the input
    CHECK(state.copies_to_host == to_host + 1);      // the output, for realize()
    CHECK(out.has_device_allocation());
    CHECK_FALSE(out.device_dirty());

    // Again, into that buffer: the module is loaded, the input's device copy is current, and the
    // result stays on the device.
    blur.blur_y.realize(out, gpu);
    CHECK(state.launches == launches + 2);
    CHECK(state.module_loads == loads + 1);
    CHECK(state.copies_to_device == to_device + 1);
    CHECK(state.copies_to_host == to_host + 1);
    CHECK(out.device_dirty());
    out.copy_to_host();
    CHECK(state.copies_to_host == to_host + 2);
    // Until the host writes it.
    in.set_host_dirty();
    blur.blur_y.realize(out, gpu);
    CHECK(state.copies_to_device == to_device + 2);
}

TEST_CASE("an intermediate that only kernels use has device memory alone, freed after the pipeline") {
    FakeCudaState& state = fake();
    {
        Buffer<uint16_t> in = random_image(40, 30, 3);
        Blur blur(in);
        blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 8, 8,
                             TailStrategy::GuardWithIf);
        blur.blur_x.compute_root().gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 8, 8,
                                            TailStrategy::GuardWithIf);
        const int launches = state.launches, to_device = state.copies_to_device;
        const int to_host = state.copies_to_host;
        Buffer<uint16_t> out = blur.blur_y.realize({40, 30}, gpu);
        CHECK(state.launches == launches + 2);
        CHECK(state.copies_to_device == to_device + 1);  // the input; blur_x is never on the host
        CHECK(state.copies_to_host == to_host + 1);      // the output
        const std::string host = lowered_text(blur.blur_y, gpu);
        CHECK_MESSAGE(!contains(host, "copy_to_host(blur_x.buffer)"), host);
    }
    // Every buffer is gone: no device memory is left but what the runtime keeps for reuse.
    tessera_cuda_release_unused_device_allocations();
    CHECK(state.live_allocations == 0);
}

TEST_CASE("a kernel with more than 48 KiB of shared memory asks for it at launch, and opts in to it") {
    FakeCudaState& state = fake();
    Func f("f"), g("g");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), fo("fo"), fi("fi");
    f(x, y) = cast<double>(x + y);
    g(x, y) = f(x, y) + f(x + 100, y);  // a tile of f 116 wide by 64 rows: 59,392 bytes
    g.gpu_tile(x, y, xo, yo, xi, yi, 16, 64, TailStrategy::GuardWithIf);
    f.compute_at(g, xo).split(x, fo, fi, 16).gpu_threads(fi);
    const int launches = state.launches, attribute_sets = state.function_attribute_sets;
    g.realize({40, 70}, gpu);
    CHECK(state.launches == launches + 1);
    CHECK(state.last_shared_bytes == 59392);
    CHECK(state.function_attribute_sets == attribute_sets + 1);
    CHECK(state.last_max_dynamic_shared_bytes == 59392);
}

TEST_CASE("a failing launch is a RuntimeError naming the driver call and the kernel") {
    FakeCudaState& state = fake();
    std::string message;
    {
        Buffer<uint16_t> in = random_image(20, 10, 4);
        Blur blur(in);
        blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 8, 8,
                             TailStrategy::GuardWithIf);
        blur.blur_x.compute_root().gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 8, 8,
                                            TailStrategy::GuardWithIf);
        setenv("FAKE_CUDA_FAIL", "cuLaunchKernel:701", 1);
        try {
            blur.blur_y.realize({20, 10}, gpu);
        } catch (const RuntimeError& e) {
            message = e.what();
        }
        unsetenv("FAKE_CUDA_FAIL");
    }
    CHECK_MESSAGE(contains(message, "cuLaunchKernel"), message);
    CHECK_MESSAGE(contains(message, "blur_x_kernel0"), message);
    // The intermediate's device memory was given back on the way out.
    tessera_cuda_release_unused_device_allocations();
    CHECK(state.live_allocations == 0);
}

TEST_CASE("without a CUDA driver a GPU pipeline is a RuntimeError that says what to install") {
    // The runtime keeps a driver it has loaded: ctest runs each test in a process of its own.
    REQUIRE_MESSAGE(dlopen(TESSERA_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD) == nullptr,
                    "the driver is loaded already: run this test alone in its process");
    setenv("TESSERA_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    Buffer<uint16_t> in = random_image(20, 10, 5);
    Blur blur(in);
    blur.blur_y.gpu_tile(blur.x, blur.y, blur.xo, blur.yo, blur.xi, blur.yi, 8, 8, TailStrategy::GuardWithIf);
    std::string message;
    try {
        blur.blur_y.realize({20, 10}, gpu);
    } catch (const RuntimeError& e) {
        message = e.what();
    }
    CHECK_MESSAGE(contains(message, "Install the NVIDIA driver"), message);
}
