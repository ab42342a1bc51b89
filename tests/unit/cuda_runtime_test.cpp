// The CUDA runtime against the fake driver of tests/gpu/fake_driver (device memory in host
// memory, launches recorded): loading the driver, device memory and its dirty flags, modules and
// launches, the errors each reports, the context handlers, the reuse of device blocks, and the C++
// buffers.
//
// The runtime keeps the driver once it has loaded it, so the first test, which needs there to be
// none yet, must run first in its process (ctest runs each test in a process of its own).

#include <dlfcn.h>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessera/buffer.h"
#include "tessera/runtime.h"
#include "tessera/runtime_buffer.h"
#include "tests/gpu/fake_driver/fake_cuda_driver.h"
#include "tests/unit/captured_errors.h"

namespace {

using tessera::test::CapturedErrors;

// Two kernels, for an sm_90 device.
const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry add_one(.param .u64 p0, .param .u32 p1) { ret; }\n"
    ".visible .entry other() { ret; }\n";

// A symbol of the fake driver, which this process shares with the runtime.
void* fake_symbol(const char* name) {
    void* library = dlopen(TESSERA_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(library, dlerror());
    void* symbol = dlsym(library, name);
    REQUIRE_MESSAGE(symbol, name);
    return symbol;
}

// The fake driver's state, with the runtime pointed at it (it loads the driver at first use).
FakeCudaState& fake() {
    setenv("TESSERA_CUDA_DRIVER", TESSERA_FAKE_CUDA_DRIVER, 1);
    return *reinterpret_cast<FakeCudaState* (*)()>(fake_symbol("fake_cuda_state"))();
}

void* fake_primary_context() {
    return reinterpret_cast<void* (*)()>(fake_symbol("fake_cuda_primary_context"))();
}

// Sets an environment variable (the fake driver's FAKE_CUDA_*) while it lives.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
    ~ScopedEnv() { unsetenv(name_); }

private:
    const char* name_;
};

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::string last_message(const CapturedErrors&) {
    return CapturedErrors::messages().empty() ? "(nothing reported)" : CapturedErrors::messages().back();
}

// A w x h buffer of floats with mins (-1, 3) over host memory of its own, freed from the device
// when it goes. Host element i holds i / 2.
struct RawFloats {
    std::vector<float> host;
    tessera_dimension_t dim[2];
    tessera_buffer_t buf{};

    RawFloats(int w, int h) : host(size_t(w * h)) {
        for (size_t i = 0; i < host.size(); i++) host[i] = float(i) * 0.5f;
        dim[0] = {-1, w, 1, 0};
        dim[1] = {3, h, w, 0};
        buf.host = reinterpret_cast<uint8_t*>(host.data());
        buf.type = {tessera_type_float, 32, 1};
        buf.dimensions = 2;
        buf.dim = dim;
    }
    RawFloats(const RawFloats&) = delete;
    ~RawFloats() { tessera_device_free(nullptr, &buf); }
    // The fake's device memory is host memory: the device copy, readable here.
    float* device() const { return reinterpret_cast<float*>(buf.device); }
};

const tessera_device_interface_t* cuda() { return tessera_cuda_device_interface(); }

int32_t initialize(void** state, const char* ptx = kPtx) {
    return tessera_cuda_initialize_kernels(nullptr, state, ptx, int32_t(std::string(ptx).size()));
}

int32_t run_other(void* state, int32_t shared_bytes = 0) {
    return tessera_cuda_run(nullptr, state, "other", 1, 1, 1, 1, 1, 1, shared_bytes, nullptr);
}

}  // namespace

TEST_CASE("a missing driver is tessera_error_no_cuda_driver with what to do, and loading is tried again") {
    REQUIRE_MESSAGE(dlopen(TESSERA_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD) == nullptr,
                    "the driver is loaded already: run this test first in its process");
    CapturedErrors errors;
    RawFloats b(4, 2);
    {
        ScopedEnv driver("TESSERA_CUDA_DRIVER", "/nonexistent/libcuda.so.1");
        CHECK(tessera_copy_to_device(nullptr, &b.buf, cuda()) == tessera_error_no_cuda_driver);
        const std::string m = last_message(errors);
        CHECK_MESSAGE(contains(m, "cannot load the driver library /nonexistent/libcuda.so.1"), m);
        CHECK_MESSAGE(contains(m, "Install the NVIDIA driver"), m);
        CHECK(b.buf.device == 0);
    }
    {
        ScopedEnv driver("TESSERA_CUDA_DRIVER", "libm.so.6");
        CHECK(tessera_copy_to_device(nullptr, &b.buf, cuda()) == tessera_error_no_cuda_driver);
        const std::string m = last_message(errors);
        CHECK_MESSAGE(contains(m, "libm.so.6 has no entry point cuInit"), m);
    }
    // The query for Target("host-cuda") says the same and reports nothing.
    const size_t reported = CapturedErrors::messages().size();
    int32_t capability = -1;
    {
        ScopedEnv driver("TESSERA_CUDA_DRIVER", "/nonexistent/libcuda.so.1");
        CHECK(tessera_cuda_device_capability(&capability) == tessera_error_no_cuda_driver);
    }
    CHECK(capability == -1);
    CHECK(CapturedErrors::messages().size() == reported);

    FakeCudaState& f = fake();
    CHECK(tessera_cuda_device_capability(&capability) == 0);
    CHECK(capability == 90);
    CHECK(tessera_copy_to_device(nullptr, &b.buf, cuda()) == 0);
    CHECK(b.buf.device != 0);
    CHECK(f.init_calls == 1);
}

TEST_CASE("tessera_cuda_device_capability says why there is no device and reports nothing") {
    FakeCudaState& f = fake();
    CapturedErrors errors;
    int32_t capability = -1;
    {
        ScopedEnv no_devices("FAKE_CUDA_DEVICE_COUNT", "0");
        CHECK(tessera_cuda_device_capability(&capability) == tessera_error_no_cuda_device);
    }
    {
        ScopedEnv failing("FAKE_CUDA_FAIL", "cuDeviceGetAttribute:1");
        CHECK(tessera_cuda_device_capability(&capability) == tessera_error_cuda_call_failed);
    }
    CHECK(capability == -1);
    CHECK(CapturedErrors::messages().empty());
    ScopedEnv older("FAKE_CUDA_CAPABILITY", "86");
    CHECK(tessera_cuda_device_capability(&capability) == 0);
    CHECK(capability == 86);
    CHECK(f.init_calls >= 1);
}

TEST_CASE("copy_to_device copies a new allocation or a dirty host, and copy_to_host only a dirty device") {
    FakeCudaState& f = fake();
    RawFloats b(5, 3);
    b.buf.flags = TESSERA_BUFFER_HOST_DIRTY;
    const int to_device = f.copies_to_device, to_host = f.copies_to_host;
    REQUIRE(tessera_copy_to_device(nullptr, &b.buf, cuda()) == 0);
    CHECK(b.buf.device != 0);
    CHECK(b.buf.device_interface == cuda());
    CHECK(b.buf.flags == 0);
    CHECK(f.copies_to_device == to_device + 1);
    for (size_t i = 0; i < b.host.size(); i++) CHECK_MESSAGE(b.device()[i] == b.host[i], "at " << i);

    // A clean host is not copied again; a dirty one is, with the interface the buffer has.
    b.host[7] = 100;
    REQUIRE(tessera_copy_to_device(nullptr, &b.buf, cuda()) == 0);
    CHECK(f.copies_to_device == to_device + 1);
    CHECK(b.device()[7] == 3.5f);
    b.buf.flags = TESSERA_BUFFER_HOST_DIRTY;
    REQUIRE(tessera_copy_to_device(nullptr, &b.buf, nullptr) == 0);
    CHECK(f.copies_to_device == to_device + 2);
    CHECK(b.device()[7] == 100);
    CHECK(b.buf.flags == 0);

    // copy_to_host does nothing unless the device is dirty.
    b.device()[2] = -5;
    REQUIRE(tessera_copy_to_host(nullptr, &b.buf) == 0);
    CHECK(b.host[2] == 1.0f);
    CHECK(f.copies_to_host == to_host);
    b.buf.flags = TESSERA_BUFFER_DEVICE_DIRTY;
    REQUIRE(tessera_copy_to_host(nullptr, &b.buf) == 0);
    CHECK(b.host[2] == -5);
    CHECK(b.buf.flags == 0);
    CHECK(f.copies_to_host == to_host + 1);

    CapturedErrors errors;
    b.buf.flags = TESSERA_BUFFER_HOST_DIRTY | TESSERA_BUFFER_DEVICE_DIRTY;
    CHECK(tessera_copy_to_device(nullptr, &b.buf, cuda()) == tessera_error_bad_argument);
    CHECK_MESSAGE(contains(last_message(errors), "dirty on both the host and the device"),
                  last_message(errors));

    b.buf.flags = TESSERA_BUFFER_DEVICE_DIRTY;
    REQUIRE(tessera_device_free(nullptr, &b.buf) == 0);
    CHECK(b.buf.device == 0);
    CHECK(b.buf.device_interface == nullptr);
    CHECK(b.buf.flags == 0);
    CHECK(f.context_pushes == f.context_pops);
}

TEST_CASE("a buffer with a negative stride has its whole span on the device") {
    fake();
    std::vector<float> host = {0, 1, 2, 3, 4, 5};
    tessera_dimension_t dim = {0, 6, -1, 0};
    tessera_buffer_t buf{};
    buf.host = reinterpret_cast<uint8_t*>(&host[5]);  // x = 0 is the last element in memory
    buf.type = {tessera_type_float, 32, 1};
    buf.dimensions = 1;
    buf.dim = &dim;
    // The fake refuses copies outside an allocation, so a wrong span fails here.
    REQUIRE(tessera_copy_to_device(nullptr, &buf, cuda()) == 0);
    const float* device = reinterpret_cast<const float*>(buf.device);
    for (int x = 0; x < 6; x++) CHECK_MESSAGE(device[-x] == float(5 - x), "at x = " << x);
    REQUIRE(tessera_device_free(nullptr, &buf) == 0);
}

TEST_CASE("a pipeline's PTX is loaded once per context however many kernels it launches") {
    FakeCudaState& f = fake();
    static void* state = nullptr;  // static, as a pipeline's is
    const int loads = f.module_loads, launches = f.launches;
    REQUIRE(initialize(&state) == 0);
    REQUIRE(state != nullptr);
    REQUIRE(initialize(&state) == 0);
    for (int i = 0; i < 3; i++) REQUIRE(run_other(state) == 0);
    CHECK(f.module_loads == loads + 1);
    CHECK(f.launches == launches + 3);
    CHECK(f.last_module_context == fake_primary_context());
}

TEST_CASE("a launch hands its grid, blocks, shared memory and arguments to the driver") {
    FakeCudaState& f = fake();
    static void* state = nullptr;
    REQUIRE(initialize(&state) == 0);
    RawFloats b(8, 2);
    REQUIRE(tessera_copy_to_device(nullptr, &b.buf, cuda()) == 0);
    uint64_t address = b.buf.device;
    int32_t count = 16;
    void* args[] = {&address, &count};
    const int syncs = f.synchronizes;
    REQUIRE(tessera_cuda_run(nullptr, state, "add_one", 3, 2, 1, 32, 4, 2, 1024, args) == 0);
    CHECK(std::string(f.last_entry) == "add_one");
    CHECK(f.last_grid[0] == 3);
    CHECK(f.last_grid[1] == 2);
    CHECK(f.last_grid[2] == 1);
    CHECK(f.last_block[0] == 32);
    CHECK(f.last_block[1] == 4);
    CHECK(f.last_block[2] == 2);
    CHECK(f.last_shared_bytes == 1024);
    CHECK(f.last_params == args);
    CHECK(f.last_launch_context == fake_primary_context());
    CHECK(f.synchronizes == syncs + 1);
    // The fake's add_one ran on the device memory; the host sees it once the device is dirty.
    b.buf.flags = TESSERA_BUFFER_DEVICE_DIRTY;
    REQUIRE(tessera_copy_to_host(nullptr, &b.buf) == 0);
    for (size_t i = 0; i < b.host.size(); i++) CHECK_MESSAGE(b.host[i] == float(i) * 0.5f + 1, "at " << i);

    // Beyond 48 KiB of shared memory the kernel must be allowed it first, up to the device's limit.
    const int sets = f.function_attribute_sets;
    REQUIRE(run_other(state, 100 * 1024) == 0);
    CHECK(f.function_attribute_sets == sets + 1);
    CHECK(f.last_max_dynamic_shared_bytes == 100 * 1024);
    CapturedErrors errors;
    CHECK(run_other(state, 300 * 1024) == tessera_error_cuda_call_failed);
    const std::string m = last_message(errors);
    CHECK_MESSAGE(contains(m, "cuFuncSetAttribute for kernel other failed: CUDA_ERROR_INVALID_VALUE"), m);
    CHECK_MESSAGE(
        contains(m, "asks for 307200 bytes of shared memory per block and the device allows 232448"), m);
}

TEST_CASE("a failing launch reports the driver call, the kernel and the driver's error") {
    FakeCudaState& f = fake();
    static void* state = nullptr;
    REQUIRE(initialize(&state) == 0);
    CapturedErrors errors;
    {
        ScopedEnv failing("FAKE_CUDA_FAIL", "cuLaunchKernel:701");
        CHECK(run_other(state) == tessera_error_cuda_call_failed);
        const std::string m = last_message(errors);
        CHECK_MESSAGE(
            contains(m,
                     "CUDA: cuLaunchKernel for kernel other failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES "
                     "(too many resources requested for launch)"),
            m);
        CHECK_MESSAGE(contains(m, "schedule fewer GPU threads per block"), m);
    }
    {
        ScopedEnv failing("FAKE_CUDA_FAIL", "cuCtxSynchronize:719");
        CHECK(run_other(state) == tessera_error_cuda_call_failed);
        const std::string m = last_message(errors);
        CHECK_MESSAGE(contains(m, "cuCtxSynchronize for kernel other failed: CUDA_ERROR_LAUNCH_FAILED"), m);
        CHECK_MESSAGE(contains(m, "The kernel failed while it ran"), m);
    }
    {
        ScopedEnv failing("FAKE_CUDA_FAIL", "cuLaunchKernel:999");
        CHECK(run_other(state) == tessera_error_cuda_call_failed);
        CHECK_MESSAGE(contains(last_message(errors), "failed: CUDA error 999"), last_message(errors));
    }
    CHECK(tessera_cuda_run(nullptr, state, "no_such_kernel", 1, 1, 1, 1, 1, 1, 0, nullptr) ==
          tessera_error_cuda_call_failed);
    CHECK_MESSAGE(contains(last_message(errors),
                           "cuModuleGetFunction for kernel no_such_kernel failed: "
                           "CUDA_ERROR_NOT_FOUND"),
                  last_message(errors));
    CHECK(tessera_cuda_run(nullptr, state, "other", 0, 1, 1, 1, 1, 1, 0, nullptr) ==
          tessera_error_bad_argument);
    CHECK_MESSAGE(contains(last_message(errors), "(kernel other)"), last_message(errors));
    CHECK(f.context_pushes == f.context_pops);
}

TEST_CASE("PTX for a newer GPU than the device is tessera_error_cuda_device_too_old, naming both") {
    fake();
    static void* state = nullptr;
    CapturedErrors errors;
    {
        ScopedEnv older("FAKE_CUDA_CAPABILITY", "80");
        CHECK(initialize(&state) == tessera_error_cuda_device_too_old);
        const std::string m = last_message(errors);
        CHECK_MESSAGE(
            contains(m, "cuModuleLoadDataEx of the pipeline's kernels failed: CUDA_ERROR_NO_BINARY_FOR_GPU"),
            m);
        CHECK_MESSAGE(contains(m,
                               "The kernels were compiled for sm_90 but device 0 is sm_80: compile for "
                               "cuda_capability_80"),
                      m);
        CHECK_MESSAGE(contains(m, "the PTX targets a newer GPU than the device"), m);  // the driver's log
        CHECK(tessera_cuda_run(nullptr, state, "other", 1, 1, 1, 1, 1, 1, 0, nullptr) ==
              tessera_error_cuda_device_too_old);
    }
    // Nothing is remembered of the failure: on a device new enough the same state loads.
    CHECK(initialize(&state) == 0);

    static void* newer_ptx = nullptr;
    ScopedEnv failing("FAKE_CUDA_FAIL", "cuModuleLoadDataEx:222");
    CHECK(initialize(&newer_ptx) == tessera_error_cuda_device_too_old);
    const std::string m = last_message(errors);
    CHECK_MESSAGE(contains(m, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"), m);
    CHECK_MESSAGE(contains(m, "update the NVIDIA driver"), m);
}

namespace {

// An application's own context, counted.
struct AppContext {
    static inline char context = 0;
    static inline int acquires = 0;
    static inline int releases = 0;
    static inline int32_t fail_with = 0;

    static int32_t acquire(void* /*user_context*/, void** cu_context, int32_t create) {
        CHECK(create == 1);
        acquires++;
        if (fail_with) return fail_with;
        *cu_context = &context;
        return 0;
    }
    static int32_t release(void* /*user_context*/) {
        releases++;
        return 0;
    }
};

// Installs AppContext's handlers while it lives, and the defaults after.
class AppContextHandlers {
public:
    AppContextHandlers() { tessera_cuda_set_context_handlers(AppContext::acquire, AppContext::release); }
    ~AppContextHandlers() { tessera_cuda_set_context_handlers(nullptr, nullptr); }
};

}  // namespace

TEST_CASE("the application's context handlers replace the primary context, and the defaults come back") {
    FakeCudaState& f = fake();
    static void* state = nullptr;
    const int loads = f.module_loads;
    REQUIRE(initialize(&state) == 0);
    CHECK(f.last_module_context == fake_primary_context());
    {
        AppContextHandlers handlers;
        REQUIRE(initialize(&state) == 0);
        CHECK(f.module_loads == loads + 2);  // once more, in the application's context
        CHECK(f.last_module_context == &AppContext::context);
        REQUIRE(run_other(state) == 0);
        CHECK(f.last_launch_context == &AppContext::context);
        CHECK(f.module_loads == loads + 2);
        CHECK(AppContext::acquires >= 2);
        CHECK(AppContext::acquires == AppContext::releases);

        // A failing acquire's code comes back, and nothing is released.
        AppContext::fail_with = -1234;
        const int releases = AppContext::releases;
        CHECK(run_other(state) == -1234);
        CHECK(AppContext::releases == releases);
        AppContext::fail_with = 0;
    }
    const int acquires = AppContext::acquires;
    REQUIRE(run_other(state) == 0);
    CHECK(f.last_launch_context == fake_primary_context());
    CHECK(AppContext::acquires == acquires);
    CHECK(f.module_loads == loads + 2);
}

TEST_CASE("a freed device block is reused for the next request of its size, and released on request") {
    FakeCudaState& f = fake();
    tessera_cuda_release_unused_device_allocations();
    const int live = f.live_allocations, allocs = f.mem_allocs;
    uint64_t first = 0;
    {
        RawFloats a(10, 10);
        REQUIRE(tessera_device_malloc(nullptr, &a.buf, cuda()) == 0);
        first = a.buf.device;
        CHECK(f.mem_allocs == allocs + 1);
    }
    CHECK(f.live_allocations == live + 1);  // kept, not freed
    {
        RawFloats same_size(10, 10), larger(10, 11);
        REQUIRE(tessera_device_malloc(nullptr, &same_size.buf, cuda()) == 0);
        CHECK(same_size.buf.device == first);
        CHECK(f.mem_allocs == allocs + 1);
        REQUIRE(tessera_device_malloc(nullptr, &larger.buf, cuda()) == 0);
        CHECK(larger.buf.device != first);
        CHECK(f.mem_allocs == allocs + 2);
    }
    CHECK(f.live_allocations == live + 2);
    tessera_cuda_release_unused_device_allocations();
    CHECK(f.live_allocations == live);

    // A device out of memory first gives back the blocks kept, then reports the request.
    {
        RawFloats kept(4, 4);
        REQUIRE(tessera_device_malloc(nullptr, &kept.buf, cuda()) == 0);
    }
    CHECK(f.live_allocations == live + 1);
    CapturedErrors errors;
    ScopedEnv failing("FAKE_CUDA_FAIL", "cuMemAlloc_v2:2");
    RawFloats wanted(8, 8);
    CHECK(tessera_device_malloc(nullptr, &wanted.buf, cuda()) == tessera_error_out_of_memory);
    CHECK(f.live_allocations == live);
    CHECK_MESSAGE(contains(last_message(errors), "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY"),
                  last_message(errors));
    CHECK_MESSAGE(contains(last_message(errors), "of 256 bytes"), last_message(errors));
}

TEST_CASE(
    "tessera::Buffer's device calls move its data, free it with the last alias, and throw RuntimeError") {
    FakeCudaState& f = fake();
    tessera_cuda_release_unused_device_allocations();
    const int live = f.live_allocations;
    CapturedErrors errors;
    {
        tessera::Buffer<float> b(6, 4);
        b.for_each_element([&](int x, int y) { b(x, y) = float(x + 10 * y); });
        CHECK(!b.has_device_allocation());
        CHECK(b.copy_to_device() == 0);
        CHECK(b.has_device_allocation());
        CHECK(!b.host_dirty());
        float* device = reinterpret_cast<float*>(b.raw_buffer()->device);
        CHECK(device[7] == 11);

        // Aliases share the device memory and its flags.
        tessera::Buffer<float> alias = b;
        device[7] = 99;
        b.set_device_dirty();
        CHECK(alias.device_dirty());
        CHECK(alias.copy_to_host() == 0);
        CHECK(b(1, 1) == 99);
        CHECK(!b.device_dirty());
        b(2, 2) = -3;
        b.set_host_dirty();
        CHECK(b.copy_to_device() == 0);
        CHECK(device[14] == -3);

        b.set_device_dirty();
        {
            ScopedEnv failing("FAKE_CUDA_FAIL", "cuMemcpyDtoH_v2:1");
            CHECK_THROWS_AS(b.copy_to_host(), tessera::RuntimeError);
        }
        CHECK(b.device_dirty());  // the copy did not happen
        b.set_device_dirty(false);

        tessera::Buffer<float> c(100);
        ScopedEnv failing("FAKE_CUDA_FAIL", "cuMemAlloc_v2:2");
        std::string what;
        try {
            c.copy_to_device();
        } catch (const tessera::RuntimeError& e) {
            what = e.what();
        }
        CHECK_MESSAGE(contains(what, "Error: CUDA: cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY"), what);
        CHECK_MESSAGE(contains(what, "of 400 bytes"), what);
        CHECK(!c.has_device_allocation());
        CHECK(f.live_allocations == live + 1);
    }
    // The last alias gave the memory back (kept for reuse until released).
    tessera_cuda_release_unused_device_allocations();
    CHECK(f.live_allocations == live);
}

TEST_CASE("Runtime::Buffer copies share device memory, crops move within it, and the last copy frees it") {
    FakeCudaState& f = fake();
    tessera_cuda_release_unused_device_allocations();
    const int live = f.live_allocations;
    {
        tessera::Runtime::Buffer<int> a(5, 3);
        a.fill([](int x, int y) { return x + 10 * y; });
        REQUIRE(a.copy_to_device() == 0);
        CHECK(a.has_device_allocation());
        tessera::Runtime::Buffer<int> b = a.cropped(0, 2, 3);
        CHECK(b.raw_buffer()->device == a.raw_buffer()->device + 2 * sizeof(int));
        reinterpret_cast<int*>(b.raw_buffer()->device)[0] = -7;
        b.set_device_dirty();
        CHECK(!a.device_dirty());  // flags are each copy's own, as in Halide
        REQUIRE(b.copy_to_host() == 0);
        CHECK(a(2, 0) == -7);

        a = tessera::Runtime::Buffer<int>();
        tessera_cuda_release_unused_device_allocations();
        CHECK(f.live_allocations == live + 1);  // b still holds it
    }
    tessera_cuda_release_unused_device_allocations();
    CHECK(f.live_allocations == live);

    // Device memory given through the raw buffer, as a pipeline gives it, is the buffer's to free.
    {
        tessera::Runtime::Buffer<int> p(7);
        REQUIRE(tessera_device_malloc(nullptr, p.raw_buffer(), cuda()) == 0);
        tessera::Runtime::Buffer<int> q = p;
        CHECK(q.has_device_allocation());
    }
    tessera_cuda_release_unused_device_allocations();
    CHECK(f.live_allocations == live);

    // A wrapped tessera_buffer_t's device memory stays its owner's.
    RawFloats raw(3, 3);
    REQUIRE(tessera_device_malloc(nullptr, &raw.buf, cuda()) == 0);
    { tessera::Runtime::Buffer<float> wrapped(raw.buf); }
    tessera_cuda_release_unused_device_allocations();
    CHECK(f.live_allocations == live + 1);
}
