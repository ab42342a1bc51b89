// Passes walk long Block and Let chains iteratively: a hundred thousand nested lets must neither
// overflow the stack nor take quadratic time.

#include <doctest/doctest.h>

#include "ir/equal.h"
#include "ir/interval.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

constexpr int kChain = 100000;

// let v0 = a in let v1 = v0 + 1 in ... f(v(n-1)) = 0
Stmt let_stmt_chain(int n) {
    Stmt body = Provide::make("f", {make_zero(Int(32))}, {int_var("v" + std::to_string(n - 1))});
    for (int i = n - 1; i >= 0; i--) {
        Expr value =
            i == 0 ? int_var("a") : Add::make(int_var("v" + std::to_string(i - 1)), make_one(Int(32)));
        body = LetStmt::make("v" + std::to_string(i), value, body);
    }
    return body;
}

Expr let_expr_chain(int n) {
    Expr body = int_var("v" + std::to_string(n - 1));
    for (int i = n - 1; i >= 0; i--) {
        Expr value =
            i == 0 ? int_var("a") : Add::make(int_var("v" + std::to_string(i - 1)), make_one(Int(32)));
        body = Let::make("v" + std::to_string(i), value, body);
    }
    return body;
}

class CountLets : public Visitor {
public:
    int lets = 0;

private:
    // Called with the head of each chain.
    void visit(const LetStmt* op) override {
        for (const LetStmt* let = op; let; let = let->body.as<LetStmt>()) lets++;
        Visitor::visit(op);
    }
};

}  // namespace

TEST_CASE("the visitor, mutator, printer and substitution handle a long LetStmt chain") {
    Stmt s = let_stmt_chain(kChain);
    Visitor().include(s);
    Mutator().mutate(s);
    CHECK(to_string(s).size() > size_t(kChain));
    Stmt replaced = substitute("a", make_const(Int(32), int64_t(5)), s);
    CHECK(replaced.defined());
    CHECK(equal(s, s));
    CHECK(boxes_touched(s).count("f") == 1);
}

TEST_CASE("simplify walks a long LetStmt chain and substitutes the trivial let at its head") {
    Stmt s = simplify(let_stmt_chain(kChain));
    CountLets count;
    count.include(s);
    CHECK(count.lets == kChain - 1);
    CHECK_FALSE(uses_var(s, "v0"));
}

TEST_CASE("the visitor, mutator, printer and simplifier handle a long Let expression chain") {
    Expr e = let_expr_chain(kChain);
    Visitor().include(e);
    Mutator().mutate(e);
    CHECK(to_string(e).size() > size_t(kChain));
    CHECK_FALSE(uses_var(simplify(e), "v0"));
    CHECK(substitute("a", make_zero(Int(32)), e).defined());
}

TEST_CASE("a block of a hundred thousand statements is visited and mutated") {
    std::vector<Stmt> stmts;
    for (int i = 0; i < kChain; i++)
        stmts.push_back(Store::make("f", make_const(Int(32), int64_t(i)), make_const(Int(32), int64_t(i))));
    Stmt s = Block::make(std::move(stmts));
    Visitor().include(s);
    CHECK(simplify(s).defined());
    CHECK(to_string(s).size() > size_t(kChain));
}
