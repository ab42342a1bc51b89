// Mistakes in definitions are CompileErrors that name the Func and say what to do.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

// The message of the CompileError that `action` throws, or "" if it throws none.
template <typename Action>
std::string compile_error_of(Action&& action) {
    try {
        action();
    } catch (const CompileError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("calling a Func with the wrong number of arguments names the Func and its dimensions") {
    Func f("f"), g("g");
    Var x("x"), y("y");
    f(x, y) = x + y;
    std::string message = compile_error_of([&] { g(x) = f(x); });
    CHECK(contains(message, "f"));
    CHECK(contains(message, "1 argument"));
    CHECK(contains(message, "defined over 2 (x, y)"));
}

TEST_CASE("calling an undefined Func says to define it first") {
    Func f("undefined_f"), g("g");
    Var x("x");
    std::string message = compile_error_of([&] { g(x) = f(x) + 1; });
    CHECK(contains(message, "undefined_f"));
    CHECK(contains(message, "no definition"));
}

TEST_CASE("realizing an undefined Func says there is nothing to compute") {
    Func f("empty");
    std::string message = compile_error_of([&] { f.realize({3}); });
    CHECK(contains(message, "empty"));
    CHECK(contains(message, "no definition"));
}

TEST_CASE("a free Var on the right-hand side is named") {
    Func f("f");
    Var x("x"), y("y");
    std::string message = compile_error_of([&] { f(x) = x + y; });
    CHECK(contains(message, "the Var y"));
    CHECK(contains(message, "not one of f's arguments"));
}

TEST_CASE("a second pure definition is refused") {
    Func f("f");
    Var x("x");
    f(x) = x;
    std::string message = compile_error_of([&] { f(x) = x * 2; });
    CHECK(contains(message, "Func f is defined twice"));
}

TEST_CASE("an update of another type says which cast to write") {
    Func f("f");
    Var x("x");
    f(x) = cast<uint8_t>(x);
    std::string message = compile_error_of([&] { f(x) = f(x) + 1.5f; });
    CHECK(contains(message, "float32"));
    CHECK(contains(message, "uint8"));
    CHECK(contains(message, "cast<uint8>"));
}

TEST_CASE("a float coordinate and an out-of-range integer constant are refused") {
    Func f("f"), g("g");
    Var x("x");
    f(x) = x;
    CHECK(contains(compile_error_of([&] { g(x) = f(cast<float>(x)); }), "Func coordinates are integers"));
    CHECK(
        contains(compile_error_of([&] { g(x) = cast<uint8_t>(x) + 300; }), "cannot be represented as uint8"));
}

TEST_CASE("an RVar in a pure definition points to updates and inline reductions") {
    Func f("f");
    Var x("x");
    RDom r(0, 10);
    std::string message = compile_error_of([&] { f(x) = x + r; });
    CHECK(contains(message, "pure definition"));
    CHECK(contains(message, "sum()"));
}

TEST_CASE("compute_inline of a Func with an update is refused at lowering") {
    Func f("f"), g("g");
    Var x("x");
    f(x) = x;
    f(x) += 1;
    g(x) = f(x);
    f.compute_inline();
    std::string message = compile_error_of([&] { g.realize({4}); });
    CHECK(contains(message, "compute_inline"));
    CHECK(contains(message, "compute_root"));
}
