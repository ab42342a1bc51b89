#include "ir/substitute.h"

#include "ir/mutator.h"

namespace tessera::ir {
namespace {

class Substitute : public Mutator {
public:
    explicit Substitute(const std::map<std::string, Expr>& r) : replacements(r) {}

private:
    const std::map<std::string, Expr>& replacements;
    std::map<std::string, int> shadowed;

    bool is_replaced(const std::string& name) const {
        auto s = shadowed.find(name);
        return replacements.count(name) && (s == shadowed.end() || s->second == 0);
    }

    Expr visit(const Variable* op) override {
        if (is_replaced(op->name)) return replacements.at(op->name);
        return handle_of(op);
    }

    // Lets shadow: the body of `let x = ... in body` does not see an outer x.
    Expr visit(const Let* op) override {
        Expr value = mutate(op->value);
        shadowed[op->name]++;
        Expr body = mutate(op->body);
        shadowed[op->name]--;
        if (value.same_as(op->value) && body.same_as(op->body)) return handle_of(op);
        return Let::make(op->name, value, body);
    }

    Stmt visit(const LetStmt* op) override {
        Expr value = mutate(op->value);
        shadowed[op->name]++;
        Stmt body = mutate(op->body);
        shadowed[op->name]--;
        if (value.same_as(op->value) && body.same_as(op->body)) return handle_of(op);
        return LetStmt::make(op->name, value, body);
    }

    Stmt visit(const For* op) override {
        Expr min = mutate(op->min), extent = mutate(op->extent);
        shadowed[op->name]++;
        Stmt body = mutate(op->body);
        shadowed[op->name]--;
        if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return handle_of(op);
        return For::make(op->name, min, extent, op->for_kind, body);
    }
};

}  // namespace

Expr substitute(const std::map<std::string, Expr>& replacements, const Expr& e) {
    return Substitute(replacements).mutate(e);
}

Stmt substitute(const std::map<std::string, Expr>& replacements, const Stmt& s) {
    return Substitute(replacements).mutate(s);
}

Expr substitute(const std::string& name, const Expr& replacement, const Expr& e) {
    return substitute(std::map<std::string, Expr>{{name, replacement}}, e);
}

Stmt substitute(const std::string& name, const Expr& replacement, const Stmt& s) {
    return substitute(std::map<std::string, Expr>{{name, replacement}}, s);
}

}  // namespace tessera::ir
