// Wrong schedules are errors that name the Func, the Var and what to do: CompileErrors when the
// schedule is given or lowered, RuntimeErrors when only the buffers show the problem.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

template <typename Error, typename Action>
std::string error_of(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

template <typename Action>
std::string compile_error_of(Action&& action) {
    return error_of<CompileError>(std::forward<Action>(action));
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("compute_at a loop that does not enclose every use lists the legal places") {
    Func producer("producer"), consumer("consumer"), out("out");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    producer(x, y) = x + y;
    consumer(x, y) = producer(x, y) * 2;
    out(x, y) = consumer(x, y) + producer(x, y + 1);
    consumer.compute_root().split(x, xo, xi, 4);
    producer.compute_at(consumer, xo);
    std::string message = compile_error_of([&] { out.realize({8, 8}); });
    CHECK_MESSAGE(contains(message, "producer.compute_at(consumer, xo)"), message);
    CHECK_MESSAGE(contains(message, "does not enclose every use of producer"), message);
    // consumer runs at the root, before out: no loop encloses both uses.
    CHECK_MESSAGE(contains(message, "Legal places for producer: compute_root(), compute_inline()"), message);
}

TEST_CASE("compute_at a Var the consumer has no loop over lists its loops") {
    Func blur_x("blur_x"), blur_y("blur_y");
    Var x("x"), y("y"), xi("xi"), yi("yi"), yo("yo"), xo("xo");
    blur_x(x, y) = x + y;
    blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y + 1);
    blur_y.tile(x, y, xo, yo, xi, yi, 8, 8);
    blur_x.compute_at(blur_y, x);
    std::string message = compile_error_of([&] { blur_y.realize({16, 16}); });
    CHECK_MESSAGE(contains(message, "blur_y has no loop over x"), message);
    CHECK_MESSAGE(contains(message, "blur_y's loops, outermost first: y.yo, x.xo, y.yi, x.xi"), message);
    CHECK_MESSAGE(contains(message, "compute_at(blur_y, yo), compute_at(blur_y, xo)"), message);
}

TEST_CASE("storing a Func inside the loop where it is computed is refused") {
    Func g("g"), f("f");
    Var x("x"), y("y");
    g(x, y) = x * y;
    f(x, y) = g(x, y) + 1;
    g.compute_at(f, y).store_at(f, x);
    std::string message = compile_error_of([&] { f.realize({4, 4}); });
    CHECK_MESSAGE(contains(message, "g is stored inside the loop where it is computed"), message);
}

TEST_CASE("parallelizing a reduction whose iterations update one point explains the dependency") {
    Func f("f"), g("g");
    Var x("x");
    RDom r(0, 100, "r");
    g(x) = x;
    f(x) = 0;
    f(0) += g(r);
    std::string message = compile_error_of([&] { f.update(0).parallel(r); });
    CHECK_MESSAGE(contains(message, "f.update(0).parallel(r.x)"), message);
    CHECK_MESSAGE(contains(message, "depend on each other"), message);
    CHECK_MESSAGE(contains(message, "rfactor"), message);
}

TEST_CASE("vectorizing a scan that reads the previous iteration's result is refused") {
    Func f("f");
    Var x("x");
    RDom r(1, 99, "r");
    f(x) = x;
    f(r) = f(r - 1) + f(r);
    std::string message = compile_error_of([&] { f.update(0).vectorize(r); });
    CHECK_MESSAGE(contains(message, "reads f((r.x - 1))"), message);
    // Iterations that each touch their own point are fine.
    Func g("g");
    g(x) = x;
    g(r) = g(r) * 2;
    CHECK_NOTHROW(g.update(0).vectorize(r));
}

TEST_CASE("splitting an unknown Var or one already split says which loops exist") {
    Func f("f");
    Var x("x"), y("y"), z("z"), xo("xo"), xi("xi");
    f(x, y) = x + y;
    std::string unknown = compile_error_of([&] { f.split(z, xo, xi, 4); });
    CHECK_MESSAGE(contains(unknown, "f.split(z, xo, xi, ...): f has no loop over z"), unknown);
    CHECK_MESSAGE(contains(unknown, "Its loops, outermost first: y, x"), unknown);
    f.split(x, xo, xi, 4);
    std::string again = compile_error_of([&] { f.split(x, xo, xi, 2); });
    CHECK_MESSAGE(contains(again, "x was already split into xo and xi"), again);
}

TEST_CASE("reordering a Var of another Func names the Func that lacks it") {
    Func f("f"), g("g");
    Var x("x"), y("y"), u("u");
    g(u) = u;
    f(x, y) = g(x) + y;
    std::string message = compile_error_of([&] { f.reorder(u, x); });
    CHECK_MESSAGE(contains(message, "f.reorder(u, x): f has no loop over u"), message);
}

TEST_CASE("ShiftInwards on an update is refused because it would apply the update twice") {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x;
    f(x) += 1;
    std::string message =
        compile_error_of([&] { f.update(0).split(x, xo, xi, 4, TailStrategy::ShiftInwards); });
    CHECK_MESSAGE(contains(message, "ShiftInwards computes some points twice"), message);
}

TEST_CASE("RoundUp on an output whose size is not a multiple of the factor is a run-time error") {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x;
    f.split(x, xo, xi, 8, TailStrategy::RoundUp);
    std::string message = error_of<RuntimeError>([&] { f.realize({13}); });
    CHECK_MESSAGE(contains(message, "Output buffer f is written at 15"), message);
    CHECK_MESSAGE(contains(message, "beyond its max of 12"), message);
    // A multiple of the factor is fine.
    Buffer<int> out = f.realize({16});
    CHECK(out(15) == 15);
}

TEST_CASE("unrolling a loop of unknown extent suggests a factor or bound") {
    Func f("f");
    Var x("x");
    f(x) = x * 2;
    f.unroll(x);
    std::string message = compile_error_of([&] { f.realize({10}); });
    CHECK_MESSAGE(contains(message, "f.unroll(x): the loop over x has extent"), message);
    CHECK_MESSAGE(contains(message, "bound(x, min, extent)"), message);
}

TEST_CASE("a region needed beyond a Func's bound is a run-time error naming the bound") {
    Func g("g"), f("f");
    Var x("x");
    g(x) = x;
    f(x) = g(x) + g(x + 1);
    g.compute_root().bound(x, 0, 8);
    std::string message = error_of<RuntimeError>([&] { f.realize({10}); });
    CHECK_MESSAGE(contains(message, "g is bounded to x in [0, 7] by bound(), but [0, 10] of it is needed"),
                  message);
}

TEST_CASE("align_bounds with a modulus that is not positive names the Func and the Var") {
    Func g("g");
    Var x("x");
    g(x) = x;
    const std::string message = compile_error_of([&] { g.align_bounds(x, 0); });
    CHECK_MESSAGE(contains(message, "g.align_bounds(x, ...): the modulus is 0; give a positive one"),
                  message);
    CHECK(contains(compile_error_of([&] { g.bound_extent(x, 1.5f); }),
                   "g.bound_extent(x, ...): the extent must be"));
}

TEST_CASE("align_bounds with a modulus that is not positive when the pipeline runs is a run-time error") {
    Param<int> modulus("modulus");
    ImageParam in(Int(32), 1, "in");
    Func g("g"), f("f");
    Var x("x");
    g(x) = in(x)*2;
    f(x) = g(x + 1);
    g.compute_root().align_bounds(x, modulus);
    Buffer<int> values(16);
    values.fill(3);
    in.set(values);
    modulus.set(4);
    Buffer<int> out = f.realize({5});
    CHECK(out(0) == 6);
    modulus.set(0);
    const std::string message = error_of<RuntimeError>([&] { f.realize({5}); });
    CHECK_MESSAGE(contains(message, "g.align_bounds(x, ...): the modulus is 0; give a positive one"),
                  message);
}

TEST_CASE("stack storage of a size not known when compiling names the Func and what to do") {
    Func f("f"), out("out");
    Var x("x");
    f(x) = x * 2;
    out(x) = f(x) + f(x + 1);
    f.compute_root().store_in(MemoryType::Stack);
    const std::string message = compile_error_of([&] { out.realize({10}); });
    CHECK(contains(message, "Func f is stored in Stack memory"));
    CHECK(contains(message, "not known when compiling"));
    CHECK(contains(message, "MemoryType::Heap"));
}

TEST_CASE("GPU memory for a Func computed on the CPU is refused") {
    Func f("f"), out("out");
    Var x("x");
    f(x) = x * 2;
    out(x) = f(x) + f(x + 1);
    f.compute_root().store_in(MemoryType::GPUShared);
    const std::string message = compile_error_of([&] { out.realize({10}); });
    CHECK(contains(message, "Func f is stored in GPUShared memory, which exists only inside GPU kernels"));
}

TEST_CASE("stack storage larger than a stack can hold is refused, not left to overflow") {
    Func f("f"), out("out");
    Var x("x"), y("y");
    f(x, y) = x + y;
    out(x, y) = f(x, y) * 2;
    f.compute_root().bound(x, 0, 1024).bound(y, 0, 1024).store_in(MemoryType::Stack);
    out.bound(x, 0, 1024).bound(y, 0, 1024);
    const std::string message = compile_error_of([&] { out.realize({1024, 1024}); });
    CHECK(contains(message, "Func f is stored in Stack memory, but its storage takes 4194304 bytes"));
}

TEST_CASE("clone_in without consumers, or for the Func itself, names the Func and what to do") {
    Func f("f"), g("g");
    Var x("x");
    f(x) = x * 2;
    g(x) = f(x) + 1;
    CHECK(contains(compile_error_of([&] { f.clone_in(std::vector<Func>{}); }),
                   "f.clone_in({}): name the Funcs that should call the clone of f"));
    CHECK(contains(compile_error_of([&] { f.clone_in(f); }), "a Func cannot be cloned for itself"));
    Func undefined("undefined");
    CHECK(contains(compile_error_of([&] { undefined.clone_in(g); }), "define undefined before cloning it"));
}
