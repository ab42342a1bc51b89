// Bad buffers at run time are RuntimeErrors raised before any memory is touched.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

template <typename Action>
std::string runtime_error_of(Action&& action) {
    try {
        action();
    } catch (const RuntimeError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("realizing into a buffer of the wrong type names the buffer and both types") {
    Func f("f");
    Var x("x");
    f(x) = cast<float>(x);
    Buffer<int> wrong(8);
    std::string message = runtime_error_of([&] { f.realize(wrong); });
    CHECK(contains(message, "Output buffer f"));
    CHECK(contains(message, "float32"));
}

TEST_CASE("realizing into a buffer of the wrong dimensionality says how many dimensions") {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x + y;
    Buffer<int> wrong(8);
    std::string message = runtime_error_of([&] { f.realize(wrong); });
    CHECK(contains(message, "Output buffer f has 1 dimensions"));
    CHECK(contains(message, "2"));
}

TEST_CASE("an unset ImageParam is reported by name") {
    ImageParam in(UInt(8), 1, "unset_input");
    Func f("f");
    Var x("x");
    f(x) = in(x);
    std::string message = runtime_error_of([&] { f.realize({4}); });
    CHECK(contains(message, "ImageParam unset_input is not set"));
}

TEST_CASE("an input too small for the region read is refused before any access") {
    ImageParam in(UInt(8), 1, "small_input");
    Func f("f");
    Var x("x");
    f(x) = in(x) + in(x + 2);
    Buffer<uint8_t> small(5);
    small.fill(1);
    in.set(small);
    std::string message = runtime_error_of([&] { f.realize({5}); });
    CHECK(contains(message, "Input buffer small_input"));
    CHECK(contains(message, "6"));  // the largest coordinate read
    CHECK(contains(message, "beyond its max of 4"));
    Buffer<uint8_t> fits(5);
    fits.fill(1);
    in.set(fits);
    CHECK(runtime_error_of([&] { f.realize({3}); }) == "");
}

TEST_CASE("an input of the wrong type bound to an ImageParam is refused") {
    ImageParam in(UInt(8), 1, "typed_input");
    Buffer<float> b(4);
    std::string message = runtime_error_of([&] { in.set(b); });
    CHECK(contains(message, "typed_input"));
    CHECK(contains(message, "uint8"));
}

TEST_CASE("an update that writes outside the output buffer is refused") {
    Func f("f");
    Var x("x");
    RDom r(0, 10);
    f(x) = 0;
    f(r) = r;
    Buffer<int> out(5);
    std::string message = runtime_error_of([&] { f.realize(out); });
    CHECK(contains(message, "Output buffer f is written at 9"));
}

TEST_CASE("an output or ImageParam that is not dense in dimension 0 is refused by name") {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x + y;
    Buffer<int> wide(8, 6);
    Buffer<int> transposed = wide.transposed(0, 1);
    std::string message = runtime_error_of([&] { f.realize(transposed); });
    CHECK_MESSAGE(contains(message, "Output buffer f has stride 8 in dimension 0"), message);
    ImageParam in(Int(32), 2, "in");
    Func g("g");
    g(x, y) = in(x, y) * 2;
    in.set(transposed);
    message = runtime_error_of([&] { g.realize({4, 4}); });
    CHECK_MESSAGE(contains(message, "Input buffer in has stride 8 in dimension 0"), message);
}
