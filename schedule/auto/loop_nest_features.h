#pragma once
// What the learned cost model sees of a scheduled pipeline: numbers read off its lowered loop nest
// (lowering::lower_loop_nest) at the estimated sizes, summed over its stages, each a count or a
// fraction, counts on a log scale. The model ranks schedules of one pipeline, so what matters is
// what differs between schedules: arithmetic recomputed, bytes moved, how much is vectorized and
// how wide, how the parallel tasks cover the cores, how large the allocations are against the
// caches, how many loop iterations and allocations the nest pays for.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/stmt.h"

namespace tessera::autoschedule {

struct FeatureMachine {
    int cores = 16;
    int vector_lanes = 8;  // for 32-bit values
    double cache_bytes_per_core = 512 * 1024;
};

// The names of the features, in order; their number is the length of every feature vector.
const std::vector<std::string>& loop_nest_feature_names();

// `values`: what the nest's free variables stand for (the buffers' mins, extents and strides at
// the estimated sizes). A loop whose extent cannot be evaluated counts as one iteration.
std::vector<float> loop_nest_features(const ir::Stmt& nest, const std::map<std::string, int64_t>& values,
                                      const FeatureMachine& machine);

}  // namespace tessera::autoschedule
