#include "lowering/fold_storage.h"

#include <set>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "lowering/names.h"
#include "lowering/site_contents.h"
#include "tessera/operators.h"

namespace tessera::lowering {
namespace {

struct Fold {
    int dim;
    int64_t factor;
};

// Whether the region [min, max] of a dimension moves forward (never back) as `var` steps forward.
bool moves_forward(const Expr& min, const Expr& max, const std::string& var) {
    Expr next = ir::int_var(var) + 1;
    return ir::can_prove(ir::substitute(var, next, min) >= min) &&
           ir::can_prove(ir::substitute(var, next, max) >= max);
}

class FoldAccesses : public ir::Mutator {
public:
    FoldAccesses(const std::string& f, Fold fold) : func(f), fold(fold) {}

private:
    const std::string& func;
    const Fold fold;

    std::vector<Expr> folded(const std::vector<Expr>& args) {
        std::vector<Expr> result;
        for (const Expr& a : args) result.push_back(mutate(a));
        result[fold.dim] = result[fold.dim] % ir::make_const(Int(32), fold.factor);
        return result;
    }
    ir::Stmt visit(const ir::Provide* op) override {
        if (op->name != func) return ir::Mutator::visit(op);
        std::vector<Expr> values;
        for (const Expr& v : op->values) values.push_back(mutate(v));
        return ir::Provide::make(op->name, values, folded(op->args));
    }
    Expr visit(const ir::Call* op) override {
        if (op->call_type != ir::CallType::Func || op->name != func) return ir::Mutator::visit(op);
        auto copy = std::make_shared<ir::Call>(*op);
        copy->args = folded(op->args);
        return Expr(std::shared_ptr<const ir::ExprNode>(std::move(copy)));
    }
};

class FoldStorage : public ir::Mutator {
public:
    explicit FoldStorage(const Environment& e) : env(e) {}

private:
    const Environment& env;
    std::set<std::string> open;  // Realizes enclosing this point with only serial loops between
    std::map<std::string, Fold> folds;

    ir::Stmt visit(const ir::Realize* op) override {
        open.insert(op->name);
        ir::Stmt body = mutate(op->body);
        open.erase(op->name);
        auto it = folds.find(op->name);
        if (it == folds.end()) return ir::Realize::make(op->name, op->types, op->bounds, body);
        const Fold fold = it->second;
        folds.erase(it);
        ir::Region bounds = op->bounds;
        bounds[fold.dim] = {ir::make_zero(Int(32)), ir::make_const(Int(32), fold.factor)};
        return ir::Realize::make(op->name, op->types, bounds, FoldAccesses(op->name, fold).mutate(body));
    }

    ir::Stmt visit(const ir::For* op) override {
        // Iterations that do not run in order cannot share a folded buffer.
        const bool in_order = op->for_kind == ir::ForKind::Serial || op->for_kind == ir::ForKind::Unrolled ||
                              op->for_kind == ir::ForKind::Tensorized;
        if (!in_order) {
            std::set<std::string> saved = std::move(open);
            open.clear();
            ir::Stmt result = ir::Mutator::visit(op);
            open = std::move(saved);
            return result;
        }
        SiteContents site = site_contents(op->body);
        std::map<std::string, Expr> lets = expanded_site_lets(op->body);
        for (const std::string& f : site.produced) {
            if (open.count(f) && env.functions.count(f)) consider(env.function(f), op->name, lets);
        }
        return ir::Mutator::visit(op);
    }

    void consider(const lang::FunctionContents& f, const std::string& var,
                  const std::map<std::string, Expr>& lets) {
        if (!f.updates.empty()) return;
        for (int d = 0; d < f.dimensions(); d++) {
            auto lo = lets.find(loop_min(f.name, 0, f.pure_args[d])),
                 hi = lets.find(loop_max(f.name, 0, f.pure_args[d]));
            if (lo == lets.end() || hi == lets.end()) return;
            if (!ir::uses_var(lo->second, var) && !ir::uses_var(hi->second, var)) continue;
            if (pure_loop_is_split(f, f.pure_args[d])) return;
            std::optional<int64_t> window = ir::as_const_int(ir::simplify(hi->second - lo->second + 1));
            if (!window || *window < 1 || !moves_forward(lo->second, hi->second, var)) continue;
            int64_t factor = 1;
            while (factor < *window) factor *= 2;
            folds[f.name] = {d, factor};
            return;
        }
    }
};

}  // namespace

ir::Stmt fold_storage(const ir::Stmt& s, const Environment& env) { return FoldStorage(env).mutate(s); }

}  // namespace tessera::lowering
