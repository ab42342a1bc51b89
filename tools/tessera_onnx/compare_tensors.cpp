#include "compare_tensors.h"

#include <cmath>
#include <sstream>

namespace tessera_onnx {
namespace {

std::string index_text(int64_t flat, const std::vector<int64_t>& shape) {
    std::vector<int64_t> index(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        index[d] = shape[d] ? flat % shape[d] : 0;
        flat = shape[d] ? flat / shape[d] : 0;
    }
    std::ostringstream out;
    out << "[";
    for (size_t d = 0; d < index.size(); d++) out << (d ? "," : "") << index[d];
    out << "]";
    return out.str();
}

}  // namespace

Comparison compare_tensors(const tessera::graph::Tensor& actual, const tessera::graph::Tensor& expected,
                           double rtol, double atol) {
    using tessera::graph::describe;
    Comparison c;
    if (actual.type() != expected.type() || actual.shape() != expected.shape()) {
        c.matches = false;
        c.worst = "is " + describe(actual) + ", expected " + describe(expected);
        return c;
    }
    const bool exact = !actual.type().is_float();
    // Integers compared through int64 keep every bit of 64-bit values.
    const std::vector<double> a = actual.to_doubles(), e = expected.to_doubles();
    const std::vector<int64_t> ai = exact ? actual.to_int64s() : std::vector<int64_t>{};
    const std::vector<int64_t> ei = exact ? expected.to_int64s() : std::vector<int64_t>{};
    int64_t differing = 0, worst = -1;
    double worst_excess = 0;
    for (size_t i = 0; i < a.size(); i++) {
        double excess;
        if (exact) {
            excess = ai[i] == ei[i] ? 0 : 1 + std::abs(a[i] - e[i]);
        } else if (std::isnan(a[i]) || std::isnan(e[i])) {
            excess = std::isnan(a[i]) && std::isnan(e[i]) ? 0 : INFINITY;
        } else if (std::isinf(a[i]) || std::isinf(e[i])) {
            excess = a[i] == e[i] ? 0 : INFINITY;
        } else {
            excess = std::abs(a[i] - e[i]) - (atol + rtol * std::abs(e[i]));
        }
        if (excess <= 0) continue;
        differing++;
        if (worst < 0 || excess > worst_excess) {
            worst = int64_t(i);
            worst_excess = excess;
        }
    }
    if (differing == 0) return c;
    c.matches = false;
    std::ostringstream out;
    out.precision(9);
    out << "element " << index_text(worst, actual.shape()) << " is " << a[worst] << ", expected " << e[worst]
        << " (" << differing << " of " << a.size() << " elements differ)";
    c.worst = out.str();
    return c;
}

}  // namespace tessera_onnx
