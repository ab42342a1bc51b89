// autotune_mpi: the search on rank 0 with a runner that sends each candidate's plan (as the JSON of
// the records) to a worker rank, which measures it in a forked worker and sends back the
// measurement and the output; rank 0 checks outputs against the reference itself.

#include "tessera/autotune_mpi.h"

#include <mpi.h>

#include <cstring>
#include <map>

#include "schedule/auto/pipeline_analysis.h"
#include "tune/plan_json.h"
#include "tune/tune_runner.h"
#include "tune/tuning_session.h"
#include "util/error_stream.h"

namespace tessera {
namespace {

enum Tag { job_tag = 1, result_tag = 2, stop_tag = 3 };

std::vector<uint8_t> receive(int source, int tag, MPI_Status* status) {
    MPI_Status probed;
    MPI_Probe(source, tag, MPI_COMM_WORLD, &probed);
    int count = 0;
    MPI_Get_count(&probed, MPI_BYTE, &count);
    std::vector<uint8_t> bytes(static_cast<size_t>(count));
    MPI_Recv(bytes.data(), count, MPI_BYTE, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD, status);
    return bytes;
}

void send(const std::vector<uint8_t>& bytes, int destination, int tag) {
    MPI_Send(bytes.data(), int(bytes.size()), MPI_BYTE, destination, tag, MPI_COMM_WORLD);
}

std::vector<uint8_t> with_trial(int64_t trial, const std::string& text) {
    std::vector<uint8_t> bytes(8 + text.size());
    std::memcpy(bytes.data(), &trial, 8);
    std::memcpy(bytes.data() + 8, text.data(), text.size());
    return bytes;
}

// On rank 0: candidates dealt to the worker ranks in turn; each measures its share in order.
class MpiRunner : public TuneRunner {
public:
    explicit MpiRunner(int ranks) : ranks_(ranks) {}

    std::vector<tune::Measurement> measure(tune::MeasureSetup& setup,
                                           const std::vector<tune::Candidate>& batch,
                                           std::vector<std::vector<std::vector<uint8_t>>>* wanted) override {
        std::map<int64_t, size_t> slot;
        for (size_t i = 0; i < batch.size(); i++) {
            slot[batch[i].trial] = i;
            send(with_trial(batch[i].trial, tune::plan_to_json(batch[i].plan)),
                 1 + int(i % size_t(ranks_ - 1)), job_tag);
        }
        std::vector<tune::Measurement> results(batch.size());
        std::vector<std::vector<std::vector<uint8_t>>> outputs(batch.size());
        for (size_t received = 0; received < batch.size(); received++) {
            MPI_Status status;
            const std::vector<uint8_t> bytes = receive(MPI_ANY_SOURCE, result_tag, &status);
            int64_t trial = -1;
            if (bytes.size() >= 8) std::memcpy(&trial, bytes.data(), 8);
            auto it = slot.find(trial);
            TESSERA_INTERNAL_CHECK(it != slot.end())
                << "autotune_mpi: a result for an unknown trial " << trial;
            const std::vector<uint8_t> payload(bytes.begin() + 8, bytes.end());
            if (!tune::decode_result(payload, &results[it->second], &outputs[it->second])) {
                results[it->second] =
                    tune::Measurement{tune::Outcome::Crashed, {}, 0, "an unreadable result"};
            }
        }
        check_outputs(setup, results, outputs);
        if (wanted) *wanted = std::move(outputs);
        return results;
    }

private:
    // Workers have no reference: every output comes back and is checked here.
    static void check_outputs(tune::MeasureSetup& setup, std::vector<tune::Measurement>& results,
                              std::vector<std::vector<std::vector<uint8_t>>>& outputs) {
        if (setup.reference.empty()) {
            tune::settle_reference(setup, results, outputs);
            return;
        }
        std::vector<Type> types;
        for (const auto& f : setup.outputs)
            types.insert(types.end(), f->output_types.begin(), f->output_types.end());
        for (size_t i = 0; i < results.size(); i++) {
            std::string why;
            if (results[i].outcome == tune::Outcome::Ok &&
                !tune::outputs_agree(outputs[i], setup.reference, types, &why)) {
                results[i].outcome = tune::Outcome::Wrong;
                results[i].message = why;
            }
        }
    }

    int ranks_;
};

// On the other ranks: measure what rank 0 sends until it says stop; then apply the best plan.
void serve(Pipeline& pipeline, const TuneOptions& options) {
    const tune::TuningSession session(pipeline, options);
    const auto funcs = autoschedule::pipeline_funcs(session.outputs);
    auto local = tune::local_runner(1);
    for (;;) {
        MPI_Status status;
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        const std::vector<uint8_t> bytes = receive(0, status.MPI_TAG, &status);
        const std::string text(bytes.begin() + (status.MPI_TAG == job_tag ? 8 : 0), bytes.end());
        std::string why;
        auto value = json::parse(text, &why);
        auto plan = value ? tune::plan_from_json(*value, funcs, &why) : std::nullopt;
        if (status.MPI_TAG == stop_tag) {
            if (plan) autoschedule::apply_plan(*plan);
            return;
        }
        int64_t trial = 0;
        std::memcpy(&trial, bytes.data(), 8);
        tune::Measurement m{tune::Outcome::CompileError, {}, 0, "the plan could not be read: " + why};
        std::vector<std::vector<std::vector<uint8_t>>> outputs(1);
        if (plan) {
            tune::MeasureSetup setup = session.setup;  // no reference: rank 0 checks the outputs
            m = local->measure(setup, {tune::Candidate{int(trial), *plan}}, &outputs)[0];
        }
        const std::vector<uint8_t> result = tune::encode_result(m, outputs[0]);
        std::vector<uint8_t> message = with_trial(trial, "");
        message.insert(message.end(), result.begin(), result.end());
        send(message, 0, result_tag);
    }
}

}  // namespace

TuneResult autotune_mpi(Pipeline& pipeline, const TuneOptions& options) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    TESSERA_USER_CHECK(initialized) << "autotune_mpi: call MPI_Init first (and run the program with mpirun).";
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks == 1) return autotune(pipeline, options);
    if (rank != 0) {
        serve(pipeline, options);
        return TuneResult{};
    }
    TuneOptions root = options;
    root.runner = std::make_shared<MpiRunner>(ranks);
    TuneResult result;
    std::string best;
    try {
        result = tune::autotune_with_plan(pipeline, root, &best);
    } catch (...) {
        for (int r = 1; r < ranks; r++) send({}, r, stop_tag);
        throw;
    }
    for (int r = 1; r < ranks; r++) send(std::vector<uint8_t>(best.begin(), best.end()), r, stop_tag);
    return result;
}

}  // namespace tessera
