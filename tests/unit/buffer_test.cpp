#include <doctest/doctest.h>

#include <cctype>
#include <set>
#include <vector>

#include "ir/expr_nodes.h"
#include "tessera/buffer.h"

using namespace tessera;

namespace {

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

template <typename F>
std::string runtime_error_of(F&& f) {
    try {
        f();
    } catch (const RuntimeError& e) {
        return e.what();
    }
    return "(no RuntimeError)";
}

}  // namespace

TEST_CASE("a new buffer is dense, zeroed and 64-byte aligned, dimension 0 innermost") {
    Buffer<uint16_t> b(7, 5, 3);
    REQUIRE(b.defined());
    CHECK(b.dimensions() == 3);
    CHECK(b.type() == UInt(16));
    CHECK(b.width() == 7);
    CHECK(b.height() == 5);
    CHECK(b.channels() == 3);
    CHECK(b.stride(0) == 1);
    CHECK(b.stride(1) == 7);
    CHECK(b.stride(2) == 35);
    CHECK(b.dim(2).min() == 0);
    CHECK(b.dim(2).max() == 2);
    CHECK(b.number_of_elements() == 105);
    CHECK(b.size_in_bytes() == 210);
    CHECK(reinterpret_cast<uintptr_t>(b.data()) % 64 == 0);
    CHECK(b.all_equal(0));
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 7; x++) REQUIRE(&b(x, y, c) == b.data() + x + 7 * y + 35 * c);
    const int pos[3] = {4, 2, 1};
    CHECK(&b(pos) == &b(4, 2, 1));
}

TEST_CASE(
    "width, height and channels are 1 where a dimension is absent, and raw_buffer describes the buffer") {
    Buffer<float> b(std::vector<int>{9});
    CHECK(b.width() == 9);
    CHECK(b.height() == 1);
    CHECK(b.channels() == 1);
    const tessera_buffer_t* raw = b.raw_buffer();
    CHECK(raw->host == reinterpret_cast<uint8_t*>(b.data()));
    CHECK(raw->dimensions == 1);
    CHECK(raw->type.code == tessera_type_float);
    CHECK(raw->type.bits == 32);
    CHECK(raw->dim[0].extent == 9);
    CHECK(b.contents()->raw.dim == b.contents()->dims.data());
}

TEST_CASE("set_min and translate move the origin of every alias") {
    Buffer<int> b(10, 4);
    Buffer<int> alias = b;
    b.set_min(100, -3);
    CHECK(alias.left() == 100);
    CHECK(alias.right() == 109);
    CHECK(alias.top() == -3);
    CHECK(alias.bottom() == 0);
    CHECK(&alias(100, -3) == alias.data());
    CHECK(&alias(103, -1) == alias.data() + 3 + 2 * 10);
    b.translate(0, 5);
    CHECK(alias.min(0) == 105);
    b.set_min(std::vector<int>{0, 0});
    CHECK(&b(2, 1) == b.data() + 12);
    int visited = 0;
    for (int x : b.dim(0)) visited += x;
    CHECK(visited == 45);
}

TEST_CASE("copies alias their contents, copy() is a deep dense copy with the same mins") {
    Buffer<int> a(6, 3);
    a.set_min(2, 1);
    Buffer<int> alias = a;
    alias(3, 2) = 42;
    CHECK(a(3, 2) == 42);
    CHECK(alias.same_as(a));
    Buffer<int> deep = a.copy();
    CHECK(!deep.same_as(a));
    CHECK(deep.min(0) == 2);
    CHECK(deep.min(1) == 1);
    CHECK(deep(3, 2) == 42);
    deep(3, 2) = 7;
    CHECK(a(3, 2) == 42);
    CHECK(deep.name() != a.name());
}

TEST_CASE("wrapping caller memory reads and writes it in place, with any strides and mins") {
    std::vector<float> mem(4 * 3);
    Buffer<float> b(mem.data(), 4, 3);
    CHECK(b.data() == mem.data());
    CHECK(b.stride(1) == 4);
    CHECK(b.contents()->allocation == nullptr);
    b(2, 1) = 5.0f;
    CHECK(mem[6] == 5.0f);
    b.fill(1.5f);
    for (float v : mem) CHECK(v == 1.5f);

    // An interleaved RGB image of 5 x 2 pixels with its origin at (10, 20).
    std::vector<uint8_t> rgb(5 * 2 * 3);
    for (size_t i = 0; i < rgb.size(); i++) rgb[i] = uint8_t(i);
    const tessera_dimension_t shape[3] = {{10, 5, 3, 0}, {20, 2, 15, 0}, {0, 3, 1, 0}};
    Buffer<uint8_t> img(rgb.data(), 3, shape);
    CHECK(img(10, 20, 0) == 0);
    CHECK(img(11, 20, 2) == 5);
    CHECK(img(14, 21, 1) == 15 + 12 + 1);
    CHECK(img.is_dense());
    CHECK(!img.cropped(0, 10, 2).is_dense());
    Buffer<uint8_t> planar = img.copy_to_planar();
    CHECK(planar.stride(0) == 1);
    CHECK(planar.stride(2) == 10);
    CHECK(planar(14, 21, 1) == img(14, 21, 1));
    Buffer<uint8_t> kept = img.copy();
    CHECK(kept.stride(2) == 1);
    CHECK(kept.stride(0) == 3);
    CHECK(kept.min(1) == 20);
    CHECK(kept(14, 21, 1) == img(14, 21, 1));

    Buffer<uint8_t> inter = Buffer<uint8_t>::make_interleaved(4, 3, 3);
    CHECK(inter.stride(2) == 1);
    CHECK(inter.stride(0) == 3);
    CHECK(inter.stride(1) == 12);
}

TEST_CASE("copy_from copies over the intersection of the two buffers only") {
    Buffer<int> dst(6, 6);
    dst.fill(-1);
    Buffer<int> src(4, 4);
    src.set_min(3, -2);
    src.for_each_element([&](int x, int y) { src(x, y) = 10 * x + y; });
    dst.copy_from(src);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++) {
            const bool inside = x >= 3 && y <= 1;
            CHECK_MESSAGE(dst(x, y) == (inside ? 10 * x + y : -1), "at " << x << ", " << y);
        }
    Buffer<float> other(3, 3);
    Buffer<> untyped = other;
    CHECK(runtime_error_of([&] { dst.copy_from(untyped); }).find("float32") != std::string::npos);
}

TEST_CASE("fill with a function, for_each_element and for_each_value visit every element once") {
    Buffer<int> b(5, 4, 3);
    b.fill([](int x, int y, int c) { return x + 10 * y + 100 * c; });
    CHECK(b(4, 3, 2) == 234);
    int count = 0;
    b.for_each_element([&](const int* pos) {
        CHECK(b(pos) == pos[0] + 10 * pos[1] + 100 * pos[2]);
        count++;
    });
    CHECK(count == 60);
    Buffer<int> twice(5, 4, 3);
    twice.for_each_value([](int& t, const int& v) { t = 2 * v; }, b);
    CHECK(twice(3, 2, 1) == 2 * b(3, 2, 1));
    long sum = 0;
    b.for_each_value([&](int v) { sum += v; });
    CHECK(sum == 60 * (2 + 15 + 100));
    CHECK(runtime_error_of([&] { b.for_each_element([](int, int) {}); }).find("3 dimensions") !=
          std::string::npos);
    CHECK(!b.all_equal(0));
}

TEST_CASE("a scalar buffer has one element and zero dimensions") {
    Buffer<double> s = Buffer<double>::make_scalar();
    CHECK(s.dimensions() == 0);
    CHECK(s.number_of_elements() == 1);
    s() = 2.5;
    CHECK(s() == 2.5);
    s.fill(3.0);
    CHECK(*s.data() == 3.0);
}

TEST_CASE("conversions to and from Buffer<> check the element type and dimensionality at run time") {
    Buffer<float> f(3, 2);
    f(1, 1) = 4.0f;
    Buffer<> any = f;
    CHECK(any.type() == Float(32));
    CHECK(any.same_as(f));
    Buffer<float> back = any;
    CHECK(back(1, 1) == 4.0f);
    Buffer<const float> read_only = f;
    CHECK(read_only(1, 1) == 4.0f);
    Buffer<float, 2> fixed = any;
    CHECK(fixed.dimensions() == 2);

    const std::string wrong_type = runtime_error_of([&] { Buffer<int> i = any; });
    CHECK(wrong_type.find("int32") != std::string::npos);
    CHECK(wrong_type.find("float32") != std::string::npos);
    CHECK(runtime_error_of([&] { Buffer<float, 3> three = any; }).find("3 dimensions") != std::string::npos);
    CHECK(runtime_error_of([&] { Buffer<int>(Float(32), 4); }).find("int32") != std::string::npos);
    CHECK(runtime_error_of([&] { any.as<uint8_t>(); }).find("uint8") != std::string::npos);

    Buffer<> typed_at_run_time(UInt(16), 4, 5);
    CHECK(typed_at_run_time.type() == UInt(16));
    CHECK(typed_at_run_time.size_in_bytes() == 40);
    Buffer<uint16_t> u = typed_at_run_time;
    CHECK(u.width() == 4);

    static_assert(!std::is_constructible_v<Buffer<int>, Buffer<float>>);
    static_assert(!std::is_constructible_v<Buffer<float>, Buffer<const float>>);
    static_assert(std::is_constructible_v<Buffer<const float>, Buffer<float>>);
    static_assert(!std::is_constructible_v<Buffer<float, 2>, Buffer<float, 3>>);
}

TEST_CASE("sizes may be given as a braced list, and the compiler may rebuild a Buffer from its contents") {
    Buffer<int> b({6, 2});
    CHECK(b.width() == 6);
    CHECK(b.height() == 2);
    Buffer<> from_contents(b.contents());
    CHECK(from_contents.same_as(b));
    Buffer<int, 2> typed(b.contents());
    CHECK(typed.same_as(b));
    CHECK(runtime_error_of([&] { Buffer<float> wrong(b.contents()); }).find("float32") != std::string::npos);
    Buffer<> shaped(Int(16), {3, 4, 5});
    CHECK(shaped.dimensions() == 3);
    Buffer<int16_t> like = Buffer<int16_t>::make_with_shape_of(shaped.cropped(1, 1, 2));
    CHECK(like.min(1) == 1);
    CHECK(like.extent(1) == 2);
    CHECK(like.stride(2) == 6);
}

TEST_CASE("bad shapes and undefined buffers are RuntimeErrors") {
    CHECK(runtime_error_of([] { Buffer<int> b(3, -1); }).find("negative") != std::string::npos);
    Buffer<int> undefined;
    CHECK(!undefined.defined());
    CHECK(undefined.dimensions() == 0);
    CHECK(runtime_error_of([&] { undefined.copy(); }).find("undefined") != std::string::npos);
    Buffer<int> b(3, 3);
    CHECK(runtime_error_of([&] { b.dim(2); }).find("dimension 2") != std::string::npos);
    CHECK(runtime_error_of([&] { b.crop(0, 1, 5); }).find("crop") != std::string::npos);
    CHECK(runtime_error_of([&] { Buffer<int>(100000, 100000, 1000); }).find("too large") !=
          std::string::npos);
}

TEST_CASE("buffers get unique default names that are identifiers, and given names are kept or sanitized") {
    std::set<std::string> names;
    for (int i = 0; i < 20; i++) {
        Buffer<int> b(2);
        CHECK(is_identifier(b.name()));
        names.insert(b.name());
    }
    CHECK(names.size() == 20);
    CHECK(Buffer<uint8_t>(4, 4, "input").name() == "input");
    CHECK(Buffer<uint8_t>(std::vector<int>{4}, "weights").name() == "weights");
    CHECK(Buffer<uint8_t>(std::vector<int>{4}, "my image.png").name() == "my_image_png");
    CHECK(is_identifier(Buffer<uint8_t>(std::vector<int>{4}, "1st").name()));
}

TEST_CASE("crop, slice and transpose give views of the same memory") {
    Buffer<int> b(8, 6);
    b.fill([](int x, int y) { return x + 100 * y; });
    Buffer<int> c = b.cropped(0, 2, 3);
    CHECK(c.min(0) == 2);
    CHECK(c.extent(0) == 3);
    CHECK(&c(3, 4) == &b(3, 4));
    CHECK(b.extent(0) == 8);
    Buffer<int> row = b.sliced(1, 4);
    CHECK(row.dimensions() == 1);
    CHECK(row(5) == 405);
    Buffer<int> t = b.transposed(0, 1);
    CHECK(t(4, 5) == b(5, 4));
    CHECK(b.contains(7, 5));
    CHECK(!b.contains(8, 5));
    b.crop({{1, 2}, {1, 2}});
    CHECK(b(1, 1) == 101);
    CHECK(b.number_of_elements() == 4);
}

TEST_CASE("integer coordinates give element references, Expr coordinates give an image call") {
    Buffer<float> b(4, 3, "weights");
    static_assert(std::is_same_v<decltype(b(1, 2)), float&>);
    static_assert(std::is_same_v<decltype(std::as_const(b)(1, 2)), const float&>);
    static_assert(std::is_same_v<decltype(b(Expr(1), 2)), Expr>);
    static_assert(std::is_same_v<decltype(b(1, Expr(2))), Expr>);

    Expr e = b(Expr(3), 1);
    const ir::Call* call = e.as<ir::Call>();
    REQUIRE(call);
    CHECK(call->call_type == ir::CallType::Image);
    CHECK(call->name == "weights");
    CHECK(call->type == Float(32));
    CHECK(call->image == b.contents());
    REQUIRE(call->args.size() == 2);
    CHECK(call->args[1].type() == Int(32));
    CHECK(b(std::vector<Expr>{Expr(0), Expr(0)}).as<ir::Call>());

    // Other integer coordinate types are cast to int32.
    Expr narrow = b(Expr(uint8_t(1)), Expr(int64_t(2)));
    CHECK(narrow.as<ir::Call>()->args[0].type() == Int(32));

    Buffer<> untyped = b;
    static_assert(std::is_same_v<decltype(untyped(1, 2)), Expr>);
    CHECK(untyped(1, 2).type() == Float(32));
}

TEST_CASE("an image access with the wrong number of coordinates or a float coordinate is a CompileError") {
    Buffer<int> b(4, 4);
    try {
        b(Expr(1), Expr(2), Expr(3));
        FAIL("no CompileError");
    } catch (const CompileError& e) {
        CHECK(std::string(e.what()) ==
              "Error: buffer " + b.name() + " has 2 dimensions but is accessed with 3 coordinates");
    }
    CHECK_THROWS_AS(b(Expr(1.5f), 0), CompileError);
    Buffer<int> undefined;
    CHECK_THROWS_AS(undefined(Expr(0)), CompileError);
}
