#pragma once
// Random schedules for the pipelines of random_pipeline.h, legal by construction: a model of each
// stage's loops (their names, the Vars they come from, their extents where the generator knows
// them) decides which primitives, tail strategies and placements Halide's rules allow, and every
// call made is recorded as the C++ that makes it.
//
// What is kept legal, and how:
//  - tail strategies: GuardWithIf anywhere; on an output, ShiftInwards only where the loop's extent
//    is at least the factor and RoundUp only where the factor divides it (so nothing is written
//    outside its buffer); on updates never ShiftInwards, and RoundUp only on pure Vars of other
//    Funcs, on loops that rounding up extends past the end rather than over points already done;
//  - RVars keep their relative order unless the update is associative or its iterations are
//    independent, and are parallel or vectorized only when each iteration updates f at the RVars
//    themselves and reads f only there;
//  - vectorize and unroll without a factor only on loops of constant extent; the vectorized loop
//    is innermost;
//  - compute_at and store_at only at loops enclosing every use of the Func (after inlining), not
//    inside a vectorized loop, with storage at or outside the computation, and a Func with updates
//    never stored outside a parallel loop it is computed in;
//  - bound() only where the region the pipeline needs is known exactly: on the output, and on
//    Funcs computed at the root whose consumers compute exactly what they need.

#include "pipeline_builder.h"
#include "pipeline_reference.h"
#include "random_pipeline.h"

#include <optional>

namespace random_schedule {

struct ScheduleOptions {
    double inline_probability = 0.35;
    // Of the input's boundary condition: inlined, its clamps are in every Func that reads it.
    double input_inline_probability = 0.5;
    double root_probability = 0.3;  // of a Func not inlined, computed at the root
    int max_loop_steps = 4;         // splits, tiles, fuses and renames per stage
    bool placements = true;
    bool bounds = true;
    // Staging through cache_read (a copy of a Func or the input for one consumer) and cache_write
    // (a Func computed into local storage, then copied out).
    bool caches = true;
    // The most splits and fuses in all the Funcs of one nest of compute_at levels, from a Func at
    // the root down. Deeper nests of split and fused loops can still make bounds inference's
    // expressions outgrow bounds_of_expr's size limit and fail with "cannot infer the region"
    // (a limitation of Tessera; Halide accepts these schedules). TESSERA_RANDOM_SCHEDULE_NEST_COST
    // overrides it.
    int max_nest_cost = 4;
    // The most splits and fuses of a Func computed at the root (or the output).
    int max_root_splits = 1000;
    // Every pure definition starts with a tile of its x and y loops (see tile_pure_loops).
    bool tile_pure_loops = false;
    // Scales how often a stage's loops are reordered, vectorized, unrolled and made parallel.
    double loop_primitive_probability = 1;
    // GPU schedules instead (random_gpu_schedule.h), run in emulation.
    bool gpu = false;
    // The schedule of the "Tessera" automatic scheduler instead, for estimates of the output's region.
    bool autoschedule = false;
};

struct LoopDim {
    enum class Kind { Serial, Parallel, Vectorized, Unrolled };
    std::string name;  // the name primitives and loop levels use
    std::string base;  // the stem of names derived from it ("xo", "rx")
    bool rvar = false;
    std::set<int> origins;          // the Vars it iterates over: 0 x, 1 y, 2 r.x, 3 r.y
    std::optional<int64_t> extent;  // its trip count, where the generator knows it
    bool constant = false;          // its extent is a constant in the lowered code
    bool repeat_free = true;        // rounding it up adds points past the region's end only
    Kind kind = Kind::Serial;
};

struct StageModel {
    int func = 0;   // -1: the input's boundary condition
    int stage = 0;  // 0: the pure definition; k: update k - 1
    bool output = false;
    const UpdateDef* update = nullptr;
    std::vector<LoopDim> dims;  // innermost first
    std::set<std::string> names;
    std::vector<std::string>
        rvar_order;          // the RVar loops, innermost first, in an order that keeps the meaning
    bool only_guard = true;  // every split so far guards its tail
    int splits = 0;          // splits and fuses made
};

class ScheduleGenerator {
public:
    ScheduleGenerator(std::mt19937& rng, const PipelineDef& p, BuiltPipeline& b, const ScheduleOptions& o,
                      const std::vector<StageRegions>& regions)
        : rng(rng), p(p), b(b), o(o), regions(regions), used(reachable(p)) {}

    // Schedules the pipeline, and returns the C++ of the schedule, its Vars declared first.
    std::string run() {
        decide_inlining();
        bound_output();
        // Consumers first: a Func is placed among its consumers' final loops, then its own loops
        // are scheduled (within what its place in a nest of compute_at levels leaves).
        for (int f = p.output(); f >= -1; f--) {
            if (!scheduled(f)) continue;
            const int budget = f == p.output() ? o.max_root_splits : place(f);
            const int stages = f < 0 ? 1 : 1 + int(p.stages[size_t(f)].updates.size());
            int splits = 0;
            for (int k = 0; k < stages; k++) {
                models[f].push_back(initial_model(f, k));
                schedule_loops(models[f].back(), budget);
                splits += models[f].back().splits;
            }
            nest_cost[f] = splits + (container[f].empty() ? 0 : nest_cost.at(container[f].back().func));
        }
        if (o.bounds) bound_intermediates();
        for (int f = -1; f < p.output(); f++) {
            if (scheduled(f) && detail::chance(rng, 0.2)) reorder_storage(f);
            // The heap instead of the compiler's choice (the stack for small constant sizes).
            if (scheduled(f) && detail::chance(rng, 0.2)) store_in_heap(f);
        }
        if (o.caches && chance(0.3)) stage_through_cache_read();
        if (o.caches && chance(0.3)) stage_through_cache_write();
        return declarations.str() + code.str();
    }

private:
    std::mt19937& rng;
    const PipelineDef& p;
    BuiltPipeline& b;
    const ScheduleOptions& o;
    const std::vector<StageRegions>& regions;
    std::vector<bool> used;
    std::ostringstream code;
    std::map<int, bool> inlined;
    std::map<int, std::vector<StageModel>> models;
    std::set<int> output_bounded_dims;
    std::set<std::string> declared;
    std::ostringstream declarations;

    struct LoopRef {
        int func, stage;
        std::string name;
        bool rvar;
        LoopDim::Kind kind;
        bool operator==(const LoopRef& o) const {
            return func == o.func && stage == o.stage && name == o.name;
        }
    };
    std::map<int, std::vector<LoopRef>> container;  // the loops around each Func's computation
    std::map<int, bool> at_root;
    std::map<int, bool> widened;   // bounded beyond what is needed
    std::map<int, int> nest_cost;  // splits and fuses of a Func and of the Funcs around it
    int budget = 0;                // splits and fuses the stage being scheduled may make

    int rand_int(int lo, int hi) { return detail::rand_int(rng, lo, hi); }
    bool chance(double q) { return detail::chance(rng, q); }

    bool has_updates(int f) const { return f >= 0 && !p.stages[size_t(f)].updates.empty(); }
    bool scheduled(int f) const { return used[size_t(f) + 1] && !inlined.at(f); }
    Func func(int f) const { return f < 0 ? b.input : b.stages[size_t(f)]; }
    std::string func_code(int f) const { return stage_name(f); }
    std::string stage_code(int f, int k) const {
        return k == 0 ? func_code(f) : func_code(f) + ".update(" + std::to_string(k - 1) + ")";
    }
    std::string pure_var_code(int f, int d) const {
        if (f < 0) return d == 0 ? "_0" : "_1";
        return d == 0 ? "x" : "y";
    }
    Var pure_var(int f, int d) const { return Var(pure_var_code(f, d)); }

    // ------------------------------------------------------------------ inlining and the output

    void decide_inlining() {
        for (int f = -1; f <= p.output(); f++) {
            inlined[f] = f != p.output() && !has_updates(f) &&
                         chance(f < 0 ? o.input_inline_probability : o.inline_probability);
            if (used[size_t(f) + 1] && inlined[f] && chance(0.5)) {
                func(f).compute_inline();
                code << func_code(f) << ".compute_inline();\n";
            }
        }
    }

    void bound_output() {
        if (!o.bounds) return;
        const int f = p.output();
        for (int d = 0; d < 2; d++) {
            if (!chance(0.15)) continue;
            func(f).bound(pure_var(f, d), p.output_min[d], p.output_extent[d]);
            code << func_code(f) << ".bound(" << pure_var_code(f, d) << ", " << p.output_min[d] << ", "
                 << p.output_extent[d] << ");\n";
            output_bounded_dims.insert(d);
        }
    }

    // ------------------------------------------------------------------ loop models

    StageModel initial_model(int f, int k) {
        StageModel m;
        m.func = f;
        m.stage = k;
        m.output = f == p.output();
        m.update = k > 0 ? &p.stages[size_t(f)].updates[size_t(k) - 1] : nullptr;
        if (m.update) {
            for (size_t i = 0; i < m.update->rdom.size(); i++) {
                LoopDim r;
                r.name = rdom_name(f, k - 1) + (i == 0 ? ".x" : ".y");
                r.base = i == 0 ? "rx" : "ry";
                r.rvar = true;
                r.origins = {2 + int(i)};
                r.extent = m.update->rdom[i].second;
                r.constant = true;
                m.dims.push_back(r);
                m.rvar_order.push_back(r.name);
            }
        }
        for (int d = 0; d < 2; d++) {
            if (m.update && !m.update->lhs[0].is_pure_var(d) && !m.update->lhs[1].is_pure_var(d)) continue;
            LoopDim v;
            v.name = pure_var_code(f, d);
            v.base = f < 0 ? (d == 0 ? "u" : "v") : v.name;
            v.origins = {d};
            if (m.output) v.extent = p.output_extent[d];
            v.constant = m.output && output_bounded_dims.count(d);
            m.dims.push_back(v);
        }
        for (const LoopDim& d : m.dims) m.names.insert(d.name);
        return m;
    }

    std::string fresh(StageModel& m, const std::string& base) {
        std::string name = base;
        for (int i = 2; m.names.count(name); i++) name = base + std::to_string(i);
        m.names.insert(name);
        return name;
    }

    static const char* tail_code(TailStrategy t) {
        switch (t) {
            case TailStrategy::RoundUp: return "TailStrategy::RoundUp";
            case TailStrategy::GuardWithIf: return "TailStrategy::GuardWithIf";
            case TailStrategy::ShiftInwards: return "TailStrategy::ShiftInwards";
            default: return "TailStrategy::Auto";
        }
    }

    TailStrategy resolved(const StageModel& m, const LoopDim& d, TailStrategy t) const {
        if (t != TailStrategy::Auto) return t;
        if (m.stage == 0) return TailStrategy::ShiftInwards;
        return d.rvar || m.output ? TailStrategy::GuardWithIf : TailStrategy::RoundUp;
    }

    bool tail_legal(const StageModel& m, const LoopDim& d, int factor, TailStrategy t) const {
        switch (resolved(m, d, t)) {
            case TailStrategy::GuardWithIf: return true;
            case TailStrategy::ShiftInwards:
                return m.stage == 0 && (!m.output || (d.extent && *d.extent >= factor));
            case TailStrategy::RoundUp:
                if (m.stage > 0 && d.rvar) return false;
                if (m.output) return d.extent && *d.extent % factor == 0;
                return m.stage == 0 || d.repeat_free;
            default: return false;
        }
    }

    TailStrategy pick_tail(const StageModel& m, const std::vector<const LoopDim*>& dims, int factor) {
        static const TailStrategy all[] = {TailStrategy::Auto, TailStrategy::GuardWithIf,
                                           TailStrategy::ShiftInwards, TailStrategy::RoundUp};
        std::vector<TailStrategy> legal;
        for (TailStrategy t : all) {
            bool ok = true;
            for (const LoopDim* d : dims) ok = ok && tail_legal(m, *d, factor, t);
            if (ok) legal.push_back(t);
        }
        return legal[size_t(rand_int(0, int(legal.size()) - 1))];
    }

    int dim_index(const StageModel& m, const std::string& name) const {
        for (size_t i = 0; i < m.dims.size(); i++) {
            if (m.dims[i].name == name) return int(i);
        }
        return -1;
    }

    // The C++ naming a loop: an RDom's own RVars by their member (r1_0.x), names derived from them
    // by RVar("..."), others by their declared Var or RVar.
    static std::string name_code(const std::string& name) {
        const size_t dot = name.find('.');
        if (dot == std::string::npos ||
            (name.size() == dot + 2 && (name[dot + 1] == 'x' || name[dot + 1] == 'y')))
            return name;
        return "RVar(\"" + name + "\")";
    }
    static std::string dim_code(const LoopDim& d) { return name_code(d.name); }
    VarOrRVar handle(const LoopDim& d) const {
        return d.rvar ? VarOrRVar(RVar(d.name)) : VarOrRVar(Var(d.name));
    }
    VarOrRVar handle(bool rvar, const std::string& name) const {
        return rvar ? VarOrRVar(RVar(name)) : VarOrRVar(Var(name));
    }

    // Runs a primitive on the stage: on the Func for the pure definition, on the Stage of an update.
    template <typename Primitive>
    void on_stage(const StageModel& m, Primitive&& primitive) {
        Func f = func(m.func);
        if (m.stage == 0) {
            primitive(f);
        } else {
            Stage s = f.update(m.stage - 1);
            primitive(s);
        }
    }

    // Declares the Var or RVar of a new loop name in the printed schedule. Names of RVar loops
    // start with 'r' and names of Var loops never do, so one declaration per name serves every
    // stage. Names with a dot (derived from an RDom's own RVars) are written RVar("...") in place.
    void declare(bool rvar, const std::string& name) {
        if (name.find('.') != std::string::npos || name == "x" || name == "y" || name == "_0" || name == "_1")
            return;
        if (declared.insert(name).second) {
            declarations << (rvar ? "RVar " : "Var ") << name << "(\"" << name << "\");\n";
        }
    }

    // Splits the model's loop at index i: the inner loop takes its place, the outer goes just outside.
    void model_split(StageModel& m, int i, const std::string& outer, const std::string& inner, int factor,
                     TailStrategy tail) {
        LoopDim old = m.dims[size_t(i)];
        LoopDim in = old, out = old;
        out.name = outer;
        out.base = old.base + "o";
        if (old.extent) out.extent = (*old.extent + factor - 1) / factor;
        in.name = inner;
        in.base = old.base + "i";
        in.extent = factor;
        in.constant = true;
        in.repeat_free = false;
        in.kind = out.kind = LoopDim::Kind::Serial;
        m.dims[size_t(i)] = in;
        m.dims.insert(m.dims.begin() + i + 1, out);
        if (resolved(m, old, tail) != TailStrategy::GuardWithIf) m.only_guard = false;
        m.splits++;
        if (old.rvar) {
            auto it = std::find(m.rvar_order.begin(), m.rvar_order.end(), old.name);
            *it = inner;
            m.rvar_order.insert(it + 1, outer);
        }
    }

    int random_factor() { return chance(0.8) ? rand_int(2, 8) : rand_int(9, 16); }

    void split(StageModel& m) {
        if (m.splits >= budget) return;
        const int i = rand_int(0, int(m.dims.size()) - 1);
        const LoopDim d = m.dims[size_t(i)];
        const int factor = random_factor();
        const TailStrategy tail = pick_tail(m, {&d}, factor);
        const std::string outer = fresh(m, d.base + "o"), inner = fresh(m, d.base + "i");
        declare(d.rvar, outer);
        declare(d.rvar, inner);
        on_stage(m, [&](auto& t) {
            t.split(handle(d), handle(d.rvar, outer), handle(d.rvar, inner), factor, tail);
        });
        code << stage_code(m.func, m.stage) << ".split(" << dim_code(d) << ", " << name_code(outer) << ", "
             << name_code(inner) << ", " << factor << ", " << tail_code(tail) << ");\n";
        model_split(m, i, outer, inner, factor, tail);
    }

    // Whether the RVar loops still run in an order that keeps the update's meaning.
    bool rvar_order_kept(const StageModel& m) const {
        if (!m.update || m.update->rvars_reorderable) return true;
        std::vector<std::string> order;
        for (const LoopDim& d : m.dims) {
            if (d.rvar) order.push_back(d.name);
        }
        return order == m.rvar_order;
    }

    // The model after reordering: the named loops, innermost first, take the places they had.
    static void model_reorder(StageModel& m, const std::vector<std::string>& names) {
        std::vector<size_t> positions;
        std::vector<LoopDim> moved;
        for (const std::string& n : names) {
            for (size_t i = 0; i < m.dims.size(); i++) {
                if (m.dims[i].name == n) {
                    positions.push_back(i);
                    moved.push_back(m.dims[i]);
                }
            }
        }
        std::sort(positions.begin(), positions.end());
        for (size_t k = 0; k < positions.size(); k++) m.dims[positions[k]] = moved[k];
    }

    static std::string name_list(const std::vector<std::string>& names) {
        std::string s;
        for (size_t i = 0; i < names.size(); i++) s += (i ? ", " : "") + name_code(names[i]);
        return s;
    }

    void reorder(StageModel& m) {
        if (m.dims.size() < 2) return;
        std::vector<std::string> names;
        for (const LoopDim& d : m.dims) {
            if (chance(0.7)) names.push_back(d.name);
        }
        if (names.size() < 2) return;
        std::shuffle(names.begin(), names.end(), rng);
        StageModel after = m;
        model_reorder(after, names);
        if (!rvar_order_kept(after)) return;
        std::vector<VarOrRVar> handles;
        for (const std::string& n : names) handles.push_back(handle(m.dims[size_t(dim_index(m, n))]));
        on_stage(m, [&](auto& t) { t.reorder(handles); });
        code << stage_code(m.func, m.stage) << ".reorder(" << name_list(names) << ");\n";
        m.dims = after.dims;
    }

    // Tiles loops i and j (random ones where not given), with GuardWithIf or a random legal tail
    // strategy; returns whether it did.
    bool tile(StageModel& m, int i = -1, int j = -1, bool guard = false) {
        if (m.dims.size() < 2 || m.splits + 2 > budget) return false;
        if (i < 0) {
            i = rand_int(0, int(m.dims.size()) - 2);
            j = chance(0.3) ? rand_int(i + 1, int(m.dims.size()) - 1) : i + 1;
        }
        const LoopDim a = m.dims[size_t(i)], c = m.dims[size_t(j)];
        const int fa = random_factor(), fc = random_factor();
        // tile() uses one tail strategy for both splits.
        TailStrategy tail = guard ? TailStrategy::GuardWithIf : pick_tail(m, {&a}, fa);
        if (!tail_legal(m, c, fc, tail)) tail = TailStrategy::GuardWithIf;
        const bool short_form = chance(0.5);
        const std::string ao = short_form ? a.name : fresh(m, a.base + "o"),
                          co = short_form ? c.name : fresh(m, c.base + "o");
        const std::string ai = fresh(m, a.base + "i"), ci = fresh(m, c.base + "i");
        StageModel after = m;
        model_split(after, i, ao, ai, fa, tail);
        model_split(after, dim_index(after, c.name), co, ci, fc, tail);
        model_reorder(after, {ai, ci, ao, co});
        if (!rvar_order_kept(after)) return false;
        for (const auto& [rvar, n] : std::vector<std::pair<bool, std::string>>{
                 {a.rvar, ao}, {c.rvar, co}, {a.rvar, ai}, {c.rvar, ci}})
            declare(rvar, n);
        if (short_form) {
            on_stage(m, [&](auto& t) {
                t.tile(handle(a), handle(c), handle(a.rvar, ai), handle(c.rvar, ci), fa, fc, tail);
            });
            code << stage_code(m.func, m.stage) << ".tile(" << name_code(a.name) << ", " << name_code(c.name)
                 << ", " << name_code(ai) << ", " << name_code(ci) << ", " << fa << ", " << fc << ", "
                 << tail_code(tail) << ");\n";
        } else {
            on_stage(m, [&](auto& t) {
                t.tile(handle(a), handle(c), handle(a.rvar, ao), handle(c.rvar, co), handle(a.rvar, ai),
                       handle(c.rvar, ci), fa, fc, tail);
            });
            code << stage_code(m.func, m.stage) << ".tile(" << name_code(a.name) << ", " << name_code(c.name)
                 << ", " << name_code(ao) << ", " << name_code(co) << ", " << name_code(ai) << ", "
                 << name_code(ci) << ", " << fa << ", " << fc << ", " << tail_code(tail) << ");\n";
        }
        m = after;
        return true;
    }

    // The pure loops of x and y tiled, and the tiles' loops sometimes fused into one: the nests that
    // Funcs are placed in at every level. Half the tiles guard their tails: the Funcs computed in a
    // guarded tile have regions that end at the output's edge or the tile's, whichever is first.
    void tile_pure_loops(StageModel& m) {
        const int x = dim_index(m, pure_var_code(m.func, 0)), y = dim_index(m, pure_var_code(m.func, 1));
        if (x < 0 || y < 0 || !tile(m, std::min(x, y), std::max(x, y), chance(0.5))) return;
        // The tile's loops are innermost first: the two inner ones, then the two outer ones.
        if (m.dims.size() >= 4 && chance(0.25) && m.splits < budget) fuse_at(m, int(m.dims.size()) - 2);
    }

    void fuse(StageModel& m) {
        if (m.dims.size() < 2 || m.splits >= budget) return;
        fuse_at(m, rand_int(0, int(m.dims.size()) - 2));
    }

    // Fuses loop i with the loop just outside it.
    void fuse_at(StageModel& m, int i) {
        const LoopDim in = m.dims[size_t(i)], out = m.dims[size_t(i) + 1];
        LoopDim fused = in;
        fused.rvar = in.rvar || out.rvar;
        fused.base = in.base + out.base;
        if (fused.rvar && fused.base[0] != 'r') fused.base = "r" + fused.base;
        fused.name = fresh(m, fused.base);
        fused.origins.insert(out.origins.begin(), out.origins.end());
        fused.extent =
            in.extent && out.extent ? std::optional<int64_t>(*in.extent * *out.extent) : std::nullopt;
        fused.constant = in.constant && out.constant;
        fused.repeat_free = out.repeat_free;
        declare(fused.rvar, fused.name);
        on_stage(m, [&](auto& t) { t.fuse(handle(in), handle(out), handle(fused.rvar, fused.name)); });
        code << stage_code(m.func, m.stage) << ".fuse(" << dim_code(in) << ", " << dim_code(out) << ", "
             << dim_code(fused) << ");\n";
        m.dims[size_t(i)] = fused;
        m.dims.erase(m.dims.begin() + i + 1);
        m.splits++;
        if (in.rvar || out.rvar) {
            // Adjacent loops, so the RVars among them are adjacent in rvar_order too.
            std::vector<std::string> order;
            bool placed = false;
            for (const std::string& n : m.rvar_order) {
                if (n == in.name || n == out.name) {
                    if (!placed) order.push_back(fused.name);
                    placed = true;
                } else {
                    order.push_back(n);
                }
            }
            m.rvar_order = order;
        }
    }

    void rename(StageModel& m) {
        const int i = rand_int(0, int(m.dims.size()) - 1);
        LoopDim& d = m.dims[size_t(i)];
        const std::string old = d.name;
        d.base += "n";
        d.name = fresh(m, d.base);
        declare(d.rvar, d.name);
        on_stage(m, [&](auto& t) { t.rename(handle(d.rvar, old), handle(d)); });
        code << stage_code(m.func, m.stage) << ".rename(" << name_code(old) << ", " << dim_code(d) << ");\n";
        std::replace(m.rvar_order.begin(), m.rvar_order.end(), old, d.name);
    }

    // Whether the loop may run in parallel or as vectors: a pure definition's loops always; an
    // update's when they iterate over its pure Vars, or over RVars whose iterations are independent.
    bool may_run_at_once(const StageModel& m, const LoopDim& d) const {
        if (!m.update) return true;
        for (int v : d.origins) {
            if (v >= 2 && !m.update->rvars_independent) return false;
        }
        return true;
    }

    // A split by a primitive with a factor (vectorize, unroll, parallel): the outer loop keeps the
    // name, the inner is called name + suffix.
    bool factor_split(StageModel& m, int i, const char* suffix, int factor, TailStrategy& tail) {
        const LoopDim d = m.dims[size_t(i)];
        const std::string inner = d.name + suffix;
        if (m.names.count(inner) || m.splits >= budget) return false;
        m.names.insert(inner);
        tail = pick_tail(m, {&d}, factor);
        model_split(m, i, d.name, inner, factor, tail);
        m.dims[size_t(i)].base = d.base + suffix;
        m.dims[size_t(i) + 1].base = d.base;
        return true;
    }

    void vectorize(StageModel& m) {
        if (m.dims.empty() || !may_run_at_once(m, m.dims[0])) return;
        const LoopDim d = m.dims[0];
        if (d.constant && d.extent && *d.extent <= 16 && chance(0.5)) {
            on_stage(m, [&](auto& t) { t.vectorize(handle(d)); });
            code << stage_code(m.func, m.stage) << ".vectorize(" << dim_code(d) << ");\n";
            m.dims[0].kind = LoopDim::Kind::Vectorized;
            return;
        }
        const int factor = rand_int(2, 16);
        StageModel after = m;
        TailStrategy tail;
        if (!factor_split(after, 0, "_vec", factor, tail)) return;
        declare(d.rvar, d.name + "_vec");
        on_stage(m, [&](auto& t) { t.vectorize(handle(d), factor, tail); });
        code << stage_code(m.func, m.stage) << ".vectorize(" << dim_code(d) << ", " << factor << ", "
             << tail_code(tail) << ");\n";
        after.dims[0].kind = LoopDim::Kind::Vectorized;
        m = after;
    }

    void unroll(StageModel& m) {
        std::vector<int> candidates;
        for (size_t i = 0; i < m.dims.size(); i++) {
            if (m.dims[i].kind == LoopDim::Kind::Serial) candidates.push_back(int(i));
        }
        if (candidates.empty()) return;
        const int i = candidates[size_t(rand_int(0, int(candidates.size()) - 1))];
        const LoopDim d = m.dims[size_t(i)];
        if (d.constant && d.extent && *d.extent <= 8 && chance(0.6)) {
            on_stage(m, [&](auto& t) { t.unroll(handle(d)); });
            code << stage_code(m.func, m.stage) << ".unroll(" << dim_code(d) << ");\n";
            m.dims[size_t(i)].kind = LoopDim::Kind::Unrolled;
            return;
        }
        const int factor = rand_int(2, 4);
        StageModel after = m;
        TailStrategy tail;
        if (!factor_split(after, i, "_unroll", factor, tail)) return;
        declare(d.rvar, d.name + "_unroll");
        on_stage(m, [&](auto& t) { t.unroll(handle(d), factor, tail); });
        code << stage_code(m.func, m.stage) << ".unroll(" << dim_code(d) << ", " << factor << ", "
             << tail_code(tail) << ");\n";
        after.dims[size_t(i)].kind = LoopDim::Kind::Unrolled;
        m = after;
    }

    void parallel(StageModel& m) {
        std::vector<int> candidates;
        for (size_t i = 0; i < m.dims.size(); i++) {
            if (m.dims[i].kind == LoopDim::Kind::Serial && may_run_at_once(m, m.dims[i]))
                candidates.push_back(int(i));
        }
        if (candidates.empty()) return;
        // Mostly an outer loop.
        make_parallel(
            m, chance(0.6) ? candidates.back() : candidates[size_t(rand_int(0, int(candidates.size()) - 1))]);
    }

    // Makes loop i parallel, or splits it into parallel tasks.
    void make_parallel(StageModel& m, int i) {
        const LoopDim d = m.dims[size_t(i)];
        if (d.kind != LoopDim::Kind::Serial || !may_run_at_once(m, d)) return;
        if (chance(0.6)) {
            on_stage(m, [&](auto& t) { t.parallel(handle(d)); });
            code << stage_code(m.func, m.stage) << ".parallel(" << dim_code(d) << ");\n";
            m.dims[size_t(i)].kind = LoopDim::Kind::Parallel;
            return;
        }
        const int task = rand_int(2, 8);
        StageModel after = m;
        TailStrategy tail;
        if (!factor_split(after, i, "_task", task, tail)) return;
        declare(d.rvar, d.name + "_task");
        on_stage(m, [&](auto& t) { t.parallel(handle(d), task, tail); });
        code << stage_code(m.func, m.stage) << ".parallel(" << dim_code(d) << ", " << task << ", "
             << tail_code(tail) << ");\n";
        after.dims[size_t(i) + 1].kind = LoopDim::Kind::Parallel;
        m = after;
    }

    void schedule_loops(StageModel& m, int split_budget) {
        budget = split_budget;
        if (m.dims.empty()) return;
        const int steps = rand_int(0, o.max_loop_steps);
        if (o.tile_pure_loops && m.stage == 0) tile_pure_loops(m);
        for (int s = 0; s < steps; s++) {
            switch (rand_int(0, 9)) {
                case 0:
                case 1:
                case 2:
                case 3: split(m); break;
                case 4:
                case 5: tile(m); break;
                case 6:
                case 7: fuse(m); break;
                default: rename(m); break;
            }
        }
        const double q = o.loop_primitive_probability;
        if (chance(0.35 * q)) reorder(m);
        if (chance(0.4 * q)) vectorize(m);
        if (chance(0.3 * q)) unroll(m);
        if (o.tile_pure_loops) {
            // Tiled nests run their outermost loop in parallel, or stay serial to be partitioned.
            if (chance(0.3)) make_parallel(m, int(m.dims.size()) - 1);
        } else if (chance(0.4 * q)) {
            parallel(m);
        }
    }

    // ------------------------------------------------------------------ placement

    // The non-inlined Funcs and stages whose definitions read f, looking through inlined Funcs.
    std::vector<std::pair<int, int>> uses_of(int f) const {
        std::vector<std::pair<int, int>> uses;
        for (int g = f + 1; g <= p.output(); g++) {
            if (!scheduled(g)) continue;
            std::vector<std::set<int>> reads = stage_reads(p, g);
            for (size_t k = 0; k < reads.size(); k++) {
                if (reads_through_inlined(reads[k], f)) uses.emplace_back(g, int(k));
            }
        }
        return uses;
    }

    bool reads_through_inlined(const std::set<int>& sources, int f) const {
        for (int s : sources) {
            if (s == f) return true;
            if (s >= 0 && inlined.at(s) && reads_through_inlined(stage_reads(p, s)[0], f)) return true;
        }
        return false;
    }

    std::vector<LoopRef> loops_of(int g, int k) const {
        std::vector<LoopRef> path = container.count(g) ? container.at(g) : std::vector<LoopRef>{};
        const StageModel& m = models.at(g)[size_t(k)];
        for (auto it = m.dims.rbegin(); it != m.dims.rend(); ++it)
            path.push_back({g, k, it->name, it->rvar, it->kind});
        return path;
    }

    // Places f (compute and store levels) and returns how many splits and fuses its stages may make.
    int place(int f) {
        std::vector<std::pair<int, int>> uses = uses_of(f);
        std::vector<LoopRef> common;
        for (size_t u = 0; u < uses.size(); u++) {
            std::vector<LoopRef> path = loops_of(uses[u].first, uses[u].second);
            if (u == 0) {
                common = path;
            } else {
                size_t n = 0;
                while (n < common.size() && n < path.size() && common[n] == path[n]) n++;
                common.resize(n);
            }
        }
        for (size_t i = 0; i < common.size(); i++) {
            if (common[i].kind == LoopDim::Kind::Vectorized ||
                nest_cost.at(common[i].func) >= o.max_nest_cost) {
                common.resize(i);
                break;
            }
        }
        const std::string name = func_code(f);
        if (!o.placements || common.empty() || chance(o.root_probability)) {
            at_root[f] = true;
            container[f] = {};
            if (chance(0.7) || !has_updates(f)) {
                func(f).compute_root();
                code << name << ".compute_root();\n";
            }
            return o.max_root_splits;
        }
        const size_t depth = size_t(rand_int(1, int(common.size())));
        container[f] = std::vector<LoopRef>(common.begin(), common.begin() + long(depth));
        const LoopRef& at = common[depth - 1];
        const bool explicit_stage = chance(0.3);
        func(f).compute_at(level(at, explicit_stage));
        code << name << ".compute_at(" << level_code(at, explicit_stage) << ");\n";
        // Storage at the same loop or outside it; a Func with updates computed by parallel
        // iterations needs storage of its own in each.
        size_t store = chance(0.5) ? depth : size_t(rand_int(0, int(depth)));
        if (has_updates(f)) {
            for (size_t i = store; i < depth; i++) {
                if (common[i].kind == LoopDim::Kind::Parallel) store = i + 1;
            }
        }
        if (store < depth || chance(0.3)) {
            if (store == 0) {
                func(f).store_root();
                code << name << ".store_root();\n";
            } else {
                func(f).store_at(level(common[store - 1], explicit_stage));
                code << name << ".store_at(" << level_code(common[store - 1], explicit_stage) << ");\n";
            }
        }
        return o.max_nest_cost - nest_cost.at(at.func);
    }

    int last_stage(int g) const { return g < 0 ? 0 : int(p.stages[size_t(g)].updates.size()); }

    // A loop of the last stage may be named without the stage: compute_at(g, x).
    LoopLevel level(const LoopRef& at, bool explicit_stage) const {
        VarOrRVar v = handle(at.rvar, at.name);
        if (at.stage == last_stage(at.func) && !explicit_stage) return LoopLevel(func(at.func), v);
        return LoopLevel(func(at.func), v, at.stage);
    }

    std::string level_code(const LoopRef& at, bool explicit_stage) const {
        if (at.stage == last_stage(at.func) && !explicit_stage)
            return func_code(at.func) + ", " + name_code(at.name);
        return "LoopLevel(" + func_code(at.func) + ", " + name_code(at.name) + ", " +
               std::to_string(at.stage) + ")";
    }

    // ------------------------------------------------------------------ bounds and storage

    // Whether Tessera computes exactly the region of f that the pipeline needs: f is the output, or
    // every consumer is the output, inlined, or computed at the root, needs exactly its own region and
    // computes no more than it needs.
    bool exact_region(int f, std::map<int, bool>& memo) const {
        if (f == p.output()) return true;
        if (auto it = memo.find(f); it != memo.end()) return it->second;
        bool exact = true;
        for (int g = f + 1; g <= p.output() && exact; g++) {
            if (!used[size_t(g) + 1]) continue;
            bool reads = false;
            for (const auto& r : stage_reads(p, g)) reads = reads || r.count(f);
            if (!reads) continue;
            const bool placed_exactly =
                g == p.output() || inlined.at(g) || (at_root.count(g) && at_root.at(g));
            exact = placed_exactly && exact_region(g, memo) && computes_only_needed(g);
        }
        memo[f] = exact;
        return exact;
    }

    bool computes_only_needed(int g) const {
        if (g == p.output() || inlined.at(g)) return true;
        if (widened.count(g) && widened.at(g)) return false;
        for (const StageModel& m : models.at(g)) {
            if (!m.only_guard) return false;
        }
        return true;
    }

    void bound_intermediates() {
        std::map<int, bool> memo;
        for (int f = p.output() - 1; f >= -1; f--) {
            if (!scheduled(f) || !at_root.count(f) || !at_root.at(f) || !computes_only_needed(f)) continue;
            if (!exact_region(f, memo) || !chance(0.35)) continue;
            const Box2& needed = regions[size_t(f) + 1].required;
            for (int d = 0; d < 2; d++) {
                if (!chance(0.6)) continue;
                int64_t min = needed.dim[d].min, extent = needed.dim[d].extent();
                if (chance(0.4)) {
                    const int before = rand_int(0, 3), after = rand_int(0, 3);
                    min -= before;
                    extent += before + after;
                    if (before + after > 0) widened[f] = true;
                }
                func(f).bound(pure_var(f, d), int(min), int(extent));
                code << func_code(f) << ".bound(" << pure_var_code(f, d) << ", " << min << ", " << extent
                     << ");\n";
            }
        }
    }

    static bool reads_source(const Node& n, int source) {
        if (n.op == Node::Op::Read && n.source == source) return true;
        return std::any_of(n.args.begin(), n.args.end(),
                           [&](const Node& a) { return reads_source(a, source); });
    }

    // Whether c's definitions call s (not through a Func inlined in between).
    bool calls(int c, int s) const {
        const StageDef& d = p.stages[size_t(c)];
        if (reads_source(d.value, s)) return true;
        return std::any_of(d.updates.begin(), d.updates.end(),
                           [&](const UpdateDef& u) { return reads_source(u.value, s); });
    }

    // A loop of f's pure definition that a Func read only there may be computed at: any but the
    // vectorized one (innermost, where it is).
    std::optional<std::string> placement_loop(int f) {
        std::vector<std::string> loops;
        for (const LoopDim& d : models.at(f).front().dims) {
            if (d.kind != LoopDim::Kind::Vectorized) loops.push_back(d.name);
        }
        if (loops.empty()) return std::nullopt;
        return loops[size_t(rand_int(0, int(loops.size()) - 1))];
    }

    // A copy of a Func (or of the input) for one Func that calls it, at the root or inside that
    // Func's loops (when it has no updates, whose loops could not all hold it), perhaps vectorized.
    // The source is at the root (or is the input, inlined): the copy moves the uses of it, and of
    // what an inlined source reads, which placements inside the consumer's loops would no longer
    // enclose.
    void stage_through_cache_read() {
        std::vector<std::pair<int, int>> candidates;  // (source, consumer)
        for (int c = 0; c <= p.output(); c++) {
            if (!scheduled(c)) continue;
            for (int s = -1; s < c; s++) {
                const bool anywhere = (s < 0 && !scheduled(s)) || (at_root.count(s) && at_root.at(s));
                if (anywhere && calls(c, s)) candidates.emplace_back(s, c);
            }
        }
        if (candidates.empty()) return;
        const auto [s, c] = candidates[size_t(rand_int(0, int(candidates.size()) - 1))];
        Func copy = cache_read(func(s), {func(c)});
        code << "Func copy = cache_read(" << func_code(s) << ", {" << func_code(c) << "});\n";
        std::optional<std::string> at = has_updates(c) || chance(0.3) ? std::nullopt : placement_loop(c);
        if (at) {
            copy.compute_at(func(c), Var(*at));
            code << "copy.compute_at(" << func_code(c) << ", Var(\"" << *at << "\"));\n";
        } else {
            copy.compute_root();
            code << "copy.compute_root();\n";
        }
        if (chance(0.5)) {
            copy.vectorize(copy.args()[0], 8, TailStrategy::GuardWithIf);
            code << "copy.vectorize(copy.args()[0], 8, TailStrategy::GuardWithIf);\n";
        }
    }

    // Whether some Func is computed or stored inside f's loops.
    bool holds_others(int f) const {
        for (const auto& [g, loops] : container) {
            for (const LoopRef& l : loops) {
                if (l.func == f) return true;
            }
        }
        return false;
    }

    // A Func other than the output computed into local storage (on the heap, or where the compiler
    // chooses), inside the loops of the copy out, where the Funcs it reads are ready (at the root,
    // the local Func would read them outside the loops they are computed in). Not one that others
    // are computed or stored in: its loops would no longer enclose their uses, which move to the
    // local Func.
    void stage_through_cache_write() {
        std::vector<int> candidates;
        for (int f = 0; f < p.output(); f++) {
            // The local Func adds a level to the nest of f's placement (see max_nest_cost).
            const bool shallow = nest_cost.count(f) && nest_cost.at(f) < o.max_nest_cost;
            if (scheduled(f) && !holds_others(f) && shallow) candidates.push_back(f);
        }
        if (candidates.empty()) return;
        const int f = candidates[size_t(rand_int(0, int(candidates.size()) - 1))];
        const std::optional<std::string> at = placement_loop(f);
        if (!at) return;
        if (at_root.count(f) && at_root.at(f)) {
            // At the root by default only while it has updates; the copy out has none.
            func(f).compute_root();
            code << func_code(f) << ".compute_root();\n";
        }
        const bool heap = chance(0.5);
        Func local = cache_write(func(f), heap ? MemoryType::Heap : MemoryType::Auto);
        code << "Func local = cache_write(" << func_code(f) << ", MemoryType::" << (heap ? "Heap" : "Auto")
             << ");\n";
        local.compute_at(func(f), Var(*at));
        code << "local.compute_at(" << func_code(f) << ", Var(\"" << *at << "\"));\n";
    }

    void store_in_heap(int f) {
        func(f).store_in(MemoryType::Heap);
        code << func_code(f) << ".store_in(MemoryType::Heap);\n";
    }

    void reorder_storage(int f) {
        func(f).reorder_storage(pure_var(f, 1), pure_var(f, 0));
        code << func_code(f) << ".reorder_storage(" << pure_var_code(f, 1) << ", " << pure_var_code(f, 0)
             << ");\n";
    }
};

}  // namespace random_schedule
