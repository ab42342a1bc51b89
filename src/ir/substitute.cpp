#include "ir/substitute.h"

#include <utility>
#include <vector>

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

    // Lets shadow: the body of `let x = ... in body` does not see an outer x. Chains of lets
    // are walked iteratively, as in the Mutator base.
    template <typename LetNode, typename Body>
    Body mutate_let_chain(const LetNode* op) {
        std::vector<std::pair<const LetNode*, Expr>> chain;
        const LetNode* let = op;
        while (true) {
            chain.emplace_back(let, mutate(let->value));
            shadowed[let->name]++;
            const LetNode* next = let->body.template as<LetNode>();
            if (!next) break;
            let = next;
        }
        Body body = mutate(let->body);
        bool changed = !body.same_as(let->body);
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const auto& [node, value] = *it;
            shadowed[node->name]--;
            if (changed || !value.same_as(node->value)) {
                body = LetNode::make(node->name, value, body);
                changed = true;
            } else {
                body = handle_of(node);
            }
        }
        return body;
    }

    Expr visit(const Let* op) override { return mutate_let_chain<Let, Expr>(op); }
    Stmt visit(const LetStmt* op) override { return mutate_let_chain<LetStmt, Stmt>(op); }

    Stmt visit(const For* op) override {
        Expr min = mutate(op->min), extent = mutate(op->extent);
        shadowed[op->name]++;
        Stmt body = mutate(op->body);
        shadowed[op->name]--;
        if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body))
            return handle_of(op);
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
