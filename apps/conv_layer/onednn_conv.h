#pragma once
// A convolution by oneDNN, set up as oneDNN would have it: the primitive chooses its own layouts
// (format_tag::any) for the input, the weights and the output, and the tensors are reordered into
// them once, when it is made; run() then executes the primitive alone, which is what is timed.
// Built only when oneDNN was found (TESSERA_BENCHMARK_DNNL).
//
// oneDNN as Debian builds it runs on OpenMP: its thread count is OpenMP's, OMP_NUM_THREADS, read
// once when the process starts.

#include <memory>
#include <string>
#include <vector>

#include "conv_pipelines.h"

namespace tessera_apps {

class OneDnnConv {
public:
    // input NCHW and weights OIHW, batch 1, as conv_reference.h has them.
    OneDnnConv(const ConvShape& shape, const std::vector<float>& input, const std::vector<float>& weights);
    ~OneDnnConv();

    void run();
    // The last run's output, reordered back to NCHW.
    std::vector<float> output_nchw();
    // oneDNN's name for the implementation it chose ("jit:avx2", ...) and the layouts it chose.
    std::string description() const;
    static std::string version();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace tessera_apps
