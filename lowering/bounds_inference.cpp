#include "lowering/bounds_inference.h"

#include "ir/interval.h"
#include "ir/ir_util.h"
#include "ir/mutator.h"
#include "ir/simplify.h"
#include "ir/visitor.h"
#include "lowering/cooperative_regions.h"
#include "lowering/names.h"
#include "lowering/site_contents.h"
#include "lowering/stage_loop_nest.h"
#include "tessera/operators.h"
#include "tessera/runtime.h"
#include "util/error_stream.h"

namespace tessera::lowering {
namespace {

using ir::Box;
using ir::Interval;

void merge_box(Box& into, const Box& other) {
    if (into.empty()) {
        into = other;
        return;
    }
    for (size_t d = 0; d < into.size() && d < other.size(); d++)
        into[d] = ir::interval_union(into[d], other[d]);
}

void check_bounded(const std::string& name, const Box& box) {
    for (size_t d = 0; d < box.size(); d++) {
        TESSERA_USER_CHECK(box[d].is_bounded())
            << "cannot infer the region of " << name << " that the pipeline needs: dimension " << d
            << " is accessed at coordinates with no " << (box[d].min.defined() ? "upper" : "lower")
            << " bound. Clamp the coordinate (e.g. clamp(i, 0, n - 1)) where " << name << " is called.";
    }
}

class BoundsInference : public ir::Mutator {
public:
    explicit BoundsInference(const Environment& e) : env(e) {}

    ir::Stmt run(const ir::Stmt& s) { return define_site(s, true); }

private:
    const Environment& env;
    // The lets and checks of the site being defined, outermost first.
    std::vector<std::pair<std::string, Expr>> lets;
    std::vector<ir::Stmt> checks;

    int thread_loops_ = 0;  // around the site being defined

    ir::Stmt visit(const ir::For* op) override {
        const bool thread = ir::is_gpu_thread_loop(op->for_kind);
        thread_loops_ += thread;
        ir::Stmt body = define_site(op->body, false);
        thread_loops_ -= thread;
        return ir::For::make(op->name, op->min, op->extent, op->for_kind, body);
    }

    void let(const std::string& name, const Expr& value) { lets.emplace_back(name, ir::simplify(value)); }

    ir::Stmt define_site(const ir::Stmt& site_body, bool root) {
        ir::Stmt body = mutate(site_body);  // the sites of inner loops first
        // The thread loops directly here have all their lets now.
        if (thread_loops_ == 0) body = widen_cooperative_regions(body, env);
        auto saved_lets = std::move(lets);
        auto saved_checks = std::move(checks);
        lets.clear();
        checks.clear();
        SiteContents site = site_contents(body);
        if (root) define_outputs();
        for (auto it = site.produced.rbegin(); it != site.produced.rend(); ++it) {
            if (!env.is_output(*it)) define_computed(env.function(*it), site);
        }
        for (const auto& [name, realized] : site.realize) define_realized(env.function(name), realized);
        if (root) define_required_regions(body);
        if (!checks.empty()) {
            checks.push_back(body);
            body = ir::Block::make(std::move(checks));
        }
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            body = ir::LetStmt::make(it->first, it->second, body);
        lets = std::move(saved_lets);
        checks = std::move(saved_checks);
        return body;
    }

    // Outputs compute their buffers' regions, in every stage.
    void define_outputs() {
        for (const std::string& name : env.outputs) {
            const lang::FunctionContents& f = env.function(name);
            const std::string buffer = value_buffer(f.name, 0, int(f.output_types.size()));
            Box region;
            for (int d = 0; d < f.dimensions(); d++) {
                Expr min = ir::int_var(buffer_min(buffer, d));
                region.push_back({min, min + ir::int_var(buffer_extent(buffer, d)) - 1});
            }
            define_stage_loops(f, apply_bounds(f, region), Box());
        }
    }

    // A Func computed at this site covers what its consumers here touch.
    void define_computed(const lang::FunctionContents& f, const SiteContents& site) {
        Box required = ir::box_touched(site.consume.at(f.name), f.name);
        if (required.empty()) {
            // Nothing reads f here (its consumers were optimized away): compute nothing.
            for (int d = 0; d < f.dimensions(); d++)
                required.push_back({ir::make_zero(Int(32)), ir::make_const(Int(32), int64_t(-1))});
        }
        check_bounded(f.name, required);
        Box computed = apply_bounds(f, required);
        // Each stage also covers what the stages after it write and read of f, so that a later
        // update reads f where every earlier stage has been applied, whatever region the consumers
        // need: the last update runs over the computed region, each earlier stage over that and
        // what the stages after it touch. Stages are defined last first, so that each one's region
        // is written in terms of the loop bounds of the stages after it.
        Box later;
        for (int k = int(f.updates.size()); k >= 1; k--) {
            Box region = computed;
            merge_box(region, later);
            define_update_loops(f, k, region);
            Box touched = ir::box_touched(build_stage_loop_nest(f, k, false), f.name);
            check_bounded(f.name, touched);
            merge_box(later, touched);
        }
        define_stage_loops(f, computed, later, /*updates_defined=*/true);
    }

    // align_bounds() widens the required region; bound() then replaces it with the stated one, and
    // bound_extent() with the stated extent from the required min; what is required must fit.
    Box apply_bounds(const lang::FunctionContents& f, const Box& required_by_consumers) {
        Box required = required_by_consumers;
        for (const schedule::Alignment& a : f.schedule.alignments) {
            int d = int(std::find(f.pure_args.begin(), f.pure_args.end(), a.var) - f.pure_args.begin());
            // A modulus known only at run time is checked there: by zero the division below gives 0,
            // and the region would shrink.
            if (!ir::as_const_int(a.modulus)) {
                Expr error = ir::Call::make_intrinsic(
                    Int(32), ir::Intrinsic::ErrorMessage,
                    {ir::make_const(Int(32), int64_t(tessera_error_bound_violated)),
                     Expr(f.name + ".align_bounds(" + a.var + ", ...): the modulus is "), a.modulus,
                     Expr("; give a positive one.")});
                checks.push_back(ir::AssertStmt::make(a.modulus > 0, error));
            }
            // Division rounds down (Euclidean, for a positive modulus).
            Expr lo = (required[d].min - a.remainder) / a.modulus * a.modulus + a.remainder;
            Expr hi = (required[d].max - a.remainder) / a.modulus * a.modulus + a.remainder + a.modulus - 1;
            required[d] = {lo, hi};
        }
        Box region = required;
        for (const schedule::Bound& b : f.schedule.bounds) {
            int d = int(std::find(f.pure_args.begin(), f.pure_args.end(), b.var) - f.pure_args.begin());
            Expr lo = b.min.defined() ? b.min : required[d].min, hi = lo + b.extent - 1;
            Expr error = ir::Call::make_intrinsic(
                Int(32), ir::Intrinsic::ErrorMessage,
                {ir::make_const(Int(32), int64_t(tessera_error_bound_violated)),
                 Expr(f.name + " is bounded to " + b.var + " in ["), lo, Expr(", "), hi,
                 Expr(b.min.defined() ? "] by bound(), but [" : "] by bound_extent(), but ["),
                 required[d].min, Expr(", "), required[d].max,
                 Expr("] of it is needed. Widen the bound or remove it.")});
            checks.push_back(ir::AssertStmt::make(lo <= required[d].min && required[d].max <= hi, error));
            region[d] = {lo, hi};
        }
        return region;
    }

    void define_update_loops(const lang::FunctionContents& f, int stage, const Box& region) {
        for (const std::string& v : stage_pure_vars(f, stage)) {
            int d = int(std::find(f.pure_args.begin(), f.pure_args.end(), v) - f.pure_args.begin());
            let(loop_min(f.name, stage, v), region[d].min);
            let(loop_max(f.name, stage, v), region[d].max);
        }
    }

    void define_stage_loops(const lang::FunctionContents& f, const Box& region, const Box& own,
                            bool updates_defined = false) {
        if (!updates_defined) {
            for (int k = 1; k <= int(f.updates.size()); k++) define_update_loops(f, k, region);
        }
        for (int d = 0; d < f.dimensions(); d++) {
            Expr lo = region[d].min, hi = region[d].max;
            if (!own.empty()) {
                lo = min(lo, own[d].min);
                hi = max(hi, own[d].max);
            }
            let(loop_min(f.name, 0, f.pure_args[d]), lo);
            let(loop_max(f.name, 0, f.pure_args[d]), hi);
        }
    }

    // A Func's storage covers what its store loop's body touches of it.
    void define_realized(const lang::FunctionContents& f, const ir::Stmt& body) {
        Box box = ir::box_touched(body, f.name);
        check_bounded(f.name, box);
        for (int d = 0; d < f.dimensions(); d++) {
            const ir::Interval realized = realized_region(f, d, box[d]);
            let(realized_min(f.name, d), realized.min);
            let(realized_extent(f.name, d), aligned_extent(f, d, realized.max - realized.min + 1));
        }
    }

    // The extent rounded up to a multiple of align_storage()'s alignment, if any (one at least,
    // where it is known only when the pipeline runs).
    static Expr aligned_extent(const lang::FunctionContents& f, int d, const Expr& extent) {
        for (const schedule::StorageAlignment& a : f.schedule.storage_alignments) {
            if (a.var != f.pure_args[d]) continue;
            Expr alignment = ir::as_const_int(a.alignment) ? a.alignment : max(a.alignment, 1);
            return (extent + alignment - 1) / alignment * alignment;
        }
        return extent;
    }

    // What the statement touches; but where a Func is stored where it is computed, a dimension of
    // bound_extent() is realized over what its first stage computes: every access is inside (the
    // consumers' are checked against the bound), and the extent is then the bound's, constant if
    // it is.
    ir::Interval realized_region(const lang::FunctionContents& f, int d, const ir::Interval& touched) const {
        const std::string& var = f.pure_args[d];
        for (const schedule::Bound& b : f.schedule.bounds) {
            if (b.var != var || b.min.defined() || !f.schedule.store_level.is_inherited()) continue;
            return {ir::int_var(loop_min(f.name, 0, var)), ir::int_var(loop_max(f.name, 0, var))};
        }
        return touched;
    }

    // What the pipeline touches of each input image and each output, for add_buffer_checks.
    void define_required_regions(const ir::Stmt& body) {
        for (const auto& [name, box] : ir::boxes_touched(body)) {
            const bool is_func = env.functions.count(name) > 0;
            if (is_func && !env.is_output(name)) continue;
            check_bounded(name, box);
            for (size_t d = 0; d < box.size(); d++) {
                let(required_min(name, int(d)), box[d].min);
                let(required_max(name, int(d)), box[d].max);
            }
        }
    }
};

}  // namespace

ir::Stmt bounds_inference(const ir::Stmt& s, const Environment& env) { return BoundsInference(env).run(s); }

}  // namespace tessera::lowering
