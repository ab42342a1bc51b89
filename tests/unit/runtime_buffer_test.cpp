// tessera::Runtime::Buffer, the light buffer of applications that call ahead-of-time compiled
// pipelines. The checks of element access are switched on here whatever the build type, so that
// the tests below can see them fire; this is the only file of the program that includes the header.
#define TESSERA_RUNTIME_BUFFER_CHECKS 1
#include "tessera/runtime_buffer.h"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using tessera::Runtime::Buffer;

namespace {

// What f throws as std::invalid_argument, or "(no exception)".
template <typename F>
std::string invalid_argument_of(F&& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no exception)";
}

// Runs f in a child process; what it wrote to stderr when it aborted, or "(no abort)".
template <typename F>
std::string abort_message_of(F&& f) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // doctest's crash handler would report the abort as a failed test of the child's own.
        signal(SIGABRT, SIG_DFL);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        f();
        _exit(0);
    }
    close(fds[1]);
    std::string text;
    char chunk[256];
    for (ssize_t n; (n = read(fds[0], chunk, sizeof chunk)) > 0;) text.append(chunk, std::size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT ? text : "(no abort)";
}

bool contains_text(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

// Stands in for a generated function: sums the int32 elements of any buffer through the raw
// struct alone, with the addressing rule runtime.h states.
int64_t sum_int32_through_raw(const tessera_buffer_t* b, int d, const uint8_t* at) {
    if (d < 0) return *reinterpret_cast<const int32_t*>(at);
    int64_t sum = 0;
    for (int i = 0; i < b->dim[d].extent; i++)
        sum += sum_int32_through_raw(b, d - 1, at + int64_t(i) * b->dim[d].stride * 4);
    return sum;
}

extern "C" int sum_pipeline(tessera_buffer_t* input, tessera_buffer_t* output) {
    if (input->type.code != tessera_type_int || input->type.bits != 32) return tessera_error_bad_type;
    if (output->type.code != tessera_type_int || output->type.bits != 64 || output->dimensions != 0)
        return tessera_error_bad_type;
    *reinterpret_cast<int64_t*>(output->host) =
        sum_int32_through_raw(input, input->dimensions - 1, input->host);
    return 0;
}

// Stands in for a generated function that writes its output: out(x, y) = 10 * x + y over the
// output's own window.
extern "C" int write_pipeline(tessera_buffer_t* out) {
    for (int y = 0; y < out->dim[1].extent; y++)
        for (int x = 0; x < out->dim[0].extent; x++) {
            int32_t* p =
                reinterpret_cast<int32_t*>(out->host) + x * out->dim[0].stride + y * out->dim[1].stride;
            *p = 10 * (x + out->dim[0].min) + (y + out->dim[1].min);
        }
    return 0;
}

int pattern(int x, int y) { return 1000 * y + x; }

void fill_with_pattern(Buffer<int>& b) {
    b.for_each_element([&](int x, int y) { b(x, y) = pattern(x, y); });
}

}  // namespace

TEST_CASE("a new buffer owns zeroed, 64-byte aligned, dense memory with dimension 0 innermost") {
    Buffer<uint16_t> b(7, 5, 3);
    REQUIRE(b.defined());
    CHECK(b.owns_host_memory());
    CHECK(b.dimensions() == 3);
    CHECK(b.type().code == tessera_type_uint);
    CHECK(b.type().bits == 16);
    CHECK(b.type().lanes == 1);
    CHECK(b.width() == 7);
    CHECK(b.height() == 5);
    CHECK(b.channels() == 3);
    CHECK(b.dim(0).stride() == 1);
    CHECK(b.dim(1).stride() == 7);
    CHECK(b.dim(2).stride() == 7 * 5);
    CHECK(b.dim(2).min() == 0);
    CHECK(b.dim(2).max() == 2);
    CHECK(b.number_of_elements() == 7 * 5 * 3);
    CHECK(b.size_in_bytes() == 7 * 5 * 3 * sizeof(uint16_t));
    CHECK(reinterpret_cast<uintptr_t>(b.data()) % 64 == 0);
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 7; x++) {
                REQUIRE_MESSAGE(&b(x, y, c) == b.data() + x + 7 * y + 35 * c,
                                "at " << x << ", " << y << ", " << c);
                REQUIRE(b(x, y, c) == 0);
            }
    const int pos[3] = {4, 2, 1};
    CHECK(&b(pos) == &b(4, 2, 1));

    Buffer<float> from_vector(std::vector<int>{9, 2});
    CHECK(from_vector.dimensions() == 2);
    CHECK(from_vector.dim(1).stride() == 9);
    Buffer<float> braced({9, 2});
    CHECK(braced.dim(1).extent() == 2);
    CHECK(from_vector.channels() == 1);
    CHECK(from_vector.left() == 0);
    CHECK(from_vector.right() == 8);
    CHECK(from_vector.top() == 0);
    CHECK(from_vector.bottom() == 1);
}

TEST_CASE("the element type is described as generated code expects it") {
    auto check = [](tessera_type_t t, int code, int bits) {
        CHECK(int(t.code) == code);
        CHECK(int(t.bits) == bits);
        CHECK(int(t.lanes) == 1);
    };
    check(Buffer<uint8_t>(1).type(), tessera_type_uint, 8);
    check(Buffer<int8_t>(1).type(), tessera_type_int, 8);
    check(Buffer<int16_t>(1).type(), tessera_type_int, 16);
    check(Buffer<uint32_t>(1).type(), tessera_type_uint, 32);
    check(Buffer<int64_t>(1).type(), tessera_type_int, 64);
    check(Buffer<float>(1).type(), tessera_type_float, 32);
    check(Buffer<double>(1).type(), tessera_type_float, 64);
    check(Buffer<bool>(1).type(), tessera_type_uint, 1);
    check(Buffer<void*>(1).type(), tessera_type_handle, 64);
    check(Buffer<const float>().type(), tessera_type_float, 32);
    CHECK(Buffer<bool>(10).size_in_bytes() == 10);
}

TEST_CASE("a wrapping buffer reads and writes the caller's memory in place and does not own it") {
    std::vector<int> mem(4 * 3);
    std::iota(mem.begin(), mem.end(), 0);
    Buffer<int> b(mem.data(), 4, 3);
    CHECK(!b.owns_host_memory());
    CHECK(b.data() == mem.data());
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++) CHECK_MESSAGE(b(x, y) == x + 4 * y, "at " << x << ", " << y);
    b(2, 1) = -5;
    CHECK(mem[2 + 4 * 1] == -5);
    Buffer<int> from_vector(mem.data(), std::vector<int>{2, 6});
    CHECK(from_vector(1, 3) == mem[1 + 2 * 3]);

    // The same memory seen transposed, with its origin at (10, 20): x steps over rows of mem.
    const tessera_dimension_t shape[2] = {{10, 3, 4, 0}, {20, 4, 1, 0}};
    Buffer<int> transposed(mem.data(), 2, shape);
    CHECK(transposed.left() == 10);
    CHECK(transposed.top() == 20);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 3; x++) CHECK(transposed(10 + x, 20 + y) == mem[4 * x + y]);

    // A raw descriptor, as a pipeline's caller might already have one.
    tessera_dimension_t raw_shape[2] = {{0, 4, 1, 0}, {0, 3, 4, 0}};
    tessera_buffer_t raw{};
    raw.host = reinterpret_cast<uint8_t*>(mem.data());
    raw.type = {tessera_type_int, 32, 1};
    raw.dimensions = 2;
    raw.dim = raw_shape;
    Buffer<int> wrapped(raw);
    CHECK(!wrapped.owns_host_memory());
    CHECK(&wrapped(3, 2) == &mem[11]);
    // The wrapper has its own copy of the shape.
    wrapped.translate(0, 5);
    CHECK(raw_shape[0].min == 0);
    CHECK(contains_text(invalid_argument_of([&] { Buffer<float> wrong(raw); }), "int32"));
    Buffer<void> untyped(raw);
    CHECK(untyped.type().bits == 32);
}

TEST_CASE("copies share the memory but each has a shape of its own") {
    Buffer<int> a(5, 4);
    Buffer<int> b = a;
    b(3, 2) = 42;
    CHECK(a(3, 2) == 42);
    CHECK(b.data() == a.data());
    b.crop(0, 1, 3);
    b.translate(1, 100);
    CHECK(a.left() == 0);
    CHECK(a.width() == 5);
    CHECK(a.top() == 0);
    CHECK(b(3, 102) == 42);

    // The memory outlives the buffer that allocated it while a copy holds it.
    Buffer<int> kept;
    {
        Buffer<int> inner(6);
        for (int x = 0; x < 6; x++) inner(x) = x * x;
        kept = inner;
    }
    for (int x = 0; x < 6; x++) CHECK(kept(x) == x * x);

    Buffer<int> moved = std::move(kept);
    CHECK(moved(5) == 25);
    CHECK(!kept.defined());  // NOLINT(bugprone-use-after-move): a moved-from Buffer is empty
    CHECK(kept.dimensions() == 0);

    Buffer<int> assigned(1);
    assigned = moved;
    assigned(0) = -1;
    CHECK(moved(0) == -1);
}

TEST_CASE("more dimensions than the in-object storage spill to the heap and behave the same") {
    Buffer<int, 2> b(std::vector<int>{2, 3, 2, 3, 2});
    REQUIRE(b.dimensions() == 5);
    int expected_stride = 1;
    for (int i = 0; i < 5; i++) {
        CHECK(b.dim(i).stride() == expected_stride);
        expected_stride *= b.dim(i).extent();
    }
    b(1, 2, 1, 2, 1) = 7;
    Buffer<int, 2> copy = b;
    Buffer<int, 2> moved = std::move(b);
    CHECK(copy(1, 2, 1, 2, 1) == 7);
    CHECK(moved(1, 2, 1, 2, 1) == 7);
    CHECK(moved.raw_buffer()->dim[4].extent == 2);
    Buffer<int, 8> wide = moved;  // another D is the same buffer
    CHECK(wide(1, 2, 1, 2, 1) == 7);
    CHECK(wide.data() == moved.data());
}

TEST_CASE("an interleaved image keeps the channels of a pixel together, and copy() keeps that") {
    const int w = 5, h = 3, c = 3;
    auto img = Buffer<uint8_t>::make_interleaved(w, h, c);
    CHECK(img.dim(0).stride() == c);
    CHECK(img.dim(1).stride() == c * w);
    CHECK(img.dim(2).stride() == 1);
    CHECK(img.channels() == c);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++) {
                REQUIRE(&img(x, y, ch) == img.data() + ch + c * x + c * w * y);
                img(x, y, ch) = uint8_t(ch + 4 * x + 32 * y);
            }
    Buffer<uint8_t> copy = img.copy();
    CHECK(copy.dim(2).stride() == 1);
    CHECK(copy.dim(0).stride() == c);
    CHECK(copy.dim(1).stride() == c * w);
    CHECK(copy.data() != img.data());
    copy.for_each_element([&](int x, int y, int ch) { CHECK(copy(x, y, ch) == img(x, y, ch)); });
}

TEST_CASE("crop, translate and set_min move the window over the same elements") {
    Buffer<int> a(10, 7);
    fill_with_pattern(a);

    Buffer<int> cropped = a.cropped(0, 2, 5);
    CHECK(cropped.left() == 2);
    CHECK(cropped.right() == 6);
    CHECK(cropped.data() == &a(2, 0));
    cropped.for_each_element([&](int x, int y) { CHECK(cropped(x, y) == pattern(x, y)); });
    CHECK(cropped.width() == 5);

    Buffer<int> both = a.cropped({{3, 4}, {1, 5}});
    CHECK(both.number_of_elements() == 20);
    both.for_each_element([&](int x, int y) {
        CHECK((x >= 3 && x < 7 && y >= 1 && y < 6));
        CHECK(both(x, y) == pattern(x, y));
    });

    Buffer<int> moved = a.translated(0, 10);
    CHECK(moved.left() == 10);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 10; x++) CHECK(moved(x + 10, y) == a(x, y));
    Buffer<int> moved_both = a.translated({-3, 4});
    CHECK(moved_both(0, 4) == a(3, 0));

    Buffer<int> origin = a;
    origin.set_min(-1, -2);
    CHECK(origin.left() == -1);
    CHECK(origin.bottom() == 4);
    CHECK(&origin(-1, -2) == a.data());
    origin.set_min(std::vector<int>{5});
    CHECK(origin.left() == 5);
    CHECK(origin.top() == -2);

    std::string outside = invalid_argument_of([&] { cropped.crop(0, 1, 3); });
    CHECK_MESSAGE(contains_text(outside, "dimension 0"), outside);
    CHECK_MESSAGE(contains_text(outside, "[2, 6]"), outside);
    CHECK(contains_text(invalid_argument_of([&] { a.crop(2, 0, 1); }), "dimension 2"));
    CHECK(contains_text(invalid_argument_of([&] { a.set_min(1, 2, 3); }), "3 values"));
    CHECK(contains_text(invalid_argument_of([&] { moved.translate(0, INT32_MAX); }), "int32"));
}

TEST_CASE("slice, embed, transpose and fill from coordinates work as Halide's") {
    Buffer<int> a(10, 7, 3);
    a.for_each_element([&](int x, int y, int c) { a(x, y, c) = x + 100 * y + 10000 * c; });

    Buffer<int> plane = a.sliced(2, 1);  // channel 1
    CHECK(plane.dimensions() == 2);
    plane.for_each_element([&](int x, int y) { CHECK(plane(x, y) == a(x, y, 1)); });
    Buffer<int> row = a.sliced(1);  // row 0 (the min), every channel
    CHECK(row.dimensions() == 2);
    CHECK(row(4, 2) == a(4, 0, 2));
    Buffer<int> in_place = a;
    in_place.slice(0, 9);
    CHECK(in_place(6, 2) == a(9, 6, 2));
    CHECK(contains_text(invalid_argument_of([&] { a.sliced(1, 7); }), "outside [0, 6]"));

    Buffer<int> back = plane.embedded(2, 1);  // the inverse of the slice
    CHECK(back.dimensions() == 3);
    CHECK(back.dim(2).min() == 1);
    CHECK(back.dim(2).extent() == 1);
    back.for_each_element([&](int x, int y, int c) { CHECK(back(x, y, c) == a(x, y, 1)); });
    Buffer<int> front = plane.embedded(0, 5);
    CHECK(front(5, 3, 4) == a(3, 4, 1));
    Buffer<int> grown = plane;
    grown.add_dimension();
    CHECK(grown.dimensions() == 3);
    CHECK(grown(2, 3, 0) == a(2, 3, 1));

    Buffer<int> swapped = a.transposed(0, 1);
    CHECK(swapped.width() == 7);
    CHECK(swapped(3, 8, 2) == a(8, 3, 2));
    Buffer<int> channels_first = a.transposed({2, 0, 1});
    CHECK(channels_first.dim(0).extent() == 3);
    CHECK(channels_first(2, 9, 6) == a(9, 6, 2));
    CHECK(contains_text(invalid_argument_of([&] { a.transpose({0, 0, 1}); }), "not a permutation"));

    Buffer<int> ones(4, 3);
    CHECK(ones.fill(1).all_equal(1));
    ones(2, 1) = 5;
    CHECK(!ones.all_equal(1));

    // fill from the coordinates, as ints or as a pointer.
    Buffer<int> ramp(5, 4);
    ramp.fill([](int x, int y) { return x + 10 * y; });
    ramp.for_each_element([&](int x, int y) { CHECK(ramp(x, y) == x + 10 * y); });
    ramp.fill([](const int* pos) { return pos[1] - pos[0]; });
    CHECK(ramp(4, 1) == -3);

    // The shape of an interleaved image, nested the same way, of another type.
    Buffer<uint8_t> interleaved = Buffer<uint8_t>::make_interleaved(5, 4, 3);
    interleaved.translate(1, 2);
    Buffer<float> like = Buffer<float>::make_with_shape_of(interleaved);
    CHECK(like.dim(0).stride() == 3);
    CHECK(like.dim(2).stride() == 1);
    CHECK(like.dim(1).min() == 2);
    CHECK(like.all_equal(0.0f));
}

TEST_CASE("copy() is a dense deep copy with the same mins") {
    Buffer<int> a(9, 6);
    fill_with_pattern(a);
    Buffer<int> view = a.cropped(0, 3, 4).translated(1, -10);
    Buffer<int> deep = view.copy();
    CHECK(deep.owns_host_memory());
    CHECK(deep.data() != view.data());
    CHECK(deep.left() == 3);
    CHECK(deep.top() == -10);
    CHECK(deep.dim(0).stride() == 1);
    CHECK(deep.dim(1).stride() == 4);
    deep.for_each_element([&](int x, int y) { CHECK(deep(x, y) == pattern(x, y + 10)); });
    deep(3, -10) = -1;
    CHECK(a(3, 0) == pattern(3, 0));

    Buffer<const int> readonly = a;
    Buffer<int> writable = readonly.copy();
    writable(0, 0) = 5;
    CHECK(a(0, 0) == pattern(0, 0));
}

TEST_CASE("copy_from copies the overlapping region and leaves the rest alone") {
    // A 7 x 6 destination at the origin and a 5 x 4 source at (4, 3): they overlap in
    // [4, 6] x [3, 5], which runs off the destination's right and bottom edges.
    Buffer<int> dst(7, 6);
    dst.fill(-1);
    Buffer<int> src(5, 4);
    src.set_min(4, 3);
    fill_with_pattern(src);
    dst.copy_from(src);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 7; x++) {
            bool in_src = src.contains(x, y);
            CHECK_MESSAGE(dst(x, y) == (in_src ? pattern(x, y) : -1), "at " << x << ", " << y);
        }
    CHECK(src(8, 6) == pattern(8, 6));

    // Disjoint boxes copy nothing.
    Buffer<int> far(3, 3);
    far.set_min(100, 100);
    far.fill(9);
    dst.copy_from(far);
    dst.for_each_value([](int v) { CHECK(v != 9); });

    // Between two views of one image whose windows do not overlap in memory.
    Buffer<int> img(8, 2);
    fill_with_pattern(img);
    Buffer<int> left = img.cropped(0, 0, 4), right = img.cropped(0, 4, 4).translated(0, -4);
    right.copy_from(left);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 4; x++) CHECK(img(x + 4, y) == pattern(x, y));

    Buffer<float> other_type(7, 6);
    CHECK(contains_text(invalid_argument_of([&] { dst.copy_from(other_type); }), "float32"));
    Buffer<int> other_dims(7);
    CHECK(contains_text(invalid_argument_of([&] { dst.copy_from(other_dims); }), "1 dimensions"));
}

TEST_CASE("for_each_element visits every coordinate once, dimension 0 fastest, in 1 to 4 dimensions") {
    // The order a nest of loops gives, outermost dimension outside, with mins that are not zero.
    const std::vector<int> mins = {-2, 3, 0, 7}, extents = {3, 2, 4, 2};
    for (int dims = 1; dims <= 4; dims++) {
        std::vector<std::vector<int>> expected;
        std::vector<int> pos(dims);
        std::function<void(int)> nest = [&](int d) {
            if (d < 0) return expected.push_back(pos);
            for (int i = 0; i < extents[d]; i++) {
                pos[d] = mins[d] + i;
                nest(d - 1);
            }
        };
        nest(dims - 1);

        Buffer<int> b(std::vector<int>(extents.begin(), extents.begin() + dims));
        b.set_min(std::vector<int>(mins.begin(), mins.begin() + dims));
        std::vector<std::vector<int>> as_ints, as_pointer;
        switch (dims) {
            case 1: b.for_each_element([&](int x) { as_ints.push_back({x}); }); break;
            case 2: b.for_each_element([&](int x, int y) { as_ints.push_back({x, y}); }); break;
            case 3: b.for_each_element([&](int x, int y, int z) { as_ints.push_back({x, y, z}); }); break;
            case 4:
                b.for_each_element([&](int x, int y, int z, int w) { as_ints.push_back({x, y, z, w}); });
                break;
        }
        b.for_each_element([&](const int* p) { as_pointer.push_back(std::vector<int>(p, p + dims)); });
        CHECK_MESSAGE(as_ints == expected, dims << " dimensions, one int each");
        CHECK_MESSAGE(as_pointer == expected, dims << " dimensions, const int*");
    }

    int calls = 0;
    Buffer<int>::make_scalar().for_each_element([&]() { calls++; });
    CHECK(calls == 1);
    Buffer<int>(4, 0).for_each_element([&](int, int) { calls++; });
    CHECK(calls == 1);
    // A generic lambda of one parameter per dimension gets ints.
    int sum = 0;
    Buffer<int>(3, 4).for_each_element([&](auto x, auto y) { sum += x + y; });
    CHECK(sum == 4 * (0 + 1 + 2) + 3 * (0 + 1 + 2 + 3));

    std::string wrong = invalid_argument_of([] { Buffer<int>(3, 4, 2).for_each_element([](int, int) {}); });
    CHECK_MESSAGE(contains_text(wrong, "takes 2 int coordinates but the buffer has 3 dimensions"), wrong);
}

TEST_CASE("for_each_value visits every element, alone or in lock step with other buffers") {
    Buffer<int> a(6, 5);
    fill_with_pattern(a);
    Buffer<int> window = a.cropped(0, 1, 4);
    int64_t sum = 0, expected = 0;
    window.for_each_value([&](int& v) { sum += v; });
    for (int y = 0; y < 5; y++)
        for (int x = 1; x < 5; x++) expected += pattern(x, y);
    CHECK(sum == expected);

    // Two inputs and an output of the same extents, at different mins and with different layouts.
    Buffer<int> out(4, 5);
    out.set_min(10, 20);
    std::vector<int> mem(4 * 5);
    const tessera_dimension_t transposed_shape[2] = {{0, 4, 5, 0}, {0, 5, 1, 0}};
    Buffer<int> transposed(mem.data(), 2, transposed_shape);
    transposed.for_each_element([&](int x, int y) { transposed(x, y) = x * y; });
    const Buffer<int>& const_window = window;
    out.for_each_value([](int& o, const int& w, int& t) { o = w + t; }, const_window, transposed);
    out.for_each_element(
        [&](int x, int y) { CHECK(out(x, y) == pattern(x - 10 + 1, y - 20) + (x - 10) * (y - 20)); });

    const Buffer<int>& read_only = out;
    int64_t total = 0;
    read_only.for_each_value([&](const int& v) { total += v; });
    CHECK(total > 0);
    CHECK(contains_text(invalid_argument_of([&] { out.for_each_value([](int&, int&) {}, a); }),
                        "different extents"));
}

TEST_CASE("a Buffer<void> carries its element type at run time, and as<T>() checks it") {
    const tessera_type_t f32{tessera_type_float, 32, 1};
    Buffer<void> v(f32, 4, 3);
    CHECK(v.type().code == tessera_type_float);
    CHECK(v.size_in_bytes() == 4 * 3 * 4);
    CHECK(v.dim(1).stride() == 4);
    Buffer<float> f = v.as<float>();
    CHECK(f.data() == v.data());
    f(3, 2) = 2.5f;
    CHECK(static_cast<const float*>(v.data())[3 + 4 * 2] == 2.5f);
    std::string mismatch = invalid_argument_of([&] { (void)v.as<int>(); });
    CHECK_MESSAGE(contains_text(mismatch, "as<int32>() of a buffer of float32"), mismatch);

    // Any typed buffer converts to a Buffer<void>, which keeps the type.
    Buffer<uint8_t> bytes(5);
    Buffer<void> erased = bytes;
    CHECK(erased.type().code == tessera_type_uint);
    CHECK(erased.type().bits == 8);
    CHECK(erased.as<uint8_t>().data() == bytes.data());
    Buffer<const void> read_only = erased;
    CHECK(read_only.as<const uint8_t>()(4) == 0);

    // Copies between buffers of a run-time type.
    Buffer<void> copy = v.copy();
    CHECK(copy.as<float>()(3, 2) == 2.5f);
    Buffer<float> into(2, 2);
    into.set_min(2, 1);
    into.copy_from(v);
    CHECK(into(3, 2) == 2.5f);

    std::vector<double> mem(6, 1.0);
    Buffer<void> wrapped({tessera_type_float, 64, 1}, mem.data(), 3, 2);
    CHECK(&wrapped.as<double>()(2, 1) == &mem[5]);
    auto interleaved = Buffer<void>::make_interleaved({tessera_type_int, 16, 1}, 3, 2, 4);
    CHECK(interleaved.dim(2).stride() == 1);
    CHECK(interleaved.size_in_bytes() == 3 * 2 * 4 * 2);
}

TEST_CASE("a Buffer passes as a tessera_buffer_t* to a function that reads only the raw struct") {
    // A cropped, translated, interleaved input: the raw struct must describe exactly its window.
    auto img = Buffer<int>::make_interleaved(7, 5, 3);
    img.for_each_element([&](int x, int y, int c) { img(x, y, c) = x + 10 * y + 100 * c; });
    Buffer<int> input = img.cropped(0, 2, 4).cropped(1, 1, 3);
    input.translate(2, 5);
    Buffer<int64_t> result = Buffer<int64_t>::make_scalar();

    int64_t expected = 0;
    for (int c = 0; c < 3; c++)
        for (int y = 1; y < 4; y++)
            for (int x = 2; x < 6; x++) expected += x + 10 * y + 100 * c;
    REQUIRE(sum_pipeline(input, result) == 0);
    CHECK(result() == expected);
    CHECK(sum_pipeline(input.raw_buffer(), result.raw_buffer()) == 0);
    Buffer<float> wrong_type(3);
    CHECK(sum_pipeline(wrong_type, result) == tessera_error_bad_type);

    Buffer<int> out(4, 3);
    out.set_min(-1, 2);
    CHECK(write_pipeline(out) == 0);
    out.for_each_element([&](int x, int y) { CHECK(out(x, y) == 10 * x + y); });
    // Halide's calls after a pipeline, kept so that Halide code ports; nothing lives on a device.
    CHECK(out.copy_to_host() == 0);
    CHECK(out.device_sync() == 0);
    out.set_host_dirty();
    CHECK(!out.device_dirty());
}

TEST_CASE("contains says whether coordinates are inside the buffer") {
    Buffer<int> b(4, 3);
    b.set_min(-2, 5);
    for (int y = 0; y < 12; y++)
        for (int x = -6; x < 6; x++) {
            bool inside = x >= -2 && x <= 1 && y >= 5 && y <= 7;
            CHECK_MESSAGE(b.contains(x, y) == inside, "at " << x << ", " << y);
            CHECK(b.contains(std::vector<int>{x, y}) == inside);
        }
}

TEST_CASE("empty buffers, deallocate and allocate") {
    Buffer<float> none;
    CHECK(!none.defined());
    CHECK(none.dimensions() == 0);
    CHECK(none.copy().dimensions() == 0);
    CHECK(!none.copy().defined());

    Buffer<float> no_elements(4, 0);
    CHECK(no_elements.defined());
    CHECK(no_elements.number_of_elements() == 0);
    CHECK(no_elements.size_in_bytes() == 0);

    Buffer<int> b(3, 2);
    b.fill(7);
    Buffer<int> old = b;
    b.deallocate();
    CHECK(!b.defined());
    CHECK(b.width() == 3);
    CHECK(old(2, 1) == 7);  // the copy still holds the memory
    b.allocate();
    CHECK(b.defined());
    CHECK(b.owns_host_memory());
    CHECK(b.data() != old.data());
    CHECK(b(2, 1) == 0);

    // A shape with no strides, as a bounds query leaves it, gets dense ones.
    tessera_dimension_t shape[2] = {{1, 5, 0, 0}, {-3, 2, 0, 0}};
    Buffer<int> queried(nullptr, 2, shape);
    CHECK(!queried.defined());
    queried.allocate();
    CHECK(queried.dim(0).stride() == 1);
    CHECK(queried.dim(1).stride() == 5);
    CHECK(&queried(5, -2) == queried.data() + 4 + 5);

    // Negative strides: the element at the mins is not the lowest address.
    tessera_dimension_t flipped[1] = {{0, 4, -1, 0}};
    Buffer<int> backwards(nullptr, 1, flipped);
    backwards.allocate();
    for (int x = 0; x < 4; x++) backwards(x) = x;
    CHECK(backwards.data()[-3] == 3);
    CHECK(backwards.size_in_bytes() == 4 * sizeof(int));
}

TEST_CASE("a negative extent throws std::invalid_argument naming the dimension") {
    std::string message = invalid_argument_of([] { Buffer<float> b(3, -2); });
    CHECK_MESSAGE(contains_text(message, "extent of dimension 1 is -2"), message);
    CHECK(contains_text(invalid_argument_of([] { Buffer<float> b(std::vector<int>{-1}); }), "dimension 0"));
    CHECK(contains_text(invalid_argument_of([] {
                            Buffer<void> b({tessera_type_int, 8, 1}, 2, 2, -7);
                        }),
                        "dimension 2"));
    float mem[4];
    const tessera_dimension_t shape[2] = {{0, 2, 1, 0}, {0, -2, 2, 0}};
    CHECK(contains_text(invalid_argument_of([&] { Buffer<float> b(mem, 2, shape); }), "dimension 1"));
    CHECK(
        contains_text(invalid_argument_of([] { Buffer<float>::make_interleaved(4, 4, -3); }), "dimension 2"));
    CHECK(contains_text(invalid_argument_of([] { Buffer<uint8_t> b(1 << 16, 1 << 16, 2); }), "stride"));
}

TEST_CASE("element access with wrong coordinates stops the program with the reason") {
    Buffer<int> b(4, 3);
    b.set_min(1, 0);
    std::string outside = abort_message_of([&] { b(5, 0) = 1; });
    CHECK_MESSAGE(contains_text(outside, "coordinate 5 in dimension 0 is outside [1, 4]"), outside);
    std::string count = abort_message_of([&] { b(1) = 1; });
    CHECK_MESSAGE(contains_text(count, "1 coordinates to a buffer of 2 dimensions"), count);
    const int pos[2] = {1, 3};
    std::string through_pointer = abort_message_of([&] { (void)b(pos); });
    CHECK_MESSAGE(contains_text(through_pointer, "dimension 1 is outside [0, 2]"), through_pointer);
    Buffer<int> none;
    CHECK(contains_text(abort_message_of([&] { none() = 1; }), "no memory"));
    CHECK(contains_text(abort_message_of([&] { (void)b.dim(2); }), "dimension 2 of a buffer of 2"));
    CHECK(contains_text(abort_message_of([&] { (void)b.contains(1, 2, 3); }), "3 coordinates"));
    CHECK(abort_message_of([&] { b(4, 2) = 1; }) == "(no abort)");
}
