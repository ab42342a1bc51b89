#pragma once
// Measuring one candidate schedule, as a worker process does it: the plan applied to the
// pipeline's Funcs, compiled, run once to warm up and to check its output against the reference
// (the first correct output), then timed over repetitions.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedule/auto/schedule_plan.h"
#include "tessera/buffer.h"
#include "tessera/target.h"

namespace tessera::tune {

enum class Outcome { Ok, CompileError, RunError, Wrong, Crashed, TimedOut };
const char* outcome_name(Outcome o);

struct Measurement {
    Outcome outcome = Outcome::Crashed;
    std::vector<double> times_ms;
    double median_ms = 0;
    std::string message;  // why it failed
};

struct Candidate {
    int trial = 0;
    autoschedule::SchedulePlan plan;
};

// What every measurement of one search shares.
struct MeasureSetup {
    std::vector<std::shared_ptr<lang::FunctionContents>> outputs;
    Target target;
    // Per output: its estimated region, as (min, extent) per dimension.
    std::vector<std::vector<std::pair<int, int>>> output_regions;
    int repetitions = 5;
    double compile_timeout_seconds = 120;
    double run_timeout_seconds = 20;
    std::function<void(int trial)> worker_hook;
    // The first correct output, each output's bytes; empty until a candidate gave it.
    std::vector<std::vector<uint8_t>> reference;
};

// The compiled candidate, ready to be timed (in the worker process).
class CompiledCandidate {
public:
    // Applies the plan and compiles; nullopt with the message where that fails.
    static std::optional<CompiledCandidate> compile(const MeasureSetup& setup, const Candidate& c,
                                                    std::string* why);
    // Runs, checks against the setup's reference (when it has one) and times. `output`, when
    // given, receives the bytes of the outputs.
    Measurement run(const MeasureSetup& setup, std::vector<std::vector<uint8_t>>* output) const;

private:
    struct State;
    std::shared_ptr<State> state_;
};

// Whether two outputs agree: integers exactly, floats within a relative 1e-4 (schedules that
// reassociate a float reduction change the last bits).
bool outputs_agree(const std::vector<std::vector<uint8_t>>& a, const std::vector<std::vector<uint8_t>>& b,
                   const std::vector<Type>& types, std::string* why);

}  // namespace tessera::tune
