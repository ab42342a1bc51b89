// Libraries written by generators during the build (add_tessera_library), linked as an application
// links them, with only <tessera/runtime.h>: each is checked against plain C++ on random inputs
// whose sizes do not divide the schedules' splits.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gen_blur.h"
#include "gen_blur_default.h"
#include "gen_scale.h"
#ifdef TESSERA_TEST_MULTITARGET
#include "gen_blur_multitarget.h"
#endif

namespace {

// Dense memory with dimension 0 innermost, and its tessera_buffer_t.
template <typename T>
struct Image {
    std::vector<T> data;
    std::vector<tessera_dimension_t> dims;
    tessera_buffer_t buffer{};

    Image(std::vector<int> extents) {
        int stride = 1;
        for (int extent : extents) {
            dims.push_back({0, extent, stride, 0});
            stride *= extent;
        }
        data.resize(size_t(stride));
        buffer.host = reinterpret_cast<uint8_t*>(data.data());
        buffer.type.code = std::is_floating_point_v<T> ? tessera_type_float
                           : std::is_signed_v<T>       ? tessera_type_int
                                                       : tessera_type_uint;
        buffer.type.bits = uint8_t(8 * sizeof(T));
        buffer.type.lanes = 1;
        buffer.dimensions = int32_t(dims.size());
        buffer.dim = dims.data();
    }
    T& operator()(int x, int y = 0) { return data[size_t(x + y * dims[0].extent)]; }
    tessera_buffer_t* raw() { return &buffer; }
};

uint16_t blurred(Image<uint16_t>& in, int x, int y, int radius, float gain) {
    const int w = in.dims[0].extent, h = in.dims[1].extent;
    float sum_y = 0.0f;
    for (int dy = -radius; dy <= radius; dy++) {
        float sum_x = 0.0f;
        for (int dx = -radius; dx <= radius; dx++)
            sum_x += float(in(std::clamp(x + dx, 0, w - 1), std::clamp(y + dy, 0, h - 1)));
        sum_y += sum_x;
    }
    const int taps = (2 * radius + 1) * (2 * radius + 1);
    return uint16_t(std::clamp(sum_y * gain / float(taps) + 0.5f, 0.0f, 65535.0f));
}

std::string last_error;
void capture(void*, const char* message) { last_error = message; }

}  // namespace

TEST_CASE("a blur generated with radius=2 and one with the default radius match plain C++") {
    const int width = 67, height = 43;  // neither divides the 32 x 8 tiles
    std::mt19937 rng(3);
    Image<uint16_t> in({width, height});
    for (uint16_t& v : in.data) v = uint16_t(rng() % 60000);
    Image<uint16_t> out2({width, height}), out1({width, height});
    REQUIRE(gen_blur(in.raw(), 0.75f, out2.raw()) == 0);
    REQUIRE(gen_blur_default(in.raw(), 0.75f, out1.raw()) == 0);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            // The float sums may associate differently from the reference's: allow one unit.
            CHECK_MESSAGE(std::abs(int(out2(x, y)) - int(blurred(in, x, y, 2, 0.75f))) <= 1,
                          "radius 2 at (" << x << ", " << y << ")");
            CHECK_MESSAGE(std::abs(int(out1(x, y)) - int(blurred(in, x, y, 1, 0.75f))) <= 1,
                          "radius 1 at (" << x << ", " << y << ")");
        }
    }
}

#ifdef TESSERA_TEST_MULTITARGET
TEST_CASE("a library for several targets gives what the library for the host gives") {
    const int width = 45, height = 19;
    std::mt19937 rng(11);
    Image<uint16_t> in({width, height});
    for (uint16_t& v : in.data) v = uint16_t(rng() % 60000);
    Image<uint16_t> host({width, height}), multi({width, height});
    REQUIRE(gen_blur(in.raw(), 1.25f, host.raw()) == 0);
    REQUIRE(gen_blur_multitarget(in.raw(), 1.25f, multi.raw()) == 0);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            CHECK_MESSAGE(std::abs(int(multi(x, y)) - int(blurred(in, x, y, 2, 1.25f))) <= 1,
                          "at (" << x << ", " << y << ")");
}
#endif

TEST_CASE("a generator's function name, Outputs in order, and an Output assigned a Func") {
    const int n = 29;
    Image<int32_t> in({n}), scaled({n}), negated({n});
    for (int i = 0; i < n; i++) in(i) = i * 7 - 50;
    REQUIRE(scale_by_three(in.raw(), 11, scaled.raw(), negated.raw()) == 0);
    for (int i = 0; i < n; i++) {
        CHECK(scaled(i) == (i * 7 - 50) * 3 + 11);
        CHECK(negated(i) == -((i * 7 - 50) * 3 + 11));
    }
}

TEST_CASE("an Input's range is checked by the generated code") {
    tessera_error_handler_t previous = tessera_set_error_handler(capture);
    Image<uint16_t> in({8, 8}), out({8, 8});
    CHECK(gen_blur(in.raw(), 5.0f, out.raw()) == tessera_error_param_out_of_range);
    CHECK(last_error.find("gain") != std::string::npos);
    tessera_set_error_handler(previous);
}
