#pragma once
// Automatic scheduling, in Halide 14's spelling: Pipeline::auto_schedule(name, target, params)
// chooses a schedule for every Func of a pipeline from the estimates of its outputs' sizes
// (Func::set_estimate, ImageParam::set_estimates, Param::set_estimate), applies it, and returns it
// as C++ source that a user can paste in place of the call.

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/target.h"

namespace tessera {

// What an automatic scheduler assumes of the machine: the number of cores to keep busy, the size
// of the last-level cache in bytes, and the cost of a load from that cache against an arithmetic
// operation.
struct MachineParams {
    int parallelism = 16;
    uint64_t last_level_cache_size = 16 * 1024 * 1024;
    float balance = 40;

    MachineParams(int parallelism, uint64_t last_level_cache_size, float balance)
        : parallelism(parallelism), last_level_cache_size(last_level_cache_size), balance(balance) {}
    // "parallelism,last_level_cache_size,balance", as to_string() writes it.
    explicit MachineParams(const std::string& text);
    // Halide's defaults: 16 cores, a 16 MiB cache, a balance of 40.
    static MachineParams generic();
    // This machine: its hardware threads and its last-level cache, and a balance of 40.
    static MachineParams host();
    std::string to_string() const;
};

// What an automatic scheduler made: its name, the target and machine it scheduled for, and the
// schedule as C++ source (one block of statements per Func).
struct AutoSchedulerResults {
    std::string scheduler_name;
    Target target;
    std::string machine_params_string;
    std::string schedule_source;
    std::vector<uint8_t> featurization;
};

}  // namespace tessera
