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

// s with f's production starting its loops from `min_name`, bound to `value` just around it, instead
// of from `old_min`, the min bounds inference gave. Only f's production changes: the Funcs computed
// beside f at this level keep the regions bounds inference gave them, though theirs are written in
// terms of f's. Slid with f, their regions would not stay inside the old ones (a RoundUp split
// rounds up from the new min, past the old max), and what they read, stored outside, would not
// cover it.
ir::Stmt start_production_at(const ir::Stmt& s, const std::string& func, const std::string& old_min,
                             const std::string& min_name, const Expr& value) {
    class StartProduction : public ir::Mutator {
    public:
        StartProduction(const std::string& f, const std::string& o, const std::string& n, const Expr& v)
            : func(f), old_min(o), min_name(n), value(v) {}

    private:
        const std::string &func, &old_min, &min_name;
        const Expr& value;
        ir::Stmt visit(const ir::ProducerConsumer* op) override {
            if (op->name != func || !op->is_producer) return ir::Mutator::visit(op);
            ir::Stmt body = ir::substitute(old_min, ir::int_var(min_name), op->body);
            return ir::LetStmt::make(min_name, value, ir::ProducerConsumer::make(func, true, body));
        }
    } start(func, old_min, min_name, value);
    return start.mutate(s);
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
        return start_production_at(body, f.name, min_name, min_name + ".slid", ir::simplify(slid));
    }
};

}  // namespace

ir::Stmt sliding_window(const ir::Stmt& s, const Environment& env) { return SlidingWindow(env).mutate(s); }

}  // namespace tessera::lowering
