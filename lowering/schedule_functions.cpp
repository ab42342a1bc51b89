#include "lowering/schedule_functions.h"

#include <sstream>

#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/visitor.h"
#include "lowering/names.h"
#include "lowering/stage_loop_nest.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

// What a loop of the pipeline is, for resolving loop levels and for messages.
struct LoopSite {
    std::string func;
    int stage;
    int last_stage;
    std::string dim_name;  // as the user names it
};

// The loops (outermost first) enclosing every use of a Func: the legal places to compute it.
class LoopsEnclosingUses : public ir::Visitor {
public:
    explicit LoopsEnclosingUses(const std::string& f) : func(f) {}
    std::vector<std::string> common;
    bool used = false;

private:
    const std::string& func;
    std::vector<std::string> stack;
    void visit(const ir::For* op) override {
        include(op->min);
        include(op->extent);
        stack.push_back(op->name);
        include(op->body);
        stack.pop_back();
    }
    void visit(const ir::Call* op) override {
        if (op->call_type == ir::CallType::Func && op->name == func) {
            if (!used) {
                common = stack;
            } else {
                size_t n = 0;
                while (n < common.size() && n < stack.size() && common[n] == stack[n]) n++;
                common.resize(n);
            }
            used = true;
        }
        ir::Visitor::visit(op);
    }
};

// Wraps the body of the loop named `loop` (or, for an empty name, the whole statement).
class WrapLoopBody : public ir::Mutator {
public:
    WrapLoopBody(const std::string& l, std::function<ir::Stmt(const ir::Stmt&)> w)
        : loop(l), wrap(std::move(w)) {}
    ir::Stmt run(const ir::Stmt& s) { return loop.empty() ? wrap(s) : mutate(s); }

private:
    const std::string& loop;
    std::function<ir::Stmt(const ir::Stmt&)> wrap;
    ir::Stmt visit(const ir::For* op) override {
        if (op->name != loop) return ir::Mutator::visit(op);
        return ir::For::make(op->name, op->min, op->extent, op->for_kind, wrap(op->body));
    }
};

class ScheduleFunctions {
public:
    explicit ScheduleFunctions(const Environment& e) : env(e) {}

    ir::Stmt run() {
        std::vector<ir::Stmt> outputs;
        for (const std::string& name : env.order) {
            if (env.is_output(name)) outputs.push_back(production(env.function(name)));
        }
        ir::Stmt s = ir::Block::make(std::move(outputs));
        for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
            if (!env.is_output(*it)) s = place(env.function(*it), s);
        }
        return s;
    }

private:
    const Environment& env;
    std::map<std::string, LoopSite> loops;

    ir::Stmt production(const lang::FunctionContents& f) {
        const bool output = env.is_output(f.name);
        const int last = int(f.updates.size());
        std::vector<ir::Stmt> stages;
        for (int k = 0; k <= last; k++) {
            stages.push_back(build_stage_loop_nest(f, k, output));
            for (const schedule::Dim& d : stage_dims(f, k))
                loops[loop_var(f.name, k, d.var)] = {f.name, k, last, d.name};
            loops[loop_var(f.name, k, outermost_dim())] = {f.name, k, last, "Var::outermost()"};
        }
        return ir::ProducerConsumer::make(f.name, true, ir::Block::make(std::move(stages)));
    }

    ir::Stmt place(const lang::FunctionContents& f, const ir::Stmt& s) {
        LoopsEnclosingUses uses(f.name);
        uses.include(s);
        const std::string compute = resolve(f, f.schedule.compute_level, "compute_at", uses.common);
        const schedule::LoopLevel& store_level =
            f.schedule.store_level.is_inherited() ? f.schedule.compute_level : f.schedule.store_level;
        const std::string store = resolve(f, store_level, "store_at", uses.common);
        check_store_encloses_compute(f, store, compute, uses.common);
        ir::Stmt produce = production(f);
        ir::Stmt result =
            WrapLoopBody(compute, [&](const ir::Stmt& body) {
                return ir::Block::make(produce, ir::ProducerConsumer::make(f.name, false, body));
            }).run(s);
        ir::Region bounds;
        for (int d = 0; d < f.dimensions(); d++) {
            bounds.push_back({ir::int_var(realized_min(f.name, d)), ir::int_var(realized_extent(f.name, d))});
        }
        return WrapLoopBody(store,
                            [&](const ir::Stmt& body) {
                                return ir::Realize::make(f.name, f.output_types, bounds, body);
                            })
            .run(result);
    }

    // The name of the loop a level names ("" for the root), checked to enclose every use.
    std::string resolve(const lang::FunctionContents& f, const schedule::LoopLevel& level,
                        const char* primitive, const std::vector<std::string>& legal) const {
        if (!level.is_at()) return "";
        const std::string call = f.name + "." + primitive + "(" + level.func + ", " + level.var + ")";
        auto target = level.function.lock();
        auto named = target ? env.names.find(target.get()) : env.names.end();
        TESSERA_USER_CHECK(named != env.names.end() && env.functions.count(named->second))
            << call << ": " << level.func << " is not computed in this pipeline"
            << (named == env.names.end() ? " (the outputs do not use it)"
                                         : " (it is inlined, so it has no loops)")
            << ". " << legal_places(f, legal);
        const lang::FunctionContents& g = env.function(named->second);
        const int stage = level.stage < 0 ? int(g.updates.size()) : level.stage;
        TESSERA_USER_CHECK(stage <= int(g.updates.size()))
            << call << ": " << g.name << " has no stage " << stage << ". " << legal_places(f, legal);
        std::string loop = level.var == outermost_dim() ? loop_var(g.name, stage, outermost_dim()) : "";
        std::string all;
        for (const schedule::Dim& d : stage_dims(g, stage)) {
            if (d.var == level.var || d.name == level.var) loop = loop_var(g.name, stage, d.var);
            all = d.var + (all.empty() ? "" : ", ") + all;
        }
        TESSERA_USER_CHECK(!loop.empty())
            << call << ": " << g.name << " has no loop over " << level.var << ".\n  " << g.name
            << "'s loops, outermost first: " << all << "\n  " << legal_places(f, legal);
        TESSERA_USER_CHECK(std::find(legal.begin(), legal.end(), loop) != legal.end())
            << call << ": the loop over " << level.var << " of " << g.name
            << " does not enclose every use of " << f.name << ", so " << f.name
            << " would not be ready where it is used.\n  " << legal_places(f, legal);
        return loop;
    }

    void check_store_encloses_compute(const lang::FunctionContents& f, const std::string& store,
                                      const std::string& compute,
                                      const std::vector<std::string>& legal) const {
        auto depth = [&](const std::string& loop) {
            return loop.empty() ? -1 : int(std::find(legal.begin(), legal.end(), loop) - legal.begin());
        };
        TESSERA_USER_CHECK(depth(store) <= depth(compute))
            << f.name << " is stored inside the loop where it is computed (store_at " << describe(store)
            << ", compute_at " << describe(compute) << "). Store it at the compute level or outside it.";
    }

    std::string describe(const std::string& loop) const {
        if (loop.empty()) return "root";
        auto found = loops.find(loop);
        if (found == loops.end()) return loop;
        const LoopSite& site = found->second;
        if (site.stage == site.last_stage) return site.func + ", " + site.dim_name;
        return "LoopLevel(" + site.func + ", " + site.dim_name + ", " + std::to_string(site.stage) + ")";
    }

    std::string legal_places(const lang::FunctionContents& f, const std::vector<std::string>& legal) const {
        std::ostringstream out;
        out << "Legal places for " << f.name << ": compute_root()";
        for (const std::string& loop : legal) out << ", compute_at(" << describe(loop) << ")";
        if (f.updates.empty()) out << ", compute_inline()";
        return out.str();
    }
};

}  // namespace

ir::Stmt schedule_functions(const Environment& env) { return ScheduleFunctions(env).run(); }

}  // namespace tessera::lowering
