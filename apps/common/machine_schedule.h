#pragma once
// The benchmarks' rows scheduled by the machine rather than by hand: a pipeline whose outputs and
// inputs carry estimates, scheduled by Pipeline::auto_schedule, or given the fastest schedule of a
// tuning records file, tuned first by tessera::autotune where the file has no record of it.

#include <stdexcept>
#include <string>

#include <tessera/tessera.h>

namespace tessera_apps {

struct MachineScheduling {
    int threads = 1;      // the MachineParams' parallelism
    std::string records;  // the tuning records file of the tuned rows
    int tune_trials = 0;  // trials to tune a pipeline the file has no record of (0: refuse)
};

enum class MachineScheduler { Automatic, Tuned };

inline void machine_schedule(tessera::Pipeline& pipeline, MachineScheduler scheduler,
                             const MachineScheduling& how) {
    const tessera::MachineParams machine(how.threads, tessera::MachineParams::host().last_level_cache_size,
                                         40);
    if (scheduler == MachineScheduler::Automatic) {
        pipeline.auto_schedule("Tessera", tessera::get_jit_target_from_environment(), machine);
        return;
    }
    if (pipeline.apply_tuning_records(how.records)) return;
    if (how.tune_trials == 0)
        throw std::runtime_error(how.records +
                                 " has no record of this pipeline; give --tune_trials=N to tune it");
    tessera::TuneOptions tuning;
    tuning.trials = how.tune_trials;
    tuning.records_file = how.records;
    tuning.machine_params = machine;
    tessera::autotune(pipeline, tuning);
}

}  // namespace tessera_apps
