// print() and print_when() write each evaluated value, with their messages, to stderr.

#include <doctest/doctest.h>

#include <tessera/tessera.h>
#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace tessera;

namespace {

// Runs `action` with stderr redirected to a temporary file and returns what it wrote.
template <typename Action>
std::string captured_stderr(Action&& action) {
    std::fflush(stderr);
    char path[] = "/tmp/tessera_print_XXXXXX";
    const int fd = mkstemp(path);
    const int saved = dup(2);
    dup2(fd, 2);
    action();
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(path);
    return text.str();
}

}  // namespace

TEST_CASE("print returns its first argument and prints every argument once per evaluation") {
    Func f("f");
    Var x("x");
    f(x) = print(x * 2, "is twice", x);
    Buffer<int> out;
    std::string text = captured_stderr([&] { out = f.realize({3}); });
    for (int i = 0; i < 3; i++) CHECK(out(i) == 2 * i);
    CHECK(text.find("0 is twice 0") != std::string::npos);
    CHECK(text.find("2 is twice 1") != std::string::npos);
    CHECK(text.find("4 is twice 2") != std::string::npos);
}

TEST_CASE("print_when prints only where its condition holds") {
    Func f("f");
    Var x("x");
    f(x) = print_when(x == 4, cast<float>(x) * 0.5f, "at four");
    Buffer<float> out;
    std::string text = captured_stderr([&] { out = f.realize({6}); });
    for (int i = 0; i < 6; i++) CHECK(out(i) == i * 0.5f);
    CHECK(text.find("2.000000 at four") != std::string::npos);
    CHECK(text.find("at four") == text.rfind("at four"));
}

TEST_CASE("trace_stores prints every stored value with its coordinates") {
    Func f("traced");
    Var x("x"), y("y");
    f(x, y) = x * 10 + y;
    f.trace_stores();
    Buffer<int> out;
    std::string text = captured_stderr([&] { out = f.realize({3, 2}); });
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 3; i++) {
            CHECK(out(i, j) == i * 10 + j);
            const std::string line = "Store traced( " + std::to_string(i) + " , " + std::to_string(j) +
                                     " ) = " + std::to_string(i * 10 + j);
            CHECK_MESSAGE(text.find(line) != std::string::npos, line);
        }
}
