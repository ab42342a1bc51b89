// Bad inputs to ahead-of-time code: each makes the generated function return its error code,
// before touching memory, and the application's error handler receive a message that names the
// argument.

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "brighten.h"
#include "copy_rounded_up.h"
#include "gpu_scale.h"
#include "tessera/runtime_buffer.h"

using tessera::Runtime::Buffer;

namespace {

std::string last_message;
int messages = 0;

void capture(void*, const char* message) {
    last_message = message;
    messages++;
}

// Installs the capturing handler for one test case and restores the default after it.
struct CapturedErrors {
    tessera_error_handler_t previous;
    CapturedErrors() : previous(tessera_set_error_handler(capture)) {
        last_message.clear();
        messages = 0;
    }
    ~CapturedErrors() { tessera_set_error_handler(previous); }
};

}  // namespace

TEST_CASE("a buffer of the wrong element type") {
    CapturedErrors errors;
    Buffer<uint8_t> input(40, 16);
    Buffer<uint16_t> output(40, 16);
    CHECK(brighten(input, 1.0f, int16_t(0), false, output) == tessera_error_bad_type);
    CHECK(messages == 1);
    CHECK(last_message.find("Input buffer input has element type code 1 with 8 bits") != std::string::npos);
    CHECK(last_message.find("uint16") != std::string::npos);
}

TEST_CASE("a buffer of the wrong dimensionality") {
    CapturedErrors errors;
    Buffer<uint16_t> input(40, 16);
    Buffer<uint16_t> output(16, 16, 3);
    CHECK(brighten(input, 1.0f, int16_t(0), false, output) == tessera_error_bad_dimensions);
    CHECK(last_message.find("Output buffer brighten has 3 dimensions") != std::string::npos);
}

TEST_CASE("an input smaller than the region the pipeline reads") {
    CapturedErrors errors;
    Buffer<uint16_t> input(40, 10);
    Buffer<uint16_t> output(40, 12);
    CHECK(brighten(input, 1.0f, int16_t(0), false, output) == tessera_error_buffer_too_small);
    CHECK(last_message.find("Input buffer input is read at 11 in dimension 1, beyond its max of 9") !=
          std::string::npos);
}

TEST_CASE("an output smaller than what the schedule writes") {
    CapturedErrors errors;
    Buffer<uint8_t> input(13);
    Buffer<uint8_t> output(13);
    CHECK(copy_rounded_up(input, output) == tessera_error_buffer_too_small);
    CHECK(last_message.find("Output buffer copy_rounded_up is written at 15") != std::string::npos);
    Buffer<uint8_t> input16(16), output16(16);
    CHECK(copy_rounded_up(input16, output16) == 0);
}

TEST_CASE("a buffer without memory") {
    CapturedErrors errors;
    Buffer<uint16_t> input(40, 16);
    Buffer<uint16_t> output(40, 16);
    tessera_buffer_t no_memory = *input.raw_buffer();
    no_memory.host = nullptr;
    CHECK(brighten(&no_memory, 1.0f, int16_t(0), false, output) == tessera_error_null_host);
    CHECK(last_message.find("Input buffer input has no memory") != std::string::npos);
}

TEST_CASE("a null buffer descriptor") {
    CapturedErrors errors;
    Buffer<uint16_t> input(40, 16);
    CHECK(brighten(input, 1.0f, int16_t(0), false, nullptr) == tessera_error_null_buffer);
    CHECK(last_message.find("Output buffer brighten is a null pointer") != std::string::npos);
    Buffer<uint16_t> output(40, 16);
    CHECK(brighten(nullptr, 1.0f, int16_t(0), false, output) == tessera_error_null_buffer);
    CHECK(last_message.find("Input buffer input is a null pointer") != std::string::npos);
}

TEST_CASE("a buffer whose elements are not adjacent in dimension 0") {
    CapturedErrors errors;
    Buffer<uint16_t> input = Buffer<uint16_t>::make_interleaved(40, 16, 2);
    Buffer<uint16_t> output(40, 16);
    tessera_buffer_t first_channel = *input.raw_buffer();
    first_channel.dimensions = 2;
    CHECK(brighten(&first_channel, 1.0f, int16_t(0), false, output) == tessera_error_bad_argument);
    CHECK(last_message.find("Input buffer input has stride 2 in dimension 0") != std::string::npos);
}

TEST_CASE("a scalar outside its Param's range") {
    CapturedErrors errors;
    Buffer<uint16_t> input(40, 16), output(40, 16);
    CHECK(brighten(input, 4.5f, int16_t(0), false, output) == tessera_error_param_out_of_range);
    CHECK(last_message.find("Param gain is 4.5") != std::string::npos);
    CHECK(last_message.find("above its maximum of 4") != std::string::npos);
    CHECK(brighten(input, -1.0f, int16_t(0), false, output) == tessera_error_param_out_of_range);
    CHECK(last_message.find("below its minimum of 0") != std::string::npos);
}

TEST_CASE("nothing is written when the arguments are refused") {
    CapturedErrors errors;
    Buffer<uint16_t> input(40, 10);
    Buffer<uint16_t> output(40, 12);
    output.fill(uint16_t(1234));
    CHECK(brighten(input, 1.0f, int16_t(0), false, output) != 0);
    output.for_each_value([](uint16_t v) { REQUIRE(v == 1234); });
}

TEST_CASE("a GPU pipeline where there is no CUDA driver returns tessera_error_no_cuda_driver") {
    // The runtime loads the driver at first use; ctest runs each test in a process of its own.
    setenv("TESSERA_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    CapturedErrors errors;
    Buffer<float> input(100), output(100);
    CHECK(gpu_scale(input, output) == tessera_error_no_cuda_driver);
    CHECK_MESSAGE(last_message.find("Install the NVIDIA driver") != std::string::npos, last_message);
}
