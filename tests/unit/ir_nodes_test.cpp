#include <doctest/doctest.h>

#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/substitute.h"

using namespace tessera;
using namespace tessera::ir;

TEST_CASE("immediates wrap to the width of their type") {
    CHECK(*as_const_int(IntImm::make(Int(8), 200)) == -56);
    CHECK(*as_const_uint(UIntImm::make(UInt(8), 300)) == 44);
    CHECK(*as_const_float(FloatImm::make(Float(32), 0.1)) == double(0.1f));
}

TEST_CASE("the printer shows nested expressions and loops readably") {
    Expr x = int_var("x");
    Stmt loop = For::make("x", 0, 10, ForKind::Serial,
                          Store::make("f", Add::make(x, make_const(Int(32), int64_t(1))), x));
    CHECK(to_string(loop) == "for (x, 0, 10) {\n  f[x] = (x + 1)\n}\n");
}

TEST_CASE("substitute replaces free variables and respects shadowing lets") {
    Expr x = int_var("x"), y = int_var("y");
    Expr e = Add::make(x, Let::make("x", y, x));
    CHECK(to_string(substitute("x", make_const(Int(32), int64_t(3)), e)) == "(3 + (let x = y in x))");
}

TEST_CASE("a block of thousands of statements is built flat") {
    std::vector<Stmt> stmts;
    for (int i = 0; i < 5000; i++) stmts.push_back(Evaluate::make(make_const(Int(32), int64_t(i))));
    Stmt s = Block::make(std::move(stmts));
    REQUIRE(s.as<Block>());
    CHECK(s.as<Block>()->stmts.size() == 5000);
}

TEST_CASE("names_bound finds every let of a chain, in expressions and statements, and every loop") {
    // The visitor walks a chain of lets with one visit of its head; the names inside the chain are
    // bound too.
    Expr a = int_var("a"), b = int_var("b"), c = int_var("c");
    Expr value = Let::make("a", make_const(Int(32), int64_t(1)), Let::make("b", a, Let::make("c", b, c)));
    Stmt body = For::make("x", 0, 4, ForKind::Serial, Store::make("f", value, int_var("x")));
    Stmt s = LetStmt::make("m", make_const(Int(32), int64_t(2)), LetStmt::make("n", int_var("m"), body));
    const std::unordered_set<std::string> bound = names_bound(s);
    for (const char* name : {"a", "b", "c", "m", "n", "x"}) CHECK_MESSAGE(bound.count(name) == 1, name);
    CHECK(bound.size() == 6);
}
