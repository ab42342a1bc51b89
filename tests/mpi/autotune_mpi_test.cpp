// autotune_mpi under `mpirun -np 2`: rank 0 searches and rank 1 measures. Then rank 0 tunes the
// same pipeline alone with the local runner under the same seed: with a random search (whose
// proposals do not depend on measured times) both runs must record the same schedules in the same
// order, and both tuned pipelines must compute the default schedule's bits. Exits nonzero on any
// difference.

#include <mpi.h>

#include <tessera/autotune_mpi.h>
#include <tessera/tessera.h>

#include "../tuning_pipelines.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace tessera;
using namespace tuning_tests;

namespace {

TuneOptions options(const std::string& records) {
    TuneOptions o;
    o.trials = 6;
    o.batch_size = 3;
    o.repetitions = 2;
    o.seed = 11;
    o.search = TuneOptions::Search::Random;
    o.records_file = records;
    o.progress = false;
    o.parallel_compiles = 1;
    o.machine_params = MachineParams(2, 8 << 20, 40);
    return o;
}

// The text without the values of its "name" and "consumer" members: the second build of the
// pipeline numbers its unnamed Funcs (the boundary condition's) differently.
std::string without_func_names(std::string text) {
    for (const std::string key : {"\"name\":\"", "\"consumer\":\""}) {
        for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + key.size())) {
            const size_t end = text.find('"', at + key.size());
            text.erase(at + key.size(), end - (at + key.size()));
        }
    }
    return text;
}

// The schedule of each trial's record, in the file's order. (The fastest few measured again at
// the end depend on measured times, which two runs do not share.)
std::vector<std::string> schedules_in(const std::string& path) {
    std::vector<std::string> schedules;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        if (line.find("\"remeasured\":true") != std::string::npos) continue;
        const size_t at = line.find("\"schedule\":");
        if (at != std::string::npos) schedules.push_back(without_func_names(line.substr(at)));
    }
    return schedules;
}

int fail(const char* what) {
    std::fprintf(stderr, "autotune_mpi_test: %s\n", what);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const std::string dir = argc > 1 ? argv[1] : "/tmp";
    const std::string mpi_records = dir + "/mpi_records.jsonl", local_records = dir + "/local_records.jsonl";
    if (rank == 0) {
        std::remove(mpi_records.c_str());
        std::remove(local_records.c_str());
    }
    const Buffer<float> image = random_image(173, 91, 5);

    Sharpen distributed(301, 157);
    int status = 0;
    try {
        const TuneResult result = autotune_mpi(distributed.pipeline, options(mpi_records));
        // Every rank ends with the tuned schedule.
        if (!same_bits(distributed.run(image), Sharpen(301, 157).run(image)))
            status = fail("a rank's tuned pipeline differs");
        if (rank == 0) {
            if (ranks != 2) status = fail("run this test with mpirun -np 2");
            if (result.trials != 6 || result.failed != 0)
                status = fail("the distributed search did not measure 6 schedules");
            Sharpen alone(301, 157);
            autotune(alone.pipeline, options(local_records));
            const auto a = schedules_in(mpi_records), b = schedules_in(local_records);
            if (a.size() != 6 || a != b) status = fail("the MPI and local runs recorded different schedules");
            std::printf(
                "autotune_mpi_test: %zu records from %d ranks, the same schedules as the local run: %s\n",
                a.size(), ranks, a == b ? "yes" : "no");
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "autotune_mpi_test: rank %d: %s\n", rank, e.what());
        status = 1;
    }
    MPI_Finalize();
    return status;
}
