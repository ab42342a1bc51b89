#pragma once
// Tuning spread over the ranks of an MPI job: `mpirun -np N program ...`, every rank running the
// same program and building the same pipeline. Rank 0 proposes schedules, trains the cost model and
// writes the records; the other ranks compile and measure the candidates it sends them (each in a
// worker process of its own, as autotune does on one machine). Link Tessera::mpi (tessera_mpi).

#include "tessera/autotune.h"

namespace tessera {

// Called by every rank with the same pipeline and options, between MPI_Init and MPI_Finalize.
// Rank 0 returns the search's result; the others return an empty one when rank 0 is done. Every
// rank ends with the fastest schedule applied to its pipeline. With one rank, this is autotune.
TuneResult autotune_mpi(Pipeline& pipeline, const TuneOptions& options);

}  // namespace tessera
