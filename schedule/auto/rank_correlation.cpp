#include "schedule/auto/rank_correlation.h"

#include <cmath>

#include "util/error_stream.h"

namespace tessera::autoschedule {
namespace {

int sign(double d) { return (d > 0) - (d < 0); }

}  // namespace

double kendall_tau(const std::vector<double>& a, const std::vector<double>& b) {
    TESSERA_INTERNAL_CHECK(a.size() == b.size()) << a.size() << " values against " << b.size();
    // Concordant minus discordant pairs, and the pairs that each side does not tie.
    double agreement = 0, untied_a = 0, untied_b = 0;
    for (size_t i = 0; i < a.size(); i++) {
        for (size_t j = i + 1; j < a.size(); j++) {
            const int sa = sign(a[i] - a[j]), sb = sign(b[i] - b[j]);
            agreement += sa * sb;
            untied_a += sa != 0;
            untied_b += sb != 0;
        }
    }
    if (untied_a == 0 || untied_b == 0) return 0;
    return agreement / std::sqrt(untied_a * untied_b);
}

}  // namespace tessera::autoschedule
