#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "commands.h"
#include "compare_tensors.h"
#include "tessera/onnx.h"

namespace tessera_onnx {

int compare_command(const Options& o) {
    using namespace tessera::graph;
    if (o.positional.size() != 2) throw std::invalid_argument("compare takes two tensor files");
    const Tensor a = read_tensor_proto(o.positional[0]), b = read_tensor_proto(o.positional[1]);
    if (a.shape() != b.shape() || a.type() != b.type()) {
        std::printf("%s is %s, %s is %s\n", o.positional[0].c_str(), describe(a).c_str(),
                    o.positional[1].c_str(), describe(b).c_str());
        return 1;
    }
    const std::vector<double> x = a.to_doubles(), y = b.to_doubles();
    double max_error = 0;
    for (size_t i = 0; i < x.size(); i++) max_error = std::max(max_error, std::abs(x[i] - y[i]));
    const Comparison c = compare_tensors(a, b, o.rtol, o.atol);
    std::printf("%s: max absolute difference %.3g over %zu elements; %s (rtol %g, atol %g)\n",
                describe(a).c_str(), max_error, x.size(), c.matches ? "within tolerance" : c.worst.c_str(),
                o.rtol, o.atol);
    return c.matches ? 0 : 1;
}

}  // namespace tessera_onnx
