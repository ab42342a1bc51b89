// Several ahead-of-time libraries linked into one program with no LLVM and no Tessera compiler,
// each checked against plain C++ on random inputs whose sizes do not divide the schedules' splits.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "apply_lut.h"
#include "brighten.h"
#include "row_stats.h"
#include "saxpy.h"
#include "tessera/runtime_buffer.h"

using tessera::Runtime::Buffer;

namespace {

template <typename T>
Buffer<T> random_buffer(std::mt19937& rng, int width, int height, T lo, T hi) {
    Buffer<T> b(width, height);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<T> dist(lo, hi);
        b.for_each_value([&](T& v) { v = dist(rng); });
    } else {
        std::uniform_int_distribution<int> dist(lo, hi);
        b.for_each_value([&](T& v) { v = T(dist(rng)); });
    }
    return b;
}

uint16_t brighten_reference(uint16_t in, float gain, int16_t offset, bool invert) {
    float v = float(in) * gain + float(offset);
    if (invert) v = 65535.0f - v;
    return uint16_t(std::clamp(v, 0.0f, 65535.0f));
}

}  // namespace

TEST_CASE("a tiled, vectorized, parallel pipeline with scalar arguments matches C++") {
    std::mt19937 rng(1);
    Buffer<uint16_t> input = random_buffer<uint16_t>(rng, 301, 117, 0, 65535);
    for (bool invert : {false, true}) {
        CAPTURE(invert);
        Buffer<uint16_t> output(301, 117);
        REQUIRE(brighten(input, 1.75f, int16_t(-300), invert, output) == 0);
        output.for_each_element([&](int x, int y) {
            REQUIRE(output(x, y) == brighten_reference(input(x, y), 1.75f, -300, invert));
        });
    }
}

TEST_CASE("an output that starts away from the origin reads the input at the same coordinates") {
    std::mt19937 rng(2);
    Buffer<uint16_t> input = random_buffer<uint16_t>(rng, 90, 70, 0, 65535);
    Buffer<uint16_t> output(37, 23);
    output.set_min(11, 29);
    REQUIRE(brighten(input, 0.5f, int16_t(7), false, output) == 0);
    output.for_each_element(
        [&](int x, int y) { REQUIRE(output(x, y) == brighten_reference(input(x, y), 0.5f, 7, false)); });
}

TEST_CASE("the runtime's thread pool gives the same bits with one thread and with several") {
    std::mt19937 rng(3);
    Buffer<uint16_t> input = random_buffer<uint16_t>(rng, 203, 301, 0, 65535);
    Buffer<uint16_t> one(203, 301), many(203, 301);
    const int previous = tessera_set_num_threads(1);
    REQUIRE(brighten(input, 3.0f, int16_t(11), false, one) == 0);
    tessera_set_num_threads(4);
    REQUIRE(brighten(input, 3.0f, int16_t(11), false, many) == 0);
    tessera_set_num_threads(previous);
    one.for_each_element([&](int x, int y) { REQUIRE(one(x, y) == many(x, y)); });
}

TEST_CASE("an input Buffer compiled into the library is used as it was when compiled") {
    std::mt19937 rng(4);
    Buffer<uint8_t> input = random_buffer<uint8_t>(rng, 77, 13, 0, 255);
    Buffer<uint8_t> output(77, 13);
    REQUIRE(apply_lut(input, output) == 0);
    output.for_each_element(
        [&](int x, int y) { REQUIRE(output(x, y) == uint8_t(input(x, y) * input(x, y) / 255)); });
}

TEST_CASE("a reduction over the input's width fills every element of a Tuple output") {
    std::mt19937 rng(5);
    Buffer<float> input = random_buffer<float>(rng, 53, 19, -10.0f, 10.0f);
    input.set_min(-5, 3);
    Buffer<float> sums(std::vector<int>{19}), maxima(std::vector<int>{19});
    sums.set_min(3);
    maxima.set_min(3);
    REQUIRE(row_stats(input, 0.25, sums, maxima) == 0);
    for (int y = 3; y < 3 + 19; y++) {
        float sum = 0.0f, maximum = -1e30f;
        for (int x = -5; x < -5 + 53; x++) {
            sum += input(x, y) * float(0.25);
            maximum = std::max(maximum, input(x, y));
        }
        CAPTURE(y);
        CHECK(sums(y) == sum);
        CHECK(maxima(y) == maximum);
    }
}

TEST_CASE("the argv entry point takes the same arguments as an array") {
    std::mt19937 rng(6);
    Buffer<uint16_t> input = random_buffer<uint16_t>(rng, 40, 9, 0, 65535);
    Buffer<uint16_t> direct(40, 9), through_argv(40, 9);
    REQUIRE(brighten(input, 2.0f, int16_t(5), true, direct) == 0);
    float gain = 2.0f;
    int16_t offset = 5;
    bool invert = true;
    void* args[] = {input.raw_buffer(), &gain, &offset, &invert, through_argv.raw_buffer()};
    REQUIRE(brighten_argv(args) == 0);
    direct.for_each_element([&](int x, int y) { REQUIRE(direct(x, y) == through_argv(x, y)); });
}

TEST_CASE("a library for several targets runs on this machine and matches C++") {
    std::mt19937 rng(7);
    const int n = 1001;
    Buffer<float> x(n), y(n), out(n);
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    x.for_each_value([&](float& v) { v = dist(rng); });
    y.for_each_value([&](float& v) { v = dist(rng); });
    REQUIRE(saxpy(0.75f, x, y, out) == 0);
    for (int i = 0; i < n; i++) REQUIRE(out(i) == 0.75f * x(i) + y(i));
    // The library asks the runtime which variant this CPU can run; the baseline always can.
    CHECK(tessera_can_use_target_features(0) == 1);
}
