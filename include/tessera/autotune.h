#pragma once
// Autotuning: when a user can spend time on the machine, tessera::autotune searches the schedules
// of a pipeline (the automatic scheduler's choice and its variations), measures the most promising
// ones, and writes every measurement to a records file, one JSON object per line.
// Pipeline::apply_tuning_records then applies the fastest for the same pipeline and target, with
// no search.
//
// Measurements run in worker processes, so that a schedule that crashes, hangs or computes wrong
// values loses its trial and nothing else. The pipeline's inputs are the buffers bound to its
// ImageParams, or, where none is bound, random buffers of the ImageParams' estimated sizes; the
// outputs have their estimated sizes (Func::set_estimates).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/auto_schedule.h"
#include "tessera/pipeline.h"
#include "tessera/target.h"

namespace tessera {

// Where candidates are compiled and measured. The default measures in worker processes forked on
// this machine; tessera/autotune_mpi.h spreads them over the ranks of an MPI job.
class TuneRunner;

struct TuneOptions {
    int trials = 200;                // schedules measured, at most
    double time_budget_seconds = 0;  // stop the search after this long (0: no limit)
    std::string records_file;        // appended to, one record per measurement ("": none)
    std::string curve_file;          // the best time against trials, as CSV ("": none)
    Target target;                   // default: the host
    MachineParams machine_params = MachineParams::host();
    uint64_t seed = 0;
    // How proposals are chosen: evolution ranked by the cost model (retrained on every batch of
    // measurements), evolution without a model, or random points of the space.
    enum class Search { ModelGuided, Genetic, Random };
    Search search = Search::ModelGuided;
    int batch_size = 8;  // measured per round of the search
    // The first candidate is auto_schedule's choice, so that tuning never ends slower than the
    // automatic scheduler. Off, every search starts from random points of the space (to compare
    // searches with each other, as TVM's experiments do).
    bool start_from_auto_schedule = true;
    int parallel_compiles = 0;  // worker processes compiling at once (0: the host's cores)
    double compile_timeout_seconds = 120;
    double run_timeout_seconds = 20;  // for the repetitions of one candidate together
    int repetitions = 5;              // timed runs after one warm-up; their median is the time
    bool progress = true;             // a progress line on stderr
    // Called in the worker process, with the trial's number, before it compiles its candidate:
    // tests make workers crash or hang through it.
    std::function<void(int trial)> worker_hook;
    std::shared_ptr<TuneRunner> runner;  // null: worker processes on this machine
};

struct TuneResult {
    int trials = 0;  // candidates measured
    int failed = 0;  // of which crashed, timed out, failed to compile or gave wrong values
    // The chosen candidate's median time over all its runs: the fastest few by their first
    // measurement are measured again, and the fastest by both together is chosen.
    double best_ms = 0;
    int best_trial = -1;
    double seconds = 0;                       // the search's wall time
    std::string schedule_source;              // the fastest schedule, as auto_schedule prints one
    std::vector<double> best_ms_after_trial;  // the curve: best time after each trial
};

// Tunes the pipeline and applies the fastest schedule found to it.
TuneResult autotune(Pipeline& pipeline, const TuneOptions& options = {});

// The text that identifies a pipeline in records: a hash of its definitions (Funcs named by their
// place in realization order), types, estimates and the schedules the user wrote.
std::string pipeline_signature(const Pipeline& pipeline);

}  // namespace tessera
