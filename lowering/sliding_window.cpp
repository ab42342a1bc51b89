#include "lowering/sliding_window.h"

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

bool moves_forward(const Expr& min, const Expr& max, const std::string& var) {
    Expr next = ir::int_var(var) + 1;
    return ir::can_prove(ir::substitute(var, next, min) >= min) &&
           ir::can_prove(ir::substitute(var, next, max) >= max);
}

// Replaces the value of one let in the chain at the start of a statement.
ir::Stmt replace_let(const ir::Stmt& s, const std::string& name, const Expr& value) {
    const ir::LetStmt* let = s.as<ir::LetStmt>();
    if (!let) return s;
    if (let->name == name) return ir::LetStmt::make(name, value, let->body);
    return ir::LetStmt::make(let->name, let->value, replace_let(let->body, name, value));
}

class SlidingWindow : public ir::Mutator {
public:
    explicit SlidingWindow(const Environment& e) : env(e) {}

private:
    const Environment& env;
    std::set<std::string> stored_outside;  // Funcs whose Realize encloses this point

    ir::Stmt visit(const ir::Realize* op) override {
        stored_outside.insert(op->name);
        ir::Stmt body = mutate(op->body);
        stored_outside.erase(op->name);
        return ir::Realize::make(op->name, op->types, op->bounds, body);
    }

    ir::Stmt visit(const ir::For* op) override {
        ir::Stmt body = op->body;
        if (op->for_kind == ir::ForKind::Serial) {
            SiteContents site = site_contents(body);
            std::map<std::string, Expr> lets = expanded_site_lets(body);
            for (const std::string& f : site.produced) {
                if (stored_outside.count(f) && env.functions.count(f))
                    body = slide(env.function(f), op, lets, body);
            }
        }
        return ir::For::make(op->name, op->min, op->extent, op->for_kind, mutate(body));
    }

    ir::Stmt slide(const lang::FunctionContents& f, const ir::For* loop,
                   const std::map<std::string, Expr>& lets, const ir::Stmt& body) {
        if (!f.updates.empty()) return body;
        int sliding = -1;
        for (int d = 0; d < f.dimensions(); d++) {
            auto lo = lets.find(loop_min(f.name, 0, f.pure_args[d])),
                 hi = lets.find(loop_max(f.name, 0, f.pure_args[d]));
            if (lo == lets.end() || hi == lets.end()) return body;
            if (!ir::uses_var(lo->second, loop->name) && !ir::uses_var(hi->second, loop->name)) continue;
            if (sliding >= 0) return body;  // the region moves in two dimensions
            sliding = d;
        }
        if (sliding < 0 || pure_loop_is_split(f, f.pure_args[sliding])) return body;
        const std::string min_name = loop_min(f.name, 0, f.pure_args[sliding]);
        Expr lo = lets.at(min_name), hi = lets.at(loop_max(f.name, 0, f.pure_args[sliding]));
        if (!moves_forward(lo, hi, loop->name)) return body;
        Expr v = ir::int_var(loop->name);
        Expr previous_max = ir::substitute(loop->name, v - 1, hi);
        Expr slid = select(v > loop->min, max(lo, previous_max + 1), lo);
        return replace_let(body, min_name, ir::simplify(slid));
    }
};

}  // namespace

ir::Stmt sliding_window(const ir::Stmt& s, const Environment& env) { return SlidingWindow(env).mutate(s); }

}  // namespace tessera::lowering
