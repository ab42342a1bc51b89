#pragma once
// How well one ordering agrees with another: for judging a learned cost model by whether it ranks
// a pipeline's candidate schedules as their measured run times do.

#include <vector>

namespace tessera::autoschedule {

// Kendall's tau-b of the pairs (a[i], b[i]): 1 where a and b order every pair alike, -1 where they
// order every pair oppositely, corrected for ties. 0 for fewer than two pairs, or where a or b is
// constant. a and b have the same length.
double kendall_tau(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tessera::autoschedule
