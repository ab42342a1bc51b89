#pragma once
// Tensors for the graph layer's tests: random inputs and bit-for-bit comparison.

#include <cstring>
#include <random>
#include <vector>

#include "tessera/graph.h"

namespace graph_tests {

// float32 values uniform in [lo, hi), the same for a seed on every machine.
inline tessera::graph::Tensor random_tensor(std::vector<int64_t> shape, uint32_t seed, float lo = -2.0f,
                                            float hi = 2.0f) {
    tessera::graph::Tensor t(tessera::Float(32), std::move(shape));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.elements(); i++) p[i] = dist(rng);
    return t;
}

inline bool same_bits(const tessera::graph::Tensor& a, const tessera::graph::Tensor& b) {
    return a.type() == b.type() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

}  // namespace graph_tests
