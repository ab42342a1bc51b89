// The LLVM code generator, JIT and runtime, on lowered functions built by hand: every value is
// checked against plain C++.

#include <doctest/doctest.h>

#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "targets/cpu_target.h"
#include "targets/jit.h"
#include "tessera/error.h"
#include "tessera/runtime.h"
#include "tessera/target.h"
#include "tests/unit/captured_errors.h"

using namespace tessera;
using namespace tessera::ir;
using tessera::lowering::LoweredArgument;
using tessera::lowering::LoweredFunction;
using tessera::targets::JITModule;
using tessera::test::CapturedErrors;

namespace {

// A dense buffer with min 0 (or the given mins) in every dimension, owning its memory. Bools are
// stored as bytes, as compiled code stores them.
template <typename T>
class TestBuffer {
public:
    using Storage = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

    explicit TestBuffer(std::vector<int> extents, std::vector<int> mins = {}) {
        int stride = 1;
        for (size_t d = 0; d < extents.size(); d++) {
            dims_.push_back({mins.empty() ? 0 : mins[d], extents[d], stride, 0});
            stride *= extents[d];
        }
        data_.assign(stride, Storage{});
        Type t = type_of<T>();
        raw_.type = {uint8_t(t.code()), uint8_t(t.bits()), uint16_t(t.lanes())};
        raw_.dimensions = int32_t(extents.size());
        raw_.dim = dims_.data();
        raw_.host = reinterpret_cast<uint8_t*>(data_.data());
    }
    TestBuffer(const TestBuffer&) = delete;
    TestBuffer& operator=(const TestBuffer&) = delete;

    tessera_buffer_t* raw() { return &raw_; }
    Storage& operator[](size_t i) { return data_.at(i); }
    size_t size() const { return data_.size(); }

private:
    std::vector<Storage> data_;
    std::vector<tessera_dimension_t> dims_;
    tessera_buffer_t raw_{};
};

Expr var(const std::string& name, Type t = Int(32)) { return Variable::make(t, name); }
Expr i32(int64_t v) { return IntImm::make(Int(32), v); }
Expr add(Expr a, Expr b) { return Add::make(std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return Sub::make(std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return Mul::make(std::move(a), std::move(b)); }
Stmt serial_loop(const std::string& name, Expr min, Expr extent, Stmt body) {
    return For::make(name, std::move(min), std::move(extent), ForKind::Serial, std::move(body));
}
Expr intrinsic(Type t, Intrinsic op, std::vector<Expr> args) {
    return Call::make_intrinsic(t, op, std::move(args));
}
Expr error_message(int code, std::vector<Expr> parts) {
    parts.insert(parts.begin(), i32(code));
    return intrinsic(Int(32), Intrinsic::ErrorMessage, std::move(parts));
}

LoweredArgument buffer_arg(const std::string& name, Type t, int dimensions = 1) {
    return {name, true, t, dimensions};
}
LoweredArgument scalar_arg(const std::string& name, Type t) { return {name, false, t, 0}; }

std::shared_ptr<JITModule> compile(const std::string& name, std::vector<LoweredArgument> args, Stmt body) {
    return targets::jit_compile(LoweredFunction{name, std::move(args), std::move(body)},
                                tessera::get_host_target());
}

// Counts the runtime's allocations and checks their alignment while it lives; can fail them all.
class CountingAllocator {
public:
    explicit CountingAllocator(bool fail = false) {
        state() = State{};
        state().fail = fail;
        tessera_set_custom_allocator(&CountingAllocator::allocate, &CountingAllocator::release);
    }
    ~CountingAllocator() { tessera_set_custom_allocator(nullptr, nullptr); }
    int allocations() const { return state().allocations; }
    int frees() const { return state().frees; }
    bool all_aligned() const { return state().all_aligned; }
    uint64_t last_size() const { return state().last_size; }

private:
    struct State {
        int allocations = 0, frees = 0;
        bool all_aligned = true, fail = false;
        uint64_t last_size = 0;
    };
    static State& state() {
        static State s;
        return s;
    }
    static void* allocate(void*, uint64_t size) {
        state().last_size = size;
        if (state().fail) return nullptr;
        void* p = std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
        state().allocations++;
        state().all_aligned = state().all_aligned && reinterpret_cast<uintptr_t>(p) % 64 == 0;
        return p;
    }
    static void release(void*, void* p) {
        state().frees++;
        std::free(p);
    }
};

// What f() writes to stderr (where print() goes).
template <typename F>
std::string capture_stderr(F f) {
    std::fflush(stderr);
    int saved = dup(2);
    FILE* file = std::tmpfile();
    dup2(fileno(file), 2);
    f();
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    std::rewind(file);
    std::string text;
    char chunk[256];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0) text.append(chunk, n);
    std::fclose(file);
    return text;
}

// Euclidean division and modulo, total (x / 0 == x % 0 == 0), wrapping like the generated code.
template <typename T>
T euclidean_div(T a, T b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        __int128 x = a, y = b, q = x / y;
        if (x % y < 0) q += y > 0 ? -1 : 1;
        return T(q);
    } else {
        return a / b;
    }
}

template <typename T>
T euclidean_mod(T a, T b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        __int128 x = a, y = b, r = x % y;
        if (r < 0) r += y > 0 ? y : -y;
        return T(r);
    } else {
        return a % b;
    }
}

template <typename T>
std::vector<T> interesting_values() {
    using L = std::numeric_limits<T>;
    std::vector<T> v = {L::min(), T(L::min() + 1), 0, 1, 2, 3, 7, 8, 100, T(L::max() - 1), L::max()};
    if constexpr (std::is_signed_v<T>) {
        for (T x : {-1, -2, -3, -7, -8, -100}) v.push_back(x);
    }
    return v;
}

template <typename T>
void check_div_mod_by_variables() {
    Type t = type_of<T>();
    std::vector<T> values = interesting_values<T>();
    int n = int(values.size() * values.size());
    TestBuffer<T> a({n}), b({n}), q({n}), r({n});
    for (size_t i = 0; i < values.size(); i++) {
        for (size_t j = 0; j < values.size(); j++) {
            a[i * values.size() + j] = values[i];
            b[i * values.size() + j] = values[j];
        }
    }
    Expr i = var("i");
    Expr ai = Load::make(t, "a", i), bi = Load::make(t, "b", i);
    Stmt body = Block::make({Store::make("q", Div::make(ai, bi), i), Store::make("r", Mod::make(ai, bi), i)});
    auto m =
        compile("div_mod", {buffer_arg("a", t), buffer_arg("b", t), buffer_arg("q", t), buffer_arg("r", t)},
                serial_loop("i", 0, n, body));
    void* args[] = {a.raw(), b.raw(), q.raw(), r.raw()};
    REQUIRE(m->call(args) == 0);
    for (int k = 0; k < n; k++) {
        CHECK_MESSAGE(q[k] == euclidean_div(a[k], b[k]),
                      type_name(t) << ": " << int64_t(a[k]) << " / " << int64_t(b[k]));
        CHECK_MESSAGE(r[k] == euclidean_mod(a[k], b[k]),
                      type_name(t) << ": " << int64_t(a[k]) << " % " << int64_t(b[k]));
    }
}

template <typename T>
void check_div_mod_by_constants(const std::vector<int64_t>& divisors) {
    Type t = type_of<T>();
    std::vector<T> values = interesting_values<T>();
    int n = int(values.size());
    int d = int(divisors.size());
    TestBuffer<T> a({n}), q({n * d}), r({n * d});
    for (int i = 0; i < n; i++) a[i] = values[i];
    Expr i = var("i");
    Expr ai = Load::make(t, "a", i);
    std::vector<Stmt> stores;
    for (int k = 0; k < d; k++) {
        Expr c = make_const(t, divisors[k]);
        stores.push_back(Store::make("q", Div::make(ai, c), add(i, i32(k * n))));
        stores.push_back(Store::make("r", Mod::make(ai, c), add(i, i32(k * n))));
    }
    auto m = compile("div_mod_const", {buffer_arg("a", t), buffer_arg("q", t), buffer_arg("r", t)},
                     serial_loop("i", 0, n, Block::make(stores)));
    void* args[] = {a.raw(), q.raw(), r.raw()};
    REQUIRE(m->call(args) == 0);
    for (int k = 0; k < d; k++) {
        T c = T(divisors[k]);
        for (int j = 0; j < n; j++) {
            CHECK_MESSAGE(q[k * n + j] == euclidean_div(a[j], c),
                          type_name(t) << ": " << int64_t(a[j]) << " / " << int64_t(c));
            CHECK_MESSAGE(r[k * n + j] == euclidean_mod(a[j], c),
                          type_name(t) << ": " << int64_t(a[j]) << " % " << int64_t(c));
        }
    }
}

// out[i] = cast<To>(in[i]), checked against reference.
template <typename From, typename To, typename Reference>
void check_cast(const std::vector<From>& inputs, Reference reference) {
    Type from = type_of<From>(), to = type_of<To>();
    int n = int(inputs.size());
    TestBuffer<From> in({n});
    TestBuffer<To> out({n});
    for (int i = 0; i < n; i++) in[i] = inputs[i];
    Expr i = var("i");
    auto m =
        compile("cast", {buffer_arg("in", from), buffer_arg("out", to)},
                serial_loop("i", 0, n, Store::make("out", Cast::make(to, Load::make(from, "in", i)), i)));
    void* args[] = {in.raw(), out.raw()};
    REQUIRE(m->call(args) == 0);
    for (int k = 0; k < n; k++) {
        CHECK_MESSAGE(To(out[k]) == reference(inputs[k]),
                      type_name(from) << " " << double(inputs[k]) << " to " << type_name(to));
    }
}

template <typename From, typename To>
void check_cast(const std::vector<From>& inputs) {
    check_cast<From, To>(inputs, [](From x) { return static_cast<To>(x); });
}

template <typename T>
T reference_shift(T a, T amount, bool left) {
    constexpr int bits = 8 * sizeof(T);
    using U = std::make_unsigned_t<T>;
    uint64_t magnitude = uint64_t(U(amount));
    if constexpr (std::is_signed_v<T>) {
        if (amount < 0) {
            left = !left;
            magnitude = uint64_t(-int64_t(amount));
        }
    }
    if (left) return magnitude >= bits ? T(0) : T(U(a) << magnitude);
    if constexpr (std::is_signed_v<T>) return magnitude >= bits ? T(a < 0 ? -1 : 0) : T(a >> magnitude);
    return magnitude >= bits ? T(0) : T(a >> magnitude);
}

template <typename T>
void check_shifts() {
    Type t = type_of<T>();
    std::vector<T> values = interesting_values<T>();
    std::vector<T> amounts;
    for (int s = 0; s <= 70; s++) amounts.push_back(T(s));
    if constexpr (std::is_signed_v<T>) {
        for (int s = 1; s <= 70; s++) amounts.push_back(T(-s));
    } else {
        amounts.push_back(std::numeric_limits<T>::max());
    }
    amounts.push_back(std::numeric_limits<T>::min());
    int n = int(values.size() * amounts.size());
    TestBuffer<T> a({n}), b({n}), left({n}), right({n});
    for (size_t i = 0; i < values.size(); i++) {
        for (size_t j = 0; j < amounts.size(); j++) {
            a[i * amounts.size() + j] = values[i];
            b[i * amounts.size() + j] = amounts[j];
        }
    }
    Expr i = var("i");
    Expr ai = Load::make(t, "a", i), bi = Load::make(t, "b", i);
    Stmt body = Block::make({Store::make("left", intrinsic(t, Intrinsic::ShiftLeft, {ai, bi}), i),
                             Store::make("right", intrinsic(t, Intrinsic::ShiftRight, {ai, bi}), i)});
    auto m = compile("shifts",
                     {buffer_arg("a", t), buffer_arg("b", t), buffer_arg("left", t), buffer_arg("right", t)},
                     serial_loop("i", 0, n, body));
    void* args[] = {a.raw(), b.raw(), left.raw(), right.raw()};
    REQUIRE(m->call(args) == 0);
    for (int k = 0; k < n; k++) {
        CHECK_MESSAGE(left[k] == reference_shift(a[k], b[k], true),
                      type_name(t) << ": " << int64_t(a[k]) << " << " << int64_t(b[k]));
        CHECK_MESSAGE(right[k] == reference_shift(a[k], b[k], false),
                      type_name(t) << ": " << int64_t(a[k]) << " >> " << int64_t(b[k]));
    }
}

}  // namespace

TEST_CASE("a loop over an output buffer's region writes x * x at each site") {
    // for x in [min, min + extent): f[x - min] = x * x, with the region read from the descriptor.
    Expr f_buffer = var("f.buffer", Handle());
    Expr min = intrinsic(Int(32), Intrinsic::BufferMin, {f_buffer, i32(0)});
    Expr extent = intrinsic(Int(32), Intrinsic::BufferExtent, {f_buffer, i32(0)});
    Expr x = var("x");
    Stmt body = LetStmt::make(
        "f.min", min,
        serial_loop("x", var("f.min"), extent, Store::make("f", mul(x, x), sub(x, var("f.min")))));
    auto m = compile("squares", {buffer_arg("f", Int(32))}, body);
    TestBuffer<int32_t> f({13}, {-4});
    void* args[] = {f.raw()};
    REQUIRE(m->call(args) == 0);
    for (int i = 0; i < 13; i++) CHECK_MESSAGE(f[i] == (i - 4) * (i - 4), "at x = " << i - 4);
    MESSAGE("compiled in " << m->compile_seconds() * 1000 << " ms");
}

TEST_CASE("TESSERA_DUMP_LLVM=1 keeps the optimized LLVM IR") {
    setenv("TESSERA_DUMP_LLVM", "1", 1);
    auto m = compile("dumped", {buffer_arg("f", Int(32))}, Store::make("f", i32(7), i32(0)));
    unsetenv("TESSERA_DUMP_LLVM");
    CHECK(m->llvm_ir().find("define") != std::string::npos);
}

TEST_CASE("integer division and modulo are Euclidean and give zero for a zero divisor") {
    check_div_mod_by_variables<int8_t>();
    check_div_mod_by_variables<int16_t>();
    check_div_mod_by_variables<int32_t>();
    check_div_mod_by_variables<int64_t>();
    check_div_mod_by_variables<uint8_t>();
    check_div_mod_by_variables<uint32_t>();
}

TEST_CASE("division and modulo by constants agree with division by variables") {
    std::vector<int64_t> signed_divisors = {-128, -8, -7, -3, -2, -1, 0, 1, 2, 3, 4, 7, 8, 16, 100, 127};
    check_div_mod_by_constants<int8_t>(signed_divisors);
    check_div_mod_by_constants<int32_t>(signed_divisors);
    check_div_mod_by_constants<uint32_t>({0, 1, 2, 3, 4, 7, 8, 100, 4294967295});
}

TEST_CASE("float division is IEEE and float modulo is a - b * floor(a / b)") {
    std::vector<std::pair<float, float>> pairs = {{7.5f, 2},  {-7.5f, 2}, {7.5f, -2},
                                                  {-1.5f, 1}, {1, 0},     {5, 0.1f}};
    int n = int(pairs.size());
    TestBuffer<float> a({n}), b({n}), q({n}), r({n});
    for (int i = 0; i < n; i++) a[i] = pairs[i].first, b[i] = pairs[i].second;
    Expr i = var("i");
    Expr ai = Load::make(Float(32), "a", i), bi = Load::make(Float(32), "b", i);
    Stmt body = Block::make({Store::make("q", Div::make(ai, bi), i), Store::make("r", Mod::make(ai, bi), i)});
    auto m = compile("float_div_mod",
                     {buffer_arg("a", Float(32)), buffer_arg("b", Float(32)), buffer_arg("q", Float(32)),
                      buffer_arg("r", Float(32))},
                     serial_loop("i", 0, n, body));
    void* args[] = {a.raw(), b.raw(), q.raw(), r.raw()};
    REQUIRE(m->call(args) == 0);
    for (int k = 0; k < n; k++) {
        float x = a[k], y = b[k];
        CHECK(q[k] == x / y);
        float expected = x - y * std::floor(x / y);
        if (std::isnan(expected))
            CHECK(std::isnan(r[k]));
        else
            CHECK_MESSAGE(r[k] == expected, x << " mod " << y);
    }
    CHECK(r[3] == 0.5f);
}

TEST_CASE("casts extend by the source's signedness, truncate, and convert like C") {
    check_cast<int8_t, int32_t>({-128, -1, 0, 1, 127});
    check_cast<uint8_t, int32_t>({0, 1, 128, 255});
    check_cast<int32_t, int8_t>({-129, -128, 127, 128, 255, 256, 1000});
    check_cast<int32_t, uint16_t>({-1, 65535, 65536, 70000});
    check_cast<int8_t, uint64_t>({-1, -128, 5});
    check_cast<float, int32_t>({-2.9f, -0.5f, 0.f, 2.9f, 1e9f});
    check_cast<float, uint8_t>({0.f, 1.9f, 254.99f});
    check_cast<double, uint32_t>({0.0, 4294967295.0, 3e9});
    check_cast<int32_t, float>({-16777217, -1, 0, 16777217});
    check_cast<uint32_t, float>({0u, 4294967295u, 2147483648u});
    check_cast<uint64_t, double>({0ull, 18446744073709551615ull});
    check_cast<float, double>({-1.5f, 1e-30f, 3.25f});
    check_cast<double, float>({1.0 / 3.0, 1e300, -1e-300});
    check_cast<int32_t, bool>({-5, 0, 1, 256}, [](int32_t x) { return x != 0; });
    check_cast<float, bool>({0.f, -0.f, 0.5f, std::nanf("")}, [](float x) { return x != 0; });
    check_cast<bool, int32_t>({true, false});
    check_cast<bool, float>({true, false});
}

TEST_CASE("bools are i1 in registers and bytes of 0 or 1 in memory") {
    // out[i] = !in[i] && (i % 2 == 0) || flag
    int n = 8;
    TestBuffer<bool> in({n}), out({n});
    for (int i = 0; i < n; i++) in[i] = i % 3 == 0;
    Expr i = var("i");
    Expr even = EQ::make(Mod::make(i, i32(2)), i32(0));
    Expr value = Or::make(And::make(Not::make(Load::make(Bool(), "in", i)), even), var("flag", Bool()));
    auto m =
        compile("bools", {buffer_arg("in", Bool()), scalar_arg("flag", Bool()), buffer_arg("out", Bool())},
                serial_loop("i", 0, n, Store::make("out", value, i)));
    for (bool flag : {false, true}) {
        bool flag_value = flag;
        void* args[] = {in.raw(), &flag_value, out.raw()};
        REQUIRE(m->call(args) == 0);
        for (int k = 0; k < n; k++) {
            bool expected = (!(k % 3 == 0) && k % 2 == 0) || flag;
            CHECK_MESSAGE(out[k] == uint8_t(expected), "at " << k << " with flag " << flag);
        }
    }
}

TEST_CASE("scalar arguments of several types are read through their pointers") {
    Expr value =
        add(add(add(add(Cast::make(Float(64), var("a", Int(8))), Cast::make(Float(64), var("b", UInt(16)))),
                    Cast::make(Float(64), var("c", Float(32)))),
                var("d", Float(64))),
            Cast::make(Float(64), var("e", Int(64))));
    auto m = compile("scalars",
                     {scalar_arg("a", Int(8)), scalar_arg("b", UInt(16)), scalar_arg("c", Float(32)),
                      scalar_arg("d", Float(64)), scalar_arg("e", Int(64)), buffer_arg("out", Float(64))},
                     Store::make("out", value, i32(0)));
    int8_t a = -3;
    uint16_t b = 60000;
    float c = 0.5f;
    double d = 0.25;
    int64_t e = int64_t(1) << 40;
    TestBuffer<double> out({1});
    void* args[] = {&a, &b, &c, &d, &e, out.raw()};
    REQUIRE(m->call(args) == 0);
    CHECK(out[0] == -3.0 + 60000.0 + 0.5 + 0.25 + double(e));
}

TEST_CASE("min, max, comparisons and select follow the operand type") {
    Expr a32 = var("a", Int(32)), b32 = var("b", Int(32));
    Expr au = Reinterpret::make(UInt(32), a32), bu = Reinterpret::make(UInt(32), b32);
    Expr fa = var("fa", Float(32)), fb = var("fb", Float(32));
    auto to_int = [](Expr e) { return Cast::make(Int(32), e); };
    std::vector<Expr> results = {
        Min::make(a32, b32),
        Max::make(a32, b32),
        Reinterpret::make(Int(32), Min::make(au, bu)),
        Reinterpret::make(Int(32), Max::make(au, bu)),
        to_int(LT::make(a32, b32)),
        to_int(LT::make(au, bu)),
        to_int(Min::make(fa, fb)),
        to_int(Max::make(fa, fb)),
        to_int(NE::make(fa, fb)),
        to_int(EQ::make(fa, fb)),
        to_int(LE::make(fa, fb)),
        Select::make(GE::make(a32, b32), i32(10), i32(20)),
        to_int(intrinsic(Bool(), Intrinsic::IsNan, {Min::make(fa, fb)})),
    };
    std::vector<Stmt> stores;
    for (size_t k = 0; k < results.size(); k++) stores.push_back(Store::make("out", results[k], i32(int(k))));
    auto m = compile("compare",
                     {scalar_arg("a", Int(32)), scalar_arg("b", Int(32)), scalar_arg("fa", Float(32)),
                      scalar_arg("fb", Float(32)), buffer_arg("out", Int(32))},
                     Block::make(stores));
    int32_t a = -5, b = 3;
    float nan = std::nanf(""), one = 1;
    TestBuffer<int32_t> out({int(results.size())});
    {
        float x = 2, y = 7;
        void* args[] = {&a, &b, &x, &y, out.raw()};
        REQUIRE(m->call(args) == 0);
        std::vector<int32_t> expected = {-5, 3, 3, -5, 1, 0, 2, 7, 1, 0, 1, 20, 0};
        for (size_t k = 0; k < expected.size(); k++) CHECK_MESSAGE(out[k] == expected[k], "result " << k);
    }
    {
        // min(NaN, 1) is 1 (NaN < 1 is false); min(1, NaN) is NaN.
        void* args[] = {&a, &b, &nan, &one, out.raw()};
        REQUIRE(m->call(args) == 0);
        CHECK(out[6] == 1);
        CHECK(out[8] == 1);  // NaN != 1
        CHECK(out[9] == 0);
        CHECK(out[12] == 0);
        void* swapped[] = {&a, &b, &one, &nan, out.raw()};
        REQUIRE(m->call(swapped) == 0);
        CHECK(out[12] == 1);
    }
}

TEST_CASE("math intrinsics match the C library for float32 and float64") {
    std::vector<double> inputs = {0.25, 0.5, 1.0, 1.75, 2.5, 3.5, 10.75};
    std::vector<Intrinsic> ops = {Intrinsic::Sqrt, Intrinsic::Exp,   Intrinsic::Log,   Intrinsic::Sin,
                                  Intrinsic::Cos,  Intrinsic::Tan,   Intrinsic::Tanh,  Intrinsic::Floor,
                                  Intrinsic::Ceil, Intrinsic::Trunc, Intrinsic::Round, Intrinsic::Pow};
    auto reference = [](Intrinsic op, double x) {
        switch (op) {
            case Intrinsic::Sqrt: return std::sqrt(x);
            case Intrinsic::Exp: return std::exp(x);
            case Intrinsic::Log: return std::log(x);
            case Intrinsic::Sin: return std::sin(x);
            case Intrinsic::Cos: return std::cos(x);
            case Intrinsic::Tan: return std::tan(x);
            case Intrinsic::Tanh: return std::tanh(x);
            case Intrinsic::Floor: return std::floor(x);
            case Intrinsic::Ceil: return std::ceil(x);
            case Intrinsic::Trunc: return std::trunc(x);
            case Intrinsic::Round: return std::nearbyint(x);
            case Intrinsic::Pow: return std::pow(x, 1.5);
            default: return 0.0;
        }
    };
    for (int bits : {32, 64}) {
        Type t = Float(bits);
        int n = int(inputs.size());
        TestBuffer<double> in({n}), out({n * int(ops.size())});
        for (int i = 0; i < n; i++) in[i] = inputs[i];
        Expr i = var("i");
        Expr x = Cast::make(t, Load::make(Float(64), "in", i));
        std::vector<Stmt> stores;
        for (size_t k = 0; k < ops.size(); k++) {
            std::vector<Expr> args = {x};
            if (ops[k] == Intrinsic::Pow) args.push_back(make_const(t, 1.5));
            Expr value = Cast::make(Float(64), intrinsic(t, ops[k], args));
            stores.push_back(Store::make("out", value, add(i, i32(int(k) * n))));
        }
        auto m = compile("math", {buffer_arg("in", Float(64)), buffer_arg("out", Float(64))},
                         serial_loop("i", 0, n, Block::make(stores)));
        void* args[] = {in.raw(), out.raw()};
        REQUIRE(m->call(args) == 0);
        for (size_t k = 0; k < ops.size(); k++) {
            for (int j = 0; j < n; j++) {
                double expected = bits == 32 ? double(float(reference(ops[k], double(float(inputs[j])))))
                                             : reference(ops[k], inputs[j]);
                CHECK_MESSAGE(out[k * n + j] == doctest::Approx(expected).epsilon(bits == 32 ? 1e-6 : 1e-14),
                              intrinsic_name(ops[k]) << "(" << inputs[j] << ") as float" << bits);
            }
        }
    }
}

TEST_CASE("round is half to even and abs of a signed integer is unsigned") {
    std::vector<float> halves = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f};
    int n = int(halves.size());
    TestBuffer<float> in({n}), rounded({n}), absolute({n});
    for (int i = 0; i < n; i++) in[i] = halves[i];
    TestBuffer<int8_t> small({4});
    TestBuffer<uint8_t> small_abs({4});
    small[0] = -128, small[1] = -1, small[2] = 0, small[3] = 127;
    TestBuffer<int32_t> big({2});
    TestBuffer<uint32_t> big_abs({2});
    big[0] = std::numeric_limits<int32_t>::min(), big[1] = -7;
    Expr i = var("i");
    Expr x = Load::make(Float(32), "in", i);
    Stmt s = Block::make({
        serial_loop("i", 0, n,
                    Block::make({Store::make("rounded", intrinsic(Float(32), Intrinsic::Round, {x}), i),
                                 Store::make("absolute", intrinsic(Float(32), Intrinsic::Abs, {x}), i)})),
        serial_loop("i", 0, 4,
                    Store::make("small_abs",
                                intrinsic(UInt(8), Intrinsic::Abs, {Load::make(Int(8), "small", i)}), i)),
        serial_loop(
            "i", 0, 2,
            Store::make("big_abs", intrinsic(UInt(32), Intrinsic::Abs, {Load::make(Int(32), "big", i)}), i)),
    });
    auto m = compile(
        "round_abs",
        {buffer_arg("in", Float(32)), buffer_arg("rounded", Float(32)), buffer_arg("absolute", Float(32)),
         buffer_arg("small", Int(8)), buffer_arg("small_abs", UInt(8)), buffer_arg("big", Int(32)),
         buffer_arg("big_abs", UInt(32))},
        s);
    void* args[] = {in.raw(),        rounded.raw(), absolute.raw(), small.raw(),
                    small_abs.raw(), big.raw(),     big_abs.raw()};
    REQUIRE(m->call(args) == 0);
    std::vector<float> expected = {-2, -2, -0.f, 0, 2, 2, 4};
    for (int k = 0; k < n; k++) {
        CHECK_MESSAGE(rounded[k] == expected[k], "round(" << halves[k] << ")");
        CHECK(absolute[k] == std::fabs(halves[k]));
    }
    CHECK(small_abs[0] == 128);
    CHECK(small_abs[1] == 1);
    CHECK(small_abs[3] == 127);
    CHECK(big_abs[0] == 2147483648u);
    CHECK(big_abs[1] == 7u);
}

TEST_CASE("shifts are total: negative amounts shift the other way, large ones give 0 or the sign") {
    check_shifts<int8_t>();
    check_shifts<int32_t>();
    check_shifts<uint8_t>();
    check_shifts<uint32_t>();
}

TEST_CASE("bitwise intrinsics and wrapping arithmetic") {
    Expr a = var("a", UInt(8)), b = var("b", UInt(8));
    Expr ia = var("ia"), ib = var("ib");
    std::vector<Expr> results = {
        Cast::make(Int(32), intrinsic(UInt(8), Intrinsic::BitAnd, {a, b})),
        Cast::make(Int(32), intrinsic(UInt(8), Intrinsic::BitOr, {a, b})),
        Cast::make(Int(32), intrinsic(UInt(8), Intrinsic::BitXor, {a, b})),
        Cast::make(Int(32), intrinsic(UInt(8), Intrinsic::BitNot, {a})),
        Cast::make(Int(32), Add::make(a, b)),  // wraps at 8 bits
        Add::make(ia, ib),                     // wraps at 32 bits
        Mul::make(ia, ib),
        Sub::make(i32(std::numeric_limits<int32_t>::min()), ib),
    };
    std::vector<Stmt> stores;
    for (size_t k = 0; k < results.size(); k++) stores.push_back(Store::make("out", results[k], i32(int(k))));
    auto m = compile("bits",
                     {scalar_arg("a", UInt(8)), scalar_arg("b", UInt(8)), scalar_arg("ia", Int(32)),
                      scalar_arg("ib", Int(32)), buffer_arg("out", Int(32))},
                     Block::make(stores));
    uint8_t av = 0xCA, bv = 0x5F;
    int32_t iav = std::numeric_limits<int32_t>::max(), ibv = 3;
    TestBuffer<int32_t> out({int(results.size())});
    void* args[] = {&av, &bv, &iav, &ibv, out.raw()};
    REQUIRE(m->call(args) == 0);
    CHECK(out[0] == (0xCA & 0x5F));
    CHECK(out[1] == (0xCA | 0x5F));
    CHECK(out[2] == (0xCA ^ 0x5F));
    CHECK(out[3] == 0x35);
    CHECK(out[4] == ((0xCA + 0x5F) & 0xFF));
    CHECK(out[5] == int32_t(uint32_t(iav) + 3u));
    CHECK(out[6] == int32_t(uint32_t(iav) * 3u));
    CHECK(out[7] == int32_t(uint32_t(std::numeric_limits<int32_t>::min()) - 3u));
}

TEST_CASE("the buffer intrinsics read the descriptor") {
    Expr buf = var("in.buffer", Handle());
    std::vector<Expr> fields = {
        intrinsic(Int(32), Intrinsic::BufferDimensions, {buf}),
        intrinsic(Int(32), Intrinsic::BufferTypeCode, {buf}),
        intrinsic(Int(32), Intrinsic::BufferTypeBits, {buf}),
        intrinsic(Int(32), Intrinsic::BufferTypeLanes, {buf}),
        intrinsic(Int(32), Intrinsic::BufferMin, {buf, i32(0)}),
        intrinsic(Int(32), Intrinsic::BufferExtent, {buf, i32(0)}),
        intrinsic(Int(32), Intrinsic::BufferStride, {buf, i32(0)}),
        intrinsic(Int(32), Intrinsic::BufferMin, {buf, i32(1)}),
        intrinsic(Int(32), Intrinsic::BufferExtent, {buf, i32(1)}),
        intrinsic(Int(32), Intrinsic::BufferStride, {buf, i32(1)}),
        Cast::make(Int(32), EQ::make(intrinsic(Handle(), Intrinsic::BufferHost, {buf}), var("in", Handle()))),
    };
    std::vector<Stmt> stores;
    for (size_t k = 0; k < fields.size(); k++) stores.push_back(Store::make("out", fields[k], i32(int(k))));
    auto m =
        compile("fields", {buffer_arg("in", UInt(16), 2), buffer_arg("out", Int(32))}, Block::make(stores));
    TestBuffer<uint16_t> in({5, 3}, {-2, 7});
    TestBuffer<int32_t> out({int(fields.size())});
    void* args[] = {in.raw(), out.raw()};
    REQUIRE(m->call(args) == 0);
    std::vector<int32_t> expected = {2, tessera_type_uint, 16, 1, -2, 5, 1, 7, 3, 5, 1};
    for (size_t k = 0; k < expected.size(); k++) CHECK_MESSAGE(out[k] == expected[k], "field " << k);
}

TEST_CASE("a failed assertion returns its code and reports its message, once") {
    CapturedErrors errors;
    Expr x = var("x");
    Stmt body = Block::make({
        AssertStmt::make(
            LT::make(x, i32(5)),
            error_message(tessera_error_bad_argument,
                          {StringImm::make("x is "), x, StringImm::make(" but must be below "), i32(5),
                           StringImm::make(" ("), FloatImm::make(Float(32), 2.5), StringImm::make(", "),
                           UIntImm::make(UInt(8), 200), StringImm::make(")")})),
        Store::make("out", x, i32(0)),
        AssertStmt::make(GT::make(x, i32(-5)),
                         error_message(tessera_error_generic, {StringImm::make("too small")})),
    });
    auto m = compile("checked", {scalar_arg("x", Int(32)), buffer_arg("out", Int(32))}, body);
    TestBuffer<int32_t> out({1});
    int32_t x_value = 3;
    void* args[] = {&x_value, out.raw()};
    CHECK(m->call(args) == 0);
    CHECK(out[0] == 3);
    CHECK(errors.messages().empty());

    x_value = 9;
    out[0] = 0;
    CHECK(m->call(args) == tessera_error_bad_argument);
    CHECK(out[0] == 0);  // nothing after the failed assertion ran
    REQUIRE(errors.messages().size() == 1);
    CHECK(errors.messages()[0] == "x is 9 but must be below 5 (2.500000, 200)");

    x_value = -7;
    CHECK(m->call(args) == tessera_error_generic);
    REQUIRE(errors.messages().size() == 2);
    CHECK(errors.messages()[1] == "too small");
}

TEST_CASE("the default error handler prints Error: and the message to stderr") {
    auto m = compile(
        "always_fails", {},
        AssertStmt::make(const_false(), error_message(tessera_error_generic, {StringImm::make("boom")})));
    int32_t result = 0;
    std::string text = capture_stderr([&] { result = m->call(nullptr); });
    CHECK(result == tessera_error_generic);
    CHECK(text == "Error: boom\n");
}

TEST_CASE("an allocation inside a loop is fresh, aligned, and freed each iteration") {
    // for y in [0, 4): allocate tmp[16]; for x: tmp[x] = x + y; for x: out[y * 16 + x] = tmp[15 - x] * 2
    CountingAllocator allocator;
    Expr x = var("x"), y = var("y");
    Stmt fill = serial_loop("x", 0, 16, Store::make("tmp", add(x, y), x));
    Stmt use = serial_loop("x", 0, 16,
                           Store::make("out", mul(Load::make(Int(32), "tmp", sub(i32(15), x)), i32(2)),
                                       add(mul(y, i32(16)), x)));
    Stmt body = serial_loop(
        "y", 0, 4,
        Allocate::make("tmp", Int(32), {i32(4), i32(4)}, Block::make({fill, use, Free::make("tmp")})));
    auto m = compile("scratch", {buffer_arg("out", Int(32))}, body);
    TestBuffer<int32_t> out({64});
    void* args[] = {out.raw()};
    REQUIRE(m->call(args) == 0);
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 16; xx++) CHECK(out[yy * 16 + xx] == (15 - xx + yy) * 2);
    CHECK(allocator.allocations() == 4);
    CHECK(allocator.frees() == 4);
    CHECK(allocator.all_aligned());
    CHECK(allocator.last_size() == 64);
}

TEST_CASE("a failed assertion inside allocations frees them before returning") {
    CapturedErrors errors;
    CountingAllocator allocator;
    Expr x = var("x");
    Stmt inner = Allocate::make(
        "b", Float(32), {i32(8)},
        Block::make({Store::make("b", FloatImm::make(Float(32), 1), i32(0)),
                     AssertStmt::make(LT::make(x, i32(0)),
                                      error_message(tessera_error_generic, {StringImm::make("no")}))}));
    Stmt body = Allocate::make("a", UInt(8), {i32(3), i32(5)},
                               Block::make({Store::make("a", UIntImm::make(UInt(8), 1), i32(0)), inner}));
    auto m = compile("leaky", {scalar_arg("x", Int(32))}, body);
    int32_t x_value = 1;
    void* args[] = {&x_value};
    CHECK(m->call(args) == tessera_error_generic);
    CHECK(allocator.allocations() == 2);
    CHECK(allocator.frees() == 2);
}

TEST_CASE("a failed allocation returns out-of-memory and names the allocation") {
    CapturedErrors errors;
    CountingAllocator allocator(/*fail=*/true);
    Stmt body = Allocate::make("big_scratch", Float(64), {var("n"), i32(1000)},
                               Store::make("big_scratch", FloatImm::make(Float(64), 0), i32(0)));
    auto m = compile("oom", {scalar_arg("n", Int(32))}, body);
    int32_t n = 1000000;
    void* args[] = {&n};
    CHECK(m->call(args) == tessera_error_out_of_memory);
    REQUIRE(errors.messages().size() == 1);
    CHECK(errors.messages()[0].find("big_scratch") != std::string::npos);
    CHECK(allocator.last_size() == uint64_t(8) * 1000000 * 1000);  // computed in 64 bits
}

TEST_CASE("print and print_when write one line of space-separated values and return their value") {
    Expr x = var("x");
    Expr printed = intrinsic(Int(32), Intrinsic::Print,
                             {x, StringImm::make("is"), FloatImm::make(Float(32), 1.5),
                              UIntImm::make(UInt(16), 7), make_const(Int(8), int64_t(-3))});
    Expr when = intrinsic(Int(32), Intrinsic::PrintWhen,
                          {EQ::make(x, i32(2)), mul(x, i32(10)), StringImm::make("two:"), x});
    Stmt body = serial_loop(
        "x", 0, 3, Block::make({Store::make("out", add(printed, i32(1)), x), Store::make("out2", when, x)}));
    auto m = compile("printing", {buffer_arg("out", Int(32)), buffer_arg("out2", Int(32))}, body);
    TestBuffer<int32_t> out({3}), out2({3});
    void* args[] = {out.raw(), out2.raw()};
    int32_t result = -1;
    std::string text = capture_stderr([&] { result = m->call(args); });
    CHECK(result == 0);
    CHECK(text == "0 is 1.500000 7 -3\n1 is 1.500000 7 -3\n2 is 1.500000 7 -3\n20 two: 2\n");
    for (int i = 0; i < 3; i++) {
        CHECK(out[i] == i + 1);
        CHECK(out2[i] == i * 10);
    }
}

TEST_CASE("lets, if-then-else and extern calls") {
    // for x in [0, 6): let h = hypotf(x, 1) in if (x % 2 == 0) out[x] = h else out[x] = -h
    Expr x = var("x");
    Expr fx = Cast::make(Float(32), x);
    Expr h = Call::make_extern(Float(32), "hypotf", {fx, FloatImm::make(Float(32), 1)});
    Expr hv = var("h", Float(32));
    Stmt branch = IfThenElse::make(
        intrinsic(Bool(), Intrinsic::Likely, {EQ::make(Mod::make(x, i32(2)), i32(0))}),
        Store::make("out", hv, x),
        Store::make("out", Let::make("m", FloatImm::make(Float(32), -1), mul(hv, var("m", Float(32)))), x));
    auto m = compile("lets", {buffer_arg("out", Float(32))},
                     serial_loop("x", 0, 6, LetStmt::make("h", h, branch)));
    TestBuffer<float> out({6});
    void* args[] = {out.raw()};
    REQUIRE(m->call(args) == 0);
    for (int i = 0; i < 6; i++) CHECK(out[i] == (i % 2 == 0 ? 1 : -1) * hypotf(float(i), 1.f));
}

TEST_CASE("a call to an undefined external function is a compile error") {
    Expr bad = Call::make_extern(Float(32), "tessera_no_such_function", {FloatImm::make(Float(32), 1)});
    CHECK_THROWS_AS(compile("undefined", {buffer_arg("out", Float(32))}, Store::make("out", bad, i32(0))),
                    CompileError);
}

TEST_CASE("vector loads and stores: dense, reversed, broadcast, gathered and scattered") {
    const int lanes = 8, n = 32;
    TestBuffer<int32_t> in({n}), dense({n}), reversed({n}), gathered({n}), scattered({2 * n}), splat({n});
    TestBuffer<int32_t> quotient({n}), quotient2({n}), remainder2({n});
    for (int i = 0; i < n; i++) in[i] = i * 7 - 100;
    Expr x = var("x");
    Type v = Int(32, lanes);
    Expr ramp = Ramp::make(x, i32(1), lanes);
    Expr values = Load::make(v, "in", ramp);
    // x runs over 0, 8, 16, 24
    Stmt body = Block::make({
        Store::make("dense", mul(values, Broadcast::make(i32(3), lanes)), ramp),
        Store::make("reversed", values, Ramp::make(sub(i32(n - 1), x), i32(-1), lanes)),
        Store::make("gathered", Load::make(v, "in", Ramp::make(Div::make(x, i32(2)), i32(2), lanes)), ramp),
        Store::make("scattered", values, Ramp::make(mul(x, i32(2)), i32(2), lanes)),
        Store::make("splat", Load::make(v, "in", Broadcast::make(x, lanes)), ramp),
        Store::make("quotient", Div::make(values, Ramp::make(i32(-4), i32(1), lanes)), ramp),
        // Divisors that LLVM sees as constants only once it has unrolled the loop.
        Store::make("quotient2", Div::make(values, Ramp::make(sub(var("xo"), i32(4)), i32(1), lanes)), ramp),
        Store::make("remainder2", Mod::make(values, Ramp::make(sub(var("xo"), i32(4)), i32(1), lanes)), ramp),
    });
    Stmt loop = serial_loop("xo", 0, n / lanes, LetStmt::make("x", mul(var("xo"), i32(lanes)), body));
    auto m =
        compile("vectors",
                {buffer_arg("in", Int(32)), buffer_arg("dense", Int(32)), buffer_arg("reversed", Int(32)),
                 buffer_arg("gathered", Int(32)), buffer_arg("scattered", Int(32)),
                 buffer_arg("splat", Int(32)), buffer_arg("quotient", Int(32)),
                 buffer_arg("quotient2", Int(32)), buffer_arg("remainder2", Int(32))},
                loop);
    void* args[] = {in.raw(),    dense.raw(),    reversed.raw(),  gathered.raw(),  scattered.raw(),
                    splat.raw(), quotient.raw(), quotient2.raw(), remainder2.raw()};
    REQUIRE(m->call(args) == 0);
    for (int i = 0; i < n; i++) {
        int base = i / lanes * lanes, lane = i % lanes;
        CHECK(dense[i] == in[i] * 3);
        CHECK(reversed[n - 1 - i] == in[i]);
        CHECK(gathered[i] == in[base / 2 + 2 * lane]);
        CHECK(scattered[2 * i] == in[i]);
        CHECK(splat[i] == in[base]);
        CHECK_MESSAGE(quotient[i] == euclidean_div(in[i], lane - 4), in[i] << " / " << lane - 4);
        int divisor = i / lanes - 4 + lane;
        CHECK_MESSAGE(quotient2[i] == euclidean_div(in[i], divisor), in[i] << " / " << divisor);
        CHECK_MESSAGE(remainder2[i] == euclidean_mod(in[i], divisor), in[i] << " % " << divisor);
    }
}

TEST_CASE("a register array accessed by 24-lane vectors lives in power-of-two vectors, with its values") {
    // A register tile of two rows, each three 8-lane vectors wide, accumulated over a loop:
    //   acc = 0; for k in [0, 16): acc row 0 += in[k][0..24), acc row 1 (reversed) += in[k][24..48)
    // then copied out. Promoted whole, a row would be a 24-lane phi, which x86 instruction
    // selection takes apart lane by lane through the stack at every k: ten times slower.
    const int lanes = 24, steps = 16;
    TestBuffer<float> in({2 * lanes * steps}), out({2 * lanes});
    for (int i = 0; i < 2 * lanes * steps; i++) in[i] = float(i % 37) * 0.5f - 3.0f;
    Type v = Float(32, lanes);
    auto row = [&](int r) { return Ramp::make(i32(r * lanes), i32(1), lanes); };
    const Expr reversed_row = Ramp::make(i32(2 * lanes - 1), i32(-1), lanes);
    auto input_row = [&](int r) {
        return Ramp::make(add(mul(var("k"), i32(2 * lanes)), i32(r * lanes)), i32(1), lanes);
    };
    // The number of steps is an argument, so that LLVM cannot unroll the loop away.
    Stmt accumulate = serial_loop(
        "k", 0, var("steps"),
        Block::make({
            Store::make("acc", add(Load::make(v, "acc", row(0)), Load::make(v, "in", input_row(0))), row(0)),
            Store::make("acc", add(Load::make(v, "acc", reversed_row), Load::make(v, "in", input_row(1))),
                        reversed_row),
        }));
    Stmt body = Block::make({
        Store::make("acc", Broadcast::make(FloatImm::make(Float(32), 0.0), 2 * lanes),
                    Ramp::make(i32(0), i32(1), 2 * lanes)),
        accumulate,
        Store::make("out", Load::make(v, "acc", row(0)), row(0)),
        Store::make("out", Load::make(v, "acc", row(1)), row(1)),
    });
    setenv("TESSERA_DUMP_LLVM", "1", 1);
    auto m =
        compile("wide_tile",
                {scalar_arg("steps", Int(32)), buffer_arg("in", Float(32)), buffer_arg("out", Float(32))},
                Allocate::make("acc", Float(32), {i32(2 * lanes)}, body, MemoryType::Register));
    unsetenv("TESSERA_DUMP_LLVM");
    int32_t step_count = steps;
    void* args[] = {&step_count, in.raw(), out.raw()};
    REQUIRE(m->call(args) == 0);
    for (int i = 0; i < lanes; i++) {
        float first = 0.0f, second = 0.0f;
        for (int k = 0; k < steps; k++)
            first += in[k * 2 * lanes + i], second += in[k * 2 * lanes + lanes + i];
        CHECK(out[i] == first);
        CHECK(out[2 * lanes - 1 - i] == second);
    }
    CHECK_MESSAGE(m->llvm_ir().find("alloca") == std::string::npos, m->llvm_ir());
    const std::string ir = m->llvm_ir();
    const std::regex vector_phi("phi <([0-9]+) x float>");
    for (auto it = std::sregex_iterator(ir.begin(), ir.end(), vector_phi); it != std::sregex_iterator(); ++it)
        CHECK_MESSAGE(std::has_single_bit(unsigned(std::stoi((*it)[1]))), "a phi of " << (*it)[1]
                                                                                      << " lanes in\n"
                                                                                      << ir);
}

TEST_CASE("vector bools, casts, selects and math work lane by lane") {
    const int lanes = 4, n = 8;
    TestBuffer<float> in({n}), out({n}), hyperbolic({n});
    TestBuffer<bool> positive({n});
    for (int i = 0; i < n; i++) in[i] = float(i) - 3.5f;
    Expr x = var("x");
    Expr ramp = Ramp::make(x, i32(1), lanes);
    Expr values = Load::make(Float(32, lanes), "in", ramp);
    Expr is_positive = GT::make(values, Broadcast::make(FloatImm::make(Float(32), 0), lanes));
    Expr rounded =
        Cast::make(Float(32, lanes),
                   Cast::make(Int(32, lanes), intrinsic(Float(32, lanes), Intrinsic::Floor, {values})));
    Stmt body = Block::make({
        Store::make("positive", is_positive, ramp),
        Store::make(
            "out", Select::make(is_positive, intrinsic(Float(32, lanes), Intrinsic::Sqrt, {values}), rounded),
            ramp),
        Store::make("hyperbolic", intrinsic(Float(32, lanes), Intrinsic::Tanh, {values}), ramp),
    });
    auto m = compile("vector_misc",
                     {buffer_arg("in", Float(32)), buffer_arg("out", Float(32)),
                      buffer_arg("positive", Bool()), buffer_arg("hyperbolic", Float(32))},
                     serial_loop("xo", 0, n / lanes, LetStmt::make("x", mul(var("xo"), i32(lanes)), body)));
    void* args[] = {in.raw(), out.raw(), positive.raw(), hyperbolic.raw()};
    REQUIRE(m->call(args) == 0);
    for (int i = 0; i < n; i++) {
        float v = in[i];
        CHECK(positive[i] == uint8_t(v > 0));
        CHECK(out[i] == (v > 0 ? std::sqrt(v) : std::floor(v)));
        CHECK(hyperbolic[i] == doctest::Approx(std::tanh(v)).epsilon(1e-6));
    }
}

TEST_CASE("pipelines with the same name compile concurrently, coexist, and run on many threads at once") {
    auto make = [](int k) {
        Expr x = var("x");
        return compile("same_name", {buffer_arg("out", Int(32))},
                       serial_loop("x", 0, 1000, Store::make("out", mul(x, i32(k)), x)));
    };
    // Compiled on two threads at once.
    std::shared_ptr<JITModule> two, three;
    std::thread compiling([&] { two = make(2); });
    three = make(3);
    compiling.join();
    std::vector<std::unique_ptr<TestBuffer<int32_t>>> outs;
    for (int t = 0; t < 4; t++) outs.push_back(std::make_unique<TestBuffer<int32_t>>(std::vector<int>{1000}));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&, t] {
            void* args[] = {outs[t]->raw()};
            (t % 2 ? three : two)->call(args);
        });
    }
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 1000; i += 99) CHECK((*outs[t])[i] == i * (t % 2 ? 3 : 2));
    two.reset();  // unloading one leaves the other working
    void* args[] = {outs[0]->raw()};
    CHECK(three->call(args) == 0);
    CHECK((*outs[0])[10] == 30);
}

TEST_CASE("the host target reports the CPU LLVM sees and never more features than it has") {
    const targets::CpuTarget& host = targets::host_cpu_target();
    CHECK(!host.cpu().empty());
    CHECK(!host.triple().empty());
    CHECK(host.natural_vector_bits() >= 128);
    CHECK(host.feature_string().find("+sse2") != std::string::npos);
    MESSAGE("host: " << host.triple() << " " << host.cpu() << ", " << host.natural_vector_bits()
                     << "-bit vectors");
}

TEST_CASE("the runtime's allocator is 64-byte aligned, even for zero bytes") {
    for (uint64_t size : {0, 1, 63, 64, 1000}) {
        void* p = tessera_malloc(nullptr, size);
        REQUIRE(p);
        CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
        tessera_free(nullptr, p);
    }
    CHECK(tessera_set_num_threads(4) == 0);
    CHECK(tessera_set_num_threads(0) == 4);
}

TEST_CASE("the runtime's allocator hands a large freed block to the next request it fits, the latest first") {
#if defined(__SANITIZE_ADDRESS__)
    MESSAGE("skipped: under AddressSanitizer freed blocks are never reused");
#else
    const uint64_t mib = 1 << 20;
    void* older = tessera_malloc(nullptr, 5 * mib);
    void* newer = tessera_malloc(nullptr, 2 * mib);
    REQUIRE((older && newer));
    tessera_free(nullptr, older);
    tessera_free(nullptr, newer);
    // 2 MiB fits both; the latest freed is taken. Then 3 MiB fits only the older one.
    void* again = tessera_malloc(nullptr, 2 * mib);
    CHECK(again == newer);
    void* bigger = tessera_malloc(nullptr, 3 * mib);
    CHECK(bigger == older);
    // A block more than four times the request is not handed out for it.
    tessera_free(nullptr, bigger);
    void* small = tessera_malloc(nullptr, mib);
    CHECK(small != older);
    void* fits = tessera_malloc(nullptr, 2 * mib);
    CHECK(fits == older);
    for (void* p : {again, small, fits}) tessera_free(nullptr, p);
#endif
}

TEST_CASE("a two-stage blur through an intermediate allocation matches the reference") {
    // blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3 over y in [-1, H + 1);
    // out(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3, all in uint16.
    const int W = 37, H = 23;
    TestBuffer<uint16_t> in({W + 2, H + 2}, {-1, -1});
    TestBuffer<uint16_t> out({W, H});
    for (size_t i = 0; i < in.size(); i++) in[i] = uint16_t((i * 7919) % 30000);
    Expr buf = var("in.buffer", Handle());
    Expr x = var("x"), y = var("y");
    auto in_at = [&](Expr xx, Expr yy) {
        Expr index = add(sub(xx, var("in.min.0")), mul(sub(yy, var("in.min.1")), var("in.stride.1")));
        return Load::make(UInt(16), "in", index);
    };
    auto blur_x_at = [&](Expr xx, Expr yy) {
        return Load::make(UInt(16), "blur_x", add(xx, mul(add(yy, i32(1)), i32(W))));
    };
    Expr three = UIntImm::make(UInt(16), 3);
    Stmt produce = serial_loop(
        "y", -1, H + 2,
        serial_loop(
            "x", 0, W,
            Store::make(
                "blur_x",
                Div::make(add(add(in_at(sub(x, i32(1)), y), in_at(x, y)), in_at(add(x, i32(1)), y)), three),
                add(x, mul(add(y, i32(1)), i32(W))))));
    Stmt consume =
        serial_loop("y", 0, H,
                    serial_loop("x", 0, W,
                                Store::make("out",
                                            Div::make(add(add(blur_x_at(x, sub(y, i32(1))), blur_x_at(x, y)),
                                                          blur_x_at(x, add(y, i32(1)))),
                                                      three),
                                            add(x, mul(y, i32(W))))));
    Stmt body = Allocate::make("blur_x", UInt(16), {i32(W), i32(H + 2)},
                               Block::make({ProducerConsumer::make("blur_x", true, produce),
                                            ProducerConsumer::make("blur_x", false, consume)}));
    body = LetStmt::make(
        "in.min.0", intrinsic(Int(32), Intrinsic::BufferMin, {buf, i32(0)}),
        LetStmt::make(
            "in.min.1", intrinsic(Int(32), Intrinsic::BufferMin, {buf, i32(1)}),
            LetStmt::make("in.stride.1", intrinsic(Int(32), Intrinsic::BufferStride, {buf, i32(1)}), body)));
    auto m = compile("blur", {buffer_arg("in", UInt(16), 2), buffer_arg("out", UInt(16), 2)}, body);
    MESSAGE("two-stage blur compiled in " << m->compile_seconds() * 1000 << " ms");
    void* args[] = {in.raw(), out.raw()};
    REQUIRE(m->call(args) == 0);
    auto input = [&](int xx, int yy) { return in[(xx + 1) + (yy + 1) * (W + 2)]; };
    auto blur_x = [&](int xx, int yy) {
        return uint16_t(uint16_t(input(xx - 1, yy) + input(xx, yy) + input(xx + 1, yy)) / 3);
    };
    for (int yy = 0; yy < H; yy++) {
        for (int xx = 0; xx < W; xx++) {
            uint16_t expected =
                uint16_t(uint16_t(blur_x(xx, yy - 1) + blur_x(xx, yy) + blur_x(xx, yy + 1)) / 3);
            CHECK_MESSAGE(out[xx + yy * W] == expected, "at " << xx << ", " << yy);
        }
    }
}

TEST_CASE("float16 values round-trip through memory and convert to float") {
    // out[i] = float(float16(in[i]) * 2)
    std::vector<float> values = {0.5f, -1.25f, 1000.f, 0.0999755859375f};
    int n = int(values.size());
    TestBuffer<float> in({n}), out({n});
    for (int i = 0; i < n; i++) in[i] = values[i];
    Expr i = var("i");
    Expr half = Cast::make(Float(16), Load::make(Float(32), "in", i));
    Stmt body = Allocate::make(
        "tmp", Float(16), {i32(n)},
        Block::make(
            {serial_loop("i", 0, n, Store::make("tmp", mul(half, FloatImm::make(Float(16), 2)), i)),
             serial_loop("i", 0, n,
                         Store::make("out", Cast::make(Float(32), Load::make(Float(16), "tmp", i)), i))}));
    auto m = compile("halves", {buffer_arg("in", Float(32)), buffer_arg("out", Float(32))}, body);
    void* args[] = {in.raw(), out.raw()};
    REQUIRE(m->call(args) == 0);
    for (int k = 0; k < n; k++) CHECK(out[k] == values[k] * 2);  // all exactly representable in float16
}

TEST_CASE("print shows vectors lane by lane") {
    Expr v = Ramp::make(i32(3), i32(2), 4);
    Expr printed = intrinsic(Int(32, 4), Intrinsic::Print, {StringImm::make("v ="), v});
    auto m = compile("print_vector", {}, Evaluate::make(printed));
    std::string text = capture_stderr([&] { m->call(nullptr); });
    CHECK(text == "v = <3, 5, 7, 9>\n");
}
