// autotune_mpi under `mpirun -np 2`: rank 0 searches and rank 1 measures. Then rank 0 tunes the
// same pipeline alone with the local runner under the same seed: with a random search (whose
// proposals do not depend on measured times) both runs must record the same schedules in the same
// order, and both tuned pipelines must compute the default schedule's bits. Exits nonzero on any
// difference.

#include <mpi.h>

#include <tessera/autotune_mpi.h>
#include <tessera/tessera.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace tessera;

namespace {

struct Sharpen {
    ImageParam input{Float(32), 2, "input"};
    Func blur_x{"blur_x"}, blur_y{"blur_y"}, output{"output"};
    Var x{"x"}, y{"y"};
    Pipeline pipeline;
    Sharpen() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = (clamped(x - 1, y) + 2 * clamped(x, y) + clamped(x + 1, y)) * 0.25f;
        blur_y(x, y) = (blur_x(x, y - 1) + 2 * blur_x(x, y) + blur_x(x, y + 1)) * 0.25f;
        output(x, y) = 2 * clamped(x, y) - blur_y(x, y);
        input.set_estimates({{0, 301}, {0, 157}});
        output.set_estimates({{0, 301}, {0, 157}});
        pipeline = Pipeline(output);
    }
    Buffer<float> run(const Buffer<float>& image) {
        input.set(image);
        Buffer<float> out(image.width(), image.height());
        pipeline.realize(out);
        return out;
    }
};

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

// The schedule of each record, in the file's order.
std::vector<std::string> schedules_in(const std::string& path) {
    std::vector<std::string> schedules;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        const size_t at = line.find("\"schedule\":");
        if (at != std::string::npos) schedules.push_back(without_func_names(line.substr(at)));
    }
    return schedules;
}

bool same_bits(const Buffer<float>& a, const Buffer<float>& b) {
    for (int y = 0; y < a.height(); y++)
        for (int x = 0; x < a.width(); x++)
            if (std::memcmp(&a(x, y), &b(x, y), sizeof(float)) != 0) return false;
    return true;
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
    Buffer<float> image(173, 91);
    std::mt19937 rng(5);
    for (int y = 0; y < image.height(); y++)
        for (int x = 0; x < image.width(); x++)
            image(x, y) = std::uniform_real_distribution<float>(0, 1)(rng);

    Sharpen distributed;
    int status = 0;
    try {
        const TuneResult result = autotune_mpi(distributed.pipeline, options(mpi_records));
        // Every rank ends with the tuned schedule.
        if (!same_bits(distributed.run(image), Sharpen().run(image)))
            status = fail("a rank's tuned pipeline differs");
        if (rank == 0) {
            if (ranks != 2) status = fail("run this test with mpirun -np 2");
            if (result.trials != 6 || result.failed != 0)
                status = fail("the distributed search did not measure 6 schedules");
            Sharpen alone;
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
