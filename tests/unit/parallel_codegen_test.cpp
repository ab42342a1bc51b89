// Code generation of parallel loops, on lowered functions built by hand: each loop's body runs as
// a task on the runtime's thread pool, with the values it uses from outside in a closure. Every
// result is checked against plain C++, with 1 thread and with several.

#include <doctest/doctest.h>

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "ir/ir_util.h"
#include "targets/jit.h"
#include "tessera/runtime.h"
#include "tessera/target.h"

using namespace tessera;
using namespace tessera::ir;
using tessera::lowering::LoweredArgument;
using tessera::lowering::LoweredFunction;
using tessera::targets::JITModule;

namespace {

// A dense one-dimensional buffer with min 0, owning its memory.
template <typename T>
class TestBuffer {
public:
    explicit TestBuffer(int extent) : data_(extent) {
        dim_ = {0, extent, 1, 0};
        Type t = type_of<T>();
        raw_.type = {uint8_t(t.code()), uint8_t(t.bits()), uint16_t(t.lanes())};
        raw_.dimensions = 1;
        raw_.dim = &dim_;
        raw_.host = reinterpret_cast<uint8_t*>(data_.data());
    }
    TestBuffer(const TestBuffer&) = delete;
    TestBuffer& operator=(const TestBuffer&) = delete;

    tessera_buffer_t* raw() { return &raw_; }
    T& operator[](size_t i) { return data_.at(i); }

private:
    std::vector<T> data_;
    tessera_dimension_t dim_;
    tessera_buffer_t raw_{};
};

// Sets the thread count for one test and puts the default back after it.
class ThreadCount {
public:
    explicit ThreadCount(int n) { tessera_set_num_threads(n); }
    ~ThreadCount() { tessera_set_num_threads(0); }
};

// Collects what compiled code reports through the error handler, from any thread, while it lives.
class CapturedErrors {
public:
    CapturedErrors() { previous_ = tessera_set_error_handler(&CapturedErrors::handle); }
    ~CapturedErrors() {
        tessera_set_error_handler(previous_);
        std::lock_guard<std::mutex> lock(mutex());
        messages_locked().clear();
    }
    std::vector<std::string> messages() const {
        std::lock_guard<std::mutex> lock(mutex());
        return messages_locked();
    }

private:
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    static std::vector<std::string>& messages_locked() {
        static std::vector<std::string> m;
        return m;
    }
    static void handle(void*, const char* message) {
        std::lock_guard<std::mutex> lock(mutex());
        messages_locked().push_back(message);
    }
    tessera_error_handler_t previous_;
};

// Counts the runtime's allocations and frees, from any thread, while it lives.
class CountingAllocator {
public:
    CountingAllocator() {
        allocations_ = 0;
        frees_ = 0;
        tessera_set_custom_allocator(&CountingAllocator::allocate, &CountingAllocator::release);
    }
    ~CountingAllocator() { tessera_set_custom_allocator(nullptr, nullptr); }
    int allocations() const { return allocations_.load(); }
    int frees() const { return frees_.load(); }

private:
    static void* allocate(void*, uint64_t size) {
        allocations_++;
        return std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    }
    static void release(void*, void* p) {
        frees_++;
        std::free(p);
    }
    static inline std::atomic<int> allocations_{0}, frees_{0};
};

Expr var(const std::string& name, Type t = Int(32)) { return Variable::make(t, name); }
Expr i32(int64_t v) { return IntImm::make(Int(32), v); }
Expr add(Expr a, Expr b) { return Add::make(std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return Sub::make(std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return Mul::make(std::move(a), std::move(b)); }
Stmt serial_loop(const std::string& name, Expr min, Expr extent, Stmt body) {
    return For::make(name, std::move(min), std::move(extent), ForKind::Serial, std::move(body));
}
Stmt parallel_loop(const std::string& name, Expr min, Expr extent, Stmt body) {
    return For::make(name, std::move(min), std::move(extent), ForKind::Parallel, std::move(body));
}
Expr error_message(int code, std::vector<Expr> parts) {
    parts.insert(parts.begin(), i32(code));
    return Call::make_intrinsic(Int(32), Intrinsic::ErrorMessage, std::move(parts));
}

LoweredArgument buffer_arg(const std::string& name, Type t) { return {name, true, t, 1}; }
LoweredArgument scalar_arg(const std::string& name, Type t) { return {name, false, t, 0}; }

std::shared_ptr<JITModule> compile(const std::string& name, std::vector<LoweredArgument> args, Stmt body) {
    return targets::jit_compile(LoweredFunction{name, std::move(args), std::move(body)},
                                tessera::get_host_target());
}

// What f() writes to stderr (where TESSERA_DUMP_LLVM=1 prints the IR).
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

int reference_f(int i) { return i * i * 3 - 7 * i + 1; }

}  // namespace

TEST_CASE("a parallel loop writes out[i] = f(i) at every i") {
    // parallel for x in [0, 1003): out[x] = x * x * 3 - 7 * x + 1
    Expr x = var("x");
    Expr f = add(sub(mul(mul(x, x), i32(3)), mul(i32(7), x)), i32(1));
    auto m =
        compile("par_f", {buffer_arg("out", Int(32))}, parallel_loop("x", 0, 1003, Store::make("out", f, x)));
    for (int threads : {1, 4}) {
        ThreadCount count(threads);
        TestBuffer<int32_t> out(1003);
        void* args[] = {out.raw()};
        REQUIRE(m->call(args) == 0);
        for (int i = 0; i < 1003; i++)
            CHECK_MESSAGE(out[i] == reference_f(i), "threads " << threads << ", at " << i);
    }
}

TEST_CASE("a parallel loop with a nonzero min and a runtime extent covers exactly its range") {
    // parallel for x in [5, 5 + n): out[x - 5] = x
    Expr x = var("x");
    auto m = compile("par_range", {scalar_arg("n", Int(32)), buffer_arg("out", Int(32))},
                     parallel_loop("x", 5, var("n"), Store::make("out", x, sub(x, i32(5)))));
    ThreadCount count(4);
    for (int n : {0, 1, 2, 997}) {
        TestBuffer<int32_t> out(1000);
        for (int i = 0; i < 1000; i++) out[i] = -1;
        void* args[] = {&n, out.raw()};
        REQUIRE(m->call(args) == 0);
        for (int i = 0; i < 1000; i++)
            CHECK_MESSAGE(out[i] == (i < n ? i + 5 : -1), "n " << n << ", at " << i);
    }
}

TEST_CASE("a parallel loop nested in a serial loop and a serial loop nested in a parallel loop") {
    // for y in [0, 17): parallel for x in [0, 59): a[y * 59 + x] = x + 1000 * y
    // parallel for y in [0, 17): for x in [0, 59): b[y * 59 + x] = x - 1000 * y
    const int W = 59, H = 17;
    Expr x = var("x"), y = var("y");
    Expr index = add(mul(y, i32(W)), x);
    Stmt first =
        serial_loop("y", 0, H, parallel_loop("x", 0, W, Store::make("a", add(x, mul(i32(1000), y)), index)));
    Stmt second =
        parallel_loop("y", 0, H, serial_loop("x", 0, W, Store::make("b", sub(x, mul(i32(1000), y)), index)));
    auto m = compile("par_mixed", {buffer_arg("a", Int(32)), buffer_arg("b", Int(32))},
                     Block::make({first, second}));
    for (int threads : {1, 3}) {
        ThreadCount count(threads);
        TestBuffer<int32_t> a(W * H), b(W * H);
        void* args[] = {a.raw(), b.raw()};
        REQUIRE(m->call(args) == 0);
        for (int j = 0; j < H; j++) {
            for (int i = 0; i < W; i++) {
                CHECK_MESSAGE(a[j * W + i] == i + 1000 * j,
                              "threads " << threads << ", a at " << i << ", " << j);
                CHECK_MESSAGE(b[j * W + i] == i - 1000 * j,
                              "threads " << threads << ", b at " << i << ", " << j);
            }
        }
    }
}

TEST_CASE("two nested parallel loops write every point once") {
    // parallel for y in [0, 31): parallel for x in [0, 37): out[y * 37 + x] = out[y * 37 + x] + x * y + 1
    const int W = 37, H = 31;
    Expr x = var("x"), y = var("y");
    Expr index = add(mul(y, i32(W)), x);
    Stmt body = Store::make("out", add(add(Load::make(Int(32), "out", index), mul(x, y)), i32(1)), index);
    auto m = compile("par_nested", {buffer_arg("out", Int(32))},
                     parallel_loop("y", 0, H, parallel_loop("x", 0, W, body)));
    for (int threads : {1, 4}) {
        ThreadCount count(threads);
        TestBuffer<int32_t> out(W * H);
        void* args[] = {out.raw()};
        REQUIRE(m->call(args) == 0);
        for (int j = 0; j < H; j++)
            for (int i = 0; i < W; i++)
                CHECK_MESSAGE(out[j * W + i] == i * j + 1,
                              "threads " << threads << ", at " << i << ", " << j);
    }
}

TEST_CASE("an allocation in a parallel loop's body is private to each iteration and freed") {
    // parallel for y in [0, 37): allocate tmp[23]
    //   for x in [0, 23): tmp[x] = x * y
    //   for x in [0, 23): out[y * 23 + x] = tmp[22 - x] + y
    const int W = 23, H = 37;
    Expr x = var("x"), y = var("y");
    Stmt fill = serial_loop("x", 0, W, Store::make("tmp", mul(x, y), x));
    Stmt use = serial_loop(
        "x", 0, W,
        Store::make("out", add(Load::make(Int(32), "tmp", sub(i32(W - 1), x)), y), add(mul(y, i32(W)), x)));
    Stmt body = parallel_loop("y", 0, H, Allocate::make("tmp", Int(32), {i32(W)}, Block::make({fill, use})));
    auto m = compile("par_alloc", {buffer_arg("out", Int(32))}, body);
    for (int threads : {1, 4}) {
        ThreadCount count(threads);
        CountingAllocator allocator;
        TestBuffer<int32_t> out(W * H);
        void* args[] = {out.raw()};
        REQUIRE(m->call(args) == 0);
        for (int j = 0; j < H; j++)
            for (int i = 0; i < W; i++)
                CHECK_MESSAGE(out[j * W + i] == (W - 1 - i) * j + j,
                              "threads " << threads << ", at " << i << ", " << j);
        CHECK(allocator.allocations() == H);
        CHECK(allocator.frees() == H);
    }
}

TEST_CASE("a parallel body uses lets, scalar arguments, buffer fields and allocations from outside") {
    // let k = alpha * 3, flip = (beta > 0.5f) in
    // allocate table[1] { table[0] = 11
    //   parallel for x in [0, extent(out)): let t = x * k + offset in
    //     out[x] = select(flip, t, -t) + table[0] + float(beta * 2) }
    Expr x = var("x");
    Expr alpha = var("alpha"), offset = var("offset"), beta = var("beta", Float(32));
    Expr t = var("t");
    Expr extent =
        Call::make_intrinsic(Int(32), Intrinsic::BufferExtent, {var("out.buffer", Handle()), i32(0)});
    Expr beta_twice = Cast::make(Int(32), mul(beta, FloatImm::make(Float(32), 2)));
    Expr value =
        add(add(Select::make(var("flip", Bool()), t, sub(i32(0), t)), Load::make(Int(32), "table", i32(0))),
            beta_twice);
    Stmt loop = parallel_loop(
        "x", 0, extent, LetStmt::make("t", add(mul(x, var("k")), offset), Store::make("out", value, x)));
    Stmt body = LetStmt::make(
        "k", mul(alpha, i32(3)),
        LetStmt::make("flip", GT::make(beta, FloatImm::make(Float(32), 0.5)),
                      Allocate::make("table", Int(32), {i32(1)},
                                     Block::make({Store::make("table", i32(11), i32(0)), loop}))));
    auto m = compile("par_closure",
                     {scalar_arg("alpha", Int(32)), scalar_arg("beta", Float(32)),
                      scalar_arg("offset", Int(32)), buffer_arg("out", Int(32))},
                     body);
    ThreadCount count(4);
    for (float beta_value : {0.25f, 3.0f}) {
        int32_t alpha_value = 5, offset_value = -400;
        TestBuffer<int32_t> out(1003);
        void* args[] = {&alpha_value, &beta_value, &offset_value, out.raw()};
        REQUIRE(m->call(args) == 0);
        for (int i = 0; i < 1003; i++) {
            int tv = i * alpha_value * 3 + offset_value;
            int expected = (beta_value > 0.5f ? tv : -tv) + 11 + int(beta_value * 2);
            CHECK_MESSAGE(out[i] == expected, "beta " << beta_value << ", at " << i);
        }
    }
}

TEST_CASE("a failed assertion in a parallel body returns its code, reported once, and frees memory") {
    // allocate outer[4] { parallel for x in [0, 1003): allocate inner[8] {
    //     inner[0] = x; assert(x != bad, "x is " x); out[x] = inner[0] }
    //   done[0] = 1 }
    Expr x = var("x");
    Stmt check = AssertStmt::make(NE::make(x, var("bad")),
                                  error_message(tessera_error_bad_argument, {StringImm::make("x is "), x}));
    Stmt iteration =
        Allocate::make("inner", Int(32), {i32(8)},
                       Block::make({Store::make("inner", x, i32(0)), check,
                                    Store::make("out", Load::make(Int(32), "inner", i32(0)), x)}));
    Stmt body = Allocate::make(
        "outer", Int(32), {i32(4)},
        Block::make({Store::make("outer", i32(0), i32(0)), parallel_loop("x", 0, 1003, iteration),
                     Store::make("done", i32(1), i32(0))}));
    auto m =
        compile("par_assert",
                {scalar_arg("bad", Int(32)), buffer_arg("out", Int(32)), buffer_arg("done", Int(32))}, body);
    for (int threads : {1, 4}) {
        ThreadCount count(threads);
        CapturedErrors errors;
        CountingAllocator allocator;
        TestBuffer<int32_t> out(1003), done(1);
        int32_t bad = 777;
        void* args[] = {&bad, out.raw(), done.raw()};
        CHECK(m->call(args) == tessera_error_bad_argument);
        CHECK(done[0] == 0);  // nothing after the failed loop ran
        std::vector<std::string> messages = errors.messages();
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == "x is 777");
        CHECK(allocator.allocations() == allocator.frees());
        CHECK(allocator.allocations() >= 2);

        bad = -1;
        CHECK(m->call(args) == 0);
        CHECK(done[0] == 1);
        for (int i = 0; i < 1003; i++) CHECK_MESSAGE(out[i] == i, "threads " << threads << ", at " << i);
        CHECK(errors.messages().size() == 1);
    }
}

TEST_CASE("with several threads a parallel loop runs on more than one thread") {
    // parallel for x in [0, 203): usleep(200); out[x] = pthread_self()
    Expr x = var("x");
    Stmt nap = Evaluate::make(Call::make_extern(Int(32), "usleep", {UIntImm::make(UInt(32), 200)}));
    Stmt record = Store::make("out", Call::make_extern(UInt(64), "pthread_self", {}), x);
    auto m = compile("par_threads", {buffer_arg("out", UInt(64))},
                     parallel_loop("x", 0, 203, Block::make({nap, record})));
    auto threads_used = [&] {
        TestBuffer<uint64_t> out(203);
        void* args[] = {out.raw()};
        REQUIRE(m->call(args) == 0);
        std::set<uint64_t> ids;
        for (int i = 0; i < 203; i++) ids.insert(out[i]);
        return ids;
    };
    {
        ThreadCount count(4);
        std::set<uint64_t> ids = threads_used();
        CHECK(ids.size() > 1);
        CHECK(ids.size() <= 4);
    }
    {
        ThreadCount count(1);
        std::set<uint64_t> ids = threads_used();
        REQUIRE(ids.size() == 1);
        CHECK(*ids.begin() == uint64_t(pthread_self()));
    }
}

TEST_CASE("a parallel loop's body becomes a function named after the loop") {
    Expr x = var("f.s0.x");
    Stmt body = parallel_loop("f.s0.y", 0, 7, parallel_loop("f.s0.x", 0, 5, Store::make("out", x, x)));
    setenv("TESSERA_DUMP_LLVM", "1", 1);
    std::shared_ptr<JITModule> m;
    capture_stderr([&] { m = compile("par_names", {buffer_arg("out", Int(32))}, body); });
    unsetenv("TESSERA_DUMP_LLVM");
    CHECK(m->llvm_ir().find("@par_for_f.s0.y(") != std::string::npos);
    CHECK(m->llvm_ir().find("@par_for_f.s0.x(") != std::string::npos);
    CHECK(m->llvm_ir().find("@tessera_do_par_for(") != std::string::npos);
}
