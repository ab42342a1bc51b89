#include "ir/common_subexpressions.h"

#include <atomic>
#include <map>
#include <unordered_map>

#include "ir/equal.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"

namespace tessera::ir {
namespace {

// Whether a node reads memory or calls something whose value is not a function of its arguments:
// moving such a node out of where it stands (from under a select, say) could change what happens.
bool is_impure(const Expr& e) {
    if (e.as<Load>()) return true;
    const Call* call = e.as<Call>();
    if (!call) return false;
    if (call->call_type == CallType::Extern) return false;
    if (call->call_type != CallType::Intrinsic) return true;
    return call->intrinsic == Intrinsic::Print || call->intrinsic == Intrinsic::PrintWhen ||
           call->intrinsic == Intrinsic::ErrorMessage || call->intrinsic == Intrinsic::Require;
}

// Rebuilds an expression so that equal subtrees are one node (the first one built), with its Lets
// inlined. Works on the expression as a graph: a node shared by several parents is visited once.
class ShareEqualSubtrees : public Mutator {
public:
    bool impure = false;  // whether the expression has an impure node
    Expr mutate(const Expr& e) override {
        if (!e.defined()) return e;
        if (auto it = done.find(e.get()); it != done.end()) return it->second;
        Expr rebuilt = Mutator::mutate(e);
        impure = impure || is_impure(rebuilt);
        Expr shared = canonical.emplace(rebuilt, rebuilt).first->second;
        done.emplace(e.get(), shared);
        return shared;
    }

private:
    std::map<Expr, Expr, ExprLess> canonical;
    // By node of the input; a node's result depends on the Lets around it, so this is cleared where
    // a Let binds or unbinds a name.
    std::unordered_map<const ExprNode*, Expr> done;
    std::unordered_map<std::string, std::vector<Expr>> lets;

    Expr visit(const Variable* op) override {
        auto it = lets.find(op->name);
        if (it != lets.end() && !it->second.empty()) return it->second.back();
        return handle_of(op);
    }

    Expr visit(const Let* op) override {
        std::vector<std::string> names;
        const Let* let = op;
        while (true) {
            Expr value = mutate(let->value);
            lets[let->name].push_back(value);
            names.push_back(let->name);
            done.clear();
            const Let* next = let->body.as<Let>();
            if (!next) break;
            let = next;
        }
        Expr body = mutate(let->body);
        for (auto it = names.rbegin(); it != names.rend(); ++it) lets[*it].pop_back();
        done.clear();
        return body;
    }
};

// How many parents refer to each node of an expression whose equal subtrees are shared (a parent
// that refers to a node twice counts twice).
class CountReferences : public Mutator {
public:
    std::unordered_map<const ExprNode*, int> references;

    Expr mutate(const Expr& e) override {
        if (!e.defined()) return e;
        if (references[e.get()]++ == 0) Mutator::mutate(e);
        return e;
    }
};

bool is_leaf(const Expr& e) {
    return e.as<Variable>() || e.as<IntImm>() || e.as<UIntImm>() || e.as<FloatImm>() || e.as<StringImm>();
}

std::string fresh_name() {
    static std::atomic<uint64_t> counter{0};
    return "cse$" + std::to_string(counter++);
}

// Replaces each node referred to more than once by a variable, collecting the definitions
// innermost first (a definition is made after those of the nodes it contains).
class BindRepeatedNodes : public Mutator {
public:
    explicit BindRepeatedNodes(const std::unordered_map<const ExprNode*, int>& r) : references(r) {}
    std::vector<std::pair<std::string, Expr>> definitions;

    Expr mutate(const Expr& e) override {
        if (!e.defined()) return e;
        if (auto it = done.find(e.get()); it != done.end()) return it->second;
        Expr result = Mutator::mutate(e);
        if (!is_leaf(e) && references.at(e.get()) > 1) {
            definitions.emplace_back(fresh_name(), result);
            result = Variable::make(e.type(), definitions.back().first);
        }
        done.emplace(e.get(), result);
        return result;
    }

private:
    const std::unordered_map<const ExprNode*, int>& references;
    std::unordered_map<const ExprNode*, Expr> done;
};

}  // namespace

Expr eliminate_common_subexpressions(const Expr& e) {
    if (!e.defined()) return e;
    ShareEqualSubtrees share;
    Expr shared = share.mutate(e);
    if (share.impure) return e;
    CountReferences count;
    count.mutate(shared);
    BindRepeatedNodes bind(count.references);
    Expr result = bind.mutate(shared);
    for (auto it = bind.definitions.rbegin(); it != bind.definitions.rend(); ++it)
        result = Let::make(it->first, it->second, result);
    return result;
}

}  // namespace tessera::ir
