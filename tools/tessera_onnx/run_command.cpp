#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "commands.h"
#include "compile_time_inputs.h"
#include "tessera/onnx.h"

namespace tessera_onnx {
namespace {

using namespace tessera::graph;

// A file name for a value's name, which may hold characters (/, :) that paths cannot.
std::string file_name_for(const std::string& value_name) {
    std::string name = value_name;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    return name + ".pb";
}

double median(std::vector<double> xs) {
    std::sort(xs.begin(), xs.end());
    const size_t n = xs.size();
    return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

}  // namespace

int run_command(const Options& o) {
    if (o.positional.size() != 1) throw std::invalid_argument("run takes one model file");
    const Graph g = load_onnx(o.positional[0]);
    std::map<std::string, Tensor> inputs;
    CompileOptions options;
    options.input_shapes = o.shapes;
    options.keep = o.keep;
    options.time_passes = o.verbose;
    options.profile = o.profile;
    options.tuning_records = o.records;
    for (const auto& [name, file] : o.inputs) {
        inputs[name] = read_tensor_proto(file);
        if (!options.input_shapes.count(name)) options.input_shapes[name] = inputs[name].shape();
        if (is_compile_time_input(inputs[name])) options.input_values[name] = inputs[name];
    }
    CompiledModel model = compile(g, tessera::get_host_target(), options);
    std::map<std::string, Tensor> outputs = model.run(inputs);
    std::filesystem::create_directories(o.output_dir);
    for (const auto& [name, t] : outputs) {
        const std::string path = (std::filesystem::path(o.output_dir) / file_name_for(name)).string();
        write_tensor_proto(t, name, path);
        std::printf("%s: %s -> %s\n", name.c_str(), describe(t).c_str(), path.c_str());
    }
    if (o.time_runs > 0) {
        std::vector<double> ms;
        for (int i = 0; i < o.time_runs; i++) {
            const auto start = std::chrono::steady_clock::now();
            model.run(inputs);
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        std::printf("compile time %.3f s; median run time %.3f ms over %d runs\n", model.compile_seconds(),
                    median(ms), o.time_runs);
        if (o.profile) std::printf("%s", model.profile_text().c_str());
    }
    return 0;
}

}  // namespace tessera_onnx
