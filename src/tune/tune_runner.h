#pragma once
// Where the tuner's candidates are compiled and measured: worker processes forked on this machine
// (local_runner.cpp), or the ranks of an MPI job (tessera_mpi).

#include <memory>
#include <vector>

#include "tessera/autotune.h"
#include "tune/measurement.h"

namespace tessera {

class TuneRunner {
public:
    virtual ~TuneRunner() = default;
    // The measurements of the batch, in its order. Where setup.reference is empty, the first
    // correct output becomes the reference, and the batch's other outputs are checked against it.
    // `outputs`, when given, receives the outputs of the candidates measured while the reference
    // was still empty.
    virtual std::vector<tune::Measurement> measure(
        tune::MeasureSetup& setup, const std::vector<tune::Candidate>& batch,
        std::vector<std::vector<std::vector<uint8_t>>>* outputs = nullptr) = 0;
};

namespace tune {

// Worker processes forked here, `parallel_compiles` compiling at once; measured one at a time.
std::shared_ptr<TuneRunner> local_runner(int parallel_compiles);

// What a worker sends back: its measurement, and its outputs' bytes when asked for them. The MPI
// runner sends the same bytes between ranks.
std::vector<uint8_t> encode_result(const Measurement& m, const std::vector<std::vector<uint8_t>>& outputs);
bool decode_result(const std::vector<uint8_t>& bytes, Measurement* m,
                   std::vector<std::vector<uint8_t>>* outputs);

// Where the batch had no reference: the first correct output becomes it, and the other correct
// ones that disagree with it are marked wrong.
void settle_reference(MeasureSetup& setup, std::vector<Measurement>& results,
                      std::vector<std::vector<std::vector<uint8_t>>>& outputs);

// autotune, also giving the fastest plan as the records keep it (for the MPI ranks to apply).
TuneResult autotune_with_plan(Pipeline& pipeline, const TuneOptions& options, std::string* best_plan_json);

}  // namespace tune
}  // namespace tessera
