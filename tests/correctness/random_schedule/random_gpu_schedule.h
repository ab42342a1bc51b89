#pragma once
// Random GPU schedules of a random pipeline: the output tiled onto blocks and threads (tile sizes
// that rarely divide the region, tails of every strategy), and each other stage inlined, computed
// at the root as kernels of its own, staged in shared memory per block (its threads in tiles of
// their own, so that thread loops sit inside serial loops of the block), computed per thread, or
// staged in shared memory from inside each thread's code by all the block's threads together.
// Updates run on threads where their loops allow it, else as one thread. Returns the schedule as
// C++, for the report of a failing case.

#include <algorithm>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline_builder.h"
#include "random_pipeline.h"

namespace random_schedule {

class GPUScheduleGenerator {
public:
    GPUScheduleGenerator(std::mt19937& rng, const PipelineDef& p, BuiltPipeline& b) : rng(rng), p(p), b(b) {}

    std::string run() {
        const int out = p.output();
        tile_output(out);
        // Stages computed at the output's tile loops sit in its last stage's loops: with updates,
        // those are the updates' own.
        level[size_t(out)] = p.stages[size_t(out)].updates.empty() ? Level::Thread : Level::Root;
        for (int i = out - 1; i >= 0; i--) place(i);
        return code.str();
    }

private:
    // Where a stage is computed, from the outside in; a stage may sit no deeper than its readers.
    enum class Level { Root, Block, Thread };
    std::mt19937& rng;
    const PipelineDef& p;
    BuiltPipeline& b;
    std::ostringstream code;
    std::vector<Level> level = std::vector<Level>(p.stages.size(), Level::Root);
    std::vector<bool> inlined = std::vector<bool>(p.stages.size(), false);
    Var xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, tx{"tx"}, ty{"ty"};
    // The output's threads per block, and the most that a stage staged per block has asked for:
    // a stage the block's threads compute together runs in the output's thread loops, which must
    // then be the block's largest, as every thread must reach it.
    int output_threads[2] = {1, 1}, block_threads[2] = {1, 1};
    bool cooperative_placed = false;
    // Whether a stage per block has updates on threads, as many as its region is tall.
    bool block_updates_on_threads = false;

    int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
    bool chance(double probability) {
        return std::uniform_real_distribution<double>(0, 1)(rng) < probability;
    }
    std::string name(int i) const { return b.stages[size_t(i)].name(); }

    TailStrategy random_tail(bool round_up_allowed) {
        const int k = between(0, round_up_allowed ? 3 : 2);
        return k == 0   ? TailStrategy::GuardWithIf
               : k == 1 ? TailStrategy::ShiftInwards
               : k == 2 ? TailStrategy::Auto
                        : TailStrategy::RoundUp;
    }
    static const char* tail_name(TailStrategy t) {
        switch (t) {
            case TailStrategy::GuardWithIf: return "TailStrategy::GuardWithIf";
            case TailStrategy::ShiftInwards: return "TailStrategy::ShiftInwards";
            case TailStrategy::RoundUp: return "TailStrategy::RoundUp";
            default: return "TailStrategy::Auto";
        }
    }

    // The deepest level a stage may take: that of its shallowest reader (an inlined reader passes on
    // its own readers' level).
    Level deepest_allowed(int i) const {
        Level deepest = Level::Thread;
        for (int j = i + 1; j <= p.output(); j++) {
            for (const auto& reads : stage_reads(p, j)) {
                if (reads.count(i)) deepest = std::min(deepest, level[size_t(j)]);
            }
        }
        return deepest;
    }

    // Whether every read of stage i is at its own pure Vars plus constant offsets (x in dimension
    // 0, y in 1), and each of its updates writes at its pure Vars: then the region a tile of the
    // output needs of it has a constant size, as storage inside a kernel must. (A read at a fixed
    // point or over an RDom, or an update of fixed points, joins the moving tile to a fixed place;
    // a transposed read, at y in dimension 0, spans a region that grows with the distance
    // between x and y.)
    bool read_locally(int i) const {
        for (const UpdateDef& u : p.stages[size_t(i)].updates) {
            for (size_t d = 0; d < u.lhs.size(); d++)
                if (!u.lhs[d].is_pure_var(int(d))) return false;
        }
        for (int j = i + 1; j <= p.output(); j++) {
            const StageDef& s = p.stages[size_t(j)];
            if (!reads_locally(s.value, i)) return false;
            for (const UpdateDef& u : s.updates)
                if (!reads_locally(u.value, i)) return false;
        }
        return true;
    }
    static bool reads_locally(const Node& n, int i) {
        if (n.op == Node::Op::Read && n.source == i) {
            for (size_t d = 0; d < n.coords.size(); d++)
                if (n.coords[d].var != int(d) || n.coords[d].rvar >= 0) return false;
        }
        for (const Node& a : n.args)
            if (!reads_locally(a, i)) return false;
        return true;
    }

    void tile_output(int out) {
        Func f = b.stages[size_t(out)];
        const TailStrategy tail = random_tail(false);
        // Only GuardWithIf keeps a tile larger than the output inside it; the others shift or round
        // the tile past the output's edge.
        const bool guarded = tail == TailStrategy::GuardWithIf;
        const int sx = between(1, guarded ? 16 : std::min(16, p.output_extent[0]));
        const int sy = between(1, guarded ? 8 : std::min(8, p.output_extent[1]));
        f.gpu_tile(b.x, b.y, xo, yo, xi, yi, sx, sy, tail);
        output_threads[0] = block_threads[0] = sx;
        output_threads[1] = block_threads[1] = sy;
        code << name(out) << ".gpu_tile(x, y, xo, yo, xi, yi, " << sx << ", " << sy << ", " << tail_name(tail)
             << ");\n";
        schedule_updates(out, /*in_kernel=*/false);
    }

    void place(int i) {
        const StageDef& s = p.stages[size_t(i)];
        const Level deepest = read_locally(i) ? deepest_allowed(i) : Level::Root;
        const int choice = between(0, 4);
        if (choice == 0 && s.updates.empty()) {
            inlined[size_t(i)] = true;
            level[size_t(i)] = deepest;  // its readers read what it reads
            return;
        }
        Func f = b.stages[size_t(i)];
        const Func output = b.output();
        const bool threads_fit = block_threads[0] <= output_threads[0] &&
                                 block_threads[1] <= output_threads[1] && !block_updates_on_threads;
        if (choice == 4 && s.updates.empty() && deepest >= Level::Thread && threads_fit) {
            // Computed at the output's thread loop, by all the threads of the block, in tiles no
            // larger than the block; what it reads must then be computed per block at the most.
            level[size_t(i)] = Level::Block;
            cooperative_placed = true;
            f.compute_at(output, xi);
            code << name(i) << ".compute_at(" << output.name() << ", xi)";
            split_onto_threads(f, between(1, output_threads[0]), between(1, output_threads[1]));
        } else if (choice == 1 && deepest >= Level::Block && !(cooperative_placed && !s.updates.empty())) {
            level[size_t(i)] = Level::Block;
            f.compute_at(output, xo);
            code << name(i) << ".compute_at(" << output.name() << ", xo)";
            // Its threads in tiles of their own: thread loops inside serial loops of the block (no
            // more of them than the output has, once a stage is computed by them together).
            const int sx = between(1, cooperative_placed ? output_threads[0] : 8);
            const int sy = between(1, cooperative_placed ? output_threads[1] : 8);
            block_threads[0] = std::max(block_threads[0], sx);
            block_threads[1] = std::max(block_threads[1], sy);
            split_onto_threads(f, sx, sy);
            schedule_updates(i, /*in_kernel=*/true);
            block_updates_on_threads = block_updates_on_threads || !s.updates.empty();
        } else if (choice == 2 && deepest >= Level::Thread) {
            level[size_t(i)] = Level::Thread;
            f.compute_at(output, xi);
            code << name(i) << ".compute_at(" << output.name() << ", xi);\n";
        } else {
            level[size_t(i)] = Level::Root;
            const int sx = between(1, 16), sy = between(1, 8);
            const TailStrategy tail = random_tail(true);
            f.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, sx, sy, tail);
            code << name(i) << ".compute_root().gpu_tile(x, y, xo, yo, xi, yi, " << sx << ", " << sy << ", "
                 << tail_name(tail) << ");\n";
            schedule_updates(i, /*in_kernel=*/false);
        }
    }

    // f's loops split into tiles of sx x sy threads, the thread loops inside serial ones.
    void split_onto_threads(Func f, int sx, int sy) {
        // Not ShiftInwards (nor Auto, which may mean it): the region a shifted tile covers is one
        // whose constant bound lowering cannot yet find.
        const TailStrategy tail = chance(0.5) ? TailStrategy::GuardWithIf : TailStrategy::RoundUp;
        f.split(b.x, b.x, tx, sx, tail)
            .split(b.y, b.y, ty, sy, tail)
            .reorder(tx, ty, b.x, b.y)
            .gpu_threads(tx, ty);
        code << ".split(x, x, tx, " << sx << ", " << tail_name(tail) << ").split(y, y, ty, " << sy << ", "
             << tail_name(tail) << ").reorder(tx, ty, x, y).gpu_threads(tx, ty);\n";
    }

    // Each update on threads over its pure Vars where the library accepts it (no iteration reads
    // another's point), else as one thread; inside a kernel, threads or the block's thread zero.
    void schedule_updates(int i, bool in_kernel) {
        const size_t updates = p.stages[size_t(i)].updates.size();
        for (size_t k = 0; k < updates; k++) {
            Stage u = b.stages[size_t(i)].update(int(k));
            const std::string who = name(i) + ".update(" + std::to_string(k) + ")";
            try {
                if (in_kernel) {
                    u.gpu_threads(b.y);
                    code << who << ".gpu_threads(y);\n";
                } else {
                    const int sy = between(1, 8);
                    u.gpu_tile(b.y, yo, yi, sy, TailStrategy::GuardWithIf);
                    code << who << ".gpu_tile(y, yo, yi, " << sy << ", TailStrategy::GuardWithIf);\n";
                }
            } catch (const CompileError&) {
                // y is not a pure Var of this update, or its iterations over y depend on each other.
                if (!in_kernel) {
                    u.gpu_single_thread();
                    code << who << ".gpu_single_thread();\n";
                }
            }
        }
    }
};

}  // namespace random_schedule
