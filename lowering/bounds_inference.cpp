#include "lowering/bounds_inference.h"

#include "ir/interval.h"
#include "ir/ir_util.h"
#include "ir/printer.h"
#include "ir/simplify.h"
#include "ir/visitor.h"
#include "lowering/names.h"
#include "lowering/schedule_functions.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

using ir::Box;
using ir::Interval;
using BoxMap = std::map<std::string, Box>;

// The loop nest of every stage of every Func, by Func name, stage 0 first.
class FindStages : public ir::Visitor {
public:
    std::map<std::string, std::vector<ir::Stmt>> stages;

private:
    void visit(const ir::ProducerConsumer* op) override {
        if (op->is_producer) {
            const ir::Block* block = op->body.as<ir::Block>();
            stages[op->name] = block ? block->stmts : std::vector<ir::Stmt>{op->body};
        }
        ir::Visitor::visit(op);
    }
};

void merge_box(Box& into, const Box& other) {
    if (into.empty()) {
        into = other;
        return;
    }
    for (size_t d = 0; d < into.size() && d < other.size(); d++)
        into[d] = ir::interval_union(into[d], other[d]);
}

Expr one() { return ir::make_one(Int(32)); }

class BoundsInference {
public:
    BoundsInference(const ir::Stmt& s, const Environment& e) : env(e) {
        FindStages finder;
        finder.include(s);
        for (const auto& [name, stmts] : finder.stages) {
            for (const ir::Stmt& stage : stmts) stage_boxes[name].push_back(ir::boxes_touched(stage));
        }
    }

    ir::Stmt run(ir::Stmt s) {
        for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) define_bounds_of(env.function(*it));
        define_input_regions();
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            s = ir::LetStmt::make(it->first, it->second, s);
        return s;
    }

private:
    const Environment& env;
    std::map<std::string, std::vector<BoxMap>> stage_boxes;
    std::vector<std::pair<std::string, Expr>> lets;

    void let(const std::string& name, const Expr& value) { lets.emplace_back(name, ir::simplify(value)); }

    // What stages of Funcs other than `name` touch of it.
    Box required_by_consumers(const std::string& name) const {
        Box box;
        for (const auto& [consumer, stages] : stage_boxes) {
            if (consumer == name) continue;
            for (const BoxMap& boxes : stages) {
                auto it = boxes.find(name);
                if (it != boxes.end()) merge_box(box, it->second);
            }
        }
        return box;
    }

    // What the update stages of f write and read of f itself.
    Box touched_by_own_updates(const lang::FunctionContents& f) const {
        Box box;
        const std::vector<BoxMap>& stages = stage_boxes.at(f.name);
        for (size_t k = 1; k < stages.size(); k++) {
            auto it = stages[k].find(f.name);
            if (it != stages[k].end()) merge_box(box, it->second);
        }
        return box;
    }

    void check_bounded(const std::string& name, const Box& box) const {
        for (size_t d = 0; d < box.size(); d++) {
            TESSERA_USER_CHECK(box[d].is_bounded())
                << "cannot infer the region of " << name << " that the pipeline needs: dimension " << d
                << " is accessed at coordinates with no " << (box[d].min.defined() ? "upper" : "lower")
                << " bound. Clamp the coordinate (e.g. clamp(i, 0, n - 1)) where " << name << " is called.";
        }
    }

    void define_bounds_of(const lang::FunctionContents& f) {
        const int dims = f.dimensions();
        const bool output = env.is_output(f.name);
        Box consumers = required_by_consumers(f.name);
        check_bounded(f.name, consumers);
        std::vector<Expr> required_lo(dims), required_hi(dims);
        const std::string buffer = value_buffer(f.name, 0, int(f.output_types.size()));
        for (int d = 0; d < dims; d++) {
            if (output) {
                let(realized_min(f.name, d), ir::int_var(buffer_min(buffer, d)));
                let(realized_extent(f.name, d), ir::int_var(buffer_extent(buffer, d)));
                required_lo[d] = ir::int_var(realized_min(f.name, d));
                required_hi[d] = ir::Sub::make(
                    ir::Add::make(required_lo[d], ir::int_var(realized_extent(f.name, d))), one());
            } else {
                TESSERA_INTERNAL_CHECK(int(consumers.size()) == dims) << "no consumer of " << f.name;
                required_lo[d] = consumers[d].min;
                required_hi[d] = consumers[d].max;
            }
        }
        define_update_loops(f, required_lo, required_hi);
        Box own = touched_by_own_updates(f);
        check_bounded(f.name, own);
        if (output) {
            // Nothing may touch an output outside its buffer; add_buffer_checks asserts this.
            Box touched = consumers;
            merge_box(touched, own);
            for (int d = 0; d < int(touched.size()); d++) {
                let(required_min(f.name, d), touched[d].min);
                let(required_max(f.name, d), touched[d].max);
            }
        } else {
            for (int d = 0; d < dims; d++) {
                Expr lo = required_lo[d], hi = required_hi[d];
                if (!own.empty()) {
                    lo = ir::Min::make(lo, own[d].min);
                    hi = ir::Max::make(hi, own[d].max);
                }
                let(realized_min(f.name, d), lo);
                let(realized_extent(f.name, d), ir::Add::make(ir::Sub::make(hi, lo), one()));
            }
        }
        for (int d = 0; d < dims; d++) {
            const std::string& var = f.pure_args[d];
            Expr lo = ir::int_var(realized_min(f.name, d));
            let(loop_min(f.name, 0, var), lo);
            let(loop_max(f.name, 0, var),
                ir::Sub::make(ir::Add::make(lo, ir::int_var(realized_extent(f.name, d))), one()));
        }
    }

    // The pure Vars of an update loop over the region f's consumers need.
    void define_update_loops(const lang::FunctionContents& f, const std::vector<Expr>& lo,
                             const std::vector<Expr>& hi) {
        for (size_t k = 0; k < f.updates.size(); k++) {
            for (const StageLoop& l : stage_loops(f, int(k) + 1)) {
                if (l.is_reduction) continue;
                int d = 0;
                while (f.pure_args[d] != l.var) d++;
                let(loop_min(f.name, int(k) + 1, l.var), lo[d]);
                let(loop_max(f.name, int(k) + 1, l.var), hi[d]);
            }
        }
    }

    void define_input_regions() {
        std::map<std::string, Box> inputs;
        for (const auto& [consumer, stages] : stage_boxes) {
            for (const BoxMap& boxes : stages) {
                for (const auto& [name, box] : boxes) {
                    if (!env.functions.count(name)) merge_box(inputs[name], box);
                }
            }
        }
        for (const auto& [name, box] : inputs) {
            check_bounded(name, box);
            for (size_t d = 0; d < box.size(); d++) {
                let(required_min(name, int(d)), box[d].min);
                let(required_max(name, int(d)), box[d].max);
            }
        }
    }
};

}  // namespace

ir::Stmt bounds_inference(const ir::Stmt& s, const Environment& env) {
    return BoundsInference(s, env).run(s);
}

}  // namespace tessera::lowering
