#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "commands.h"
#include "compare_tensors.h"
#include "compile_time_inputs.h"
#include "conformance_report.h"
#include "tessera/onnx.h"

namespace tessera_onnx {
namespace {

namespace fs = std::filesystem;
using namespace tessera::graph;

// The folders holding model.onnx: dir itself, or those directly inside it, in name order.
std::vector<fs::path> test_cases(const fs::path& dir) {
    if (fs::exists(dir / "model.onnx")) return {dir};
    if (!fs::is_directory(dir))
        throw std::invalid_argument(dir.string() + " is no test case or folder of test cases");
    std::vector<fs::path> cases;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        if (e.is_directory() && fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
    std::sort(cases.begin(), cases.end());
    return cases;
}

// prefix_0.pb, prefix_1.pb, ... in numeric order.
std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
    std::vector<fs::path> files;
    for (int i = 0; fs::exists(dir / (prefix + std::to_string(i) + ".pb")); i++)
        files.push_back(dir / (prefix + std::to_string(i) + ".pb"));
    return files;
}

std::vector<fs::path> data_sets(const fs::path& dir) {
    std::vector<fs::path> sets;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
            sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    return sets;
}

// Runs one data set; returns the first mismatch, or an empty string.
std::string run_data_set(const Graph& g, const fs::path& set) {
    std::map<std::string, Tensor> inputs;
    CompileOptions options;
    const std::vector<fs::path> input_files = numbered_files(set, "input_");
    for (size_t i = 0; i < input_files.size(); i++) {
        std::string name;
        Tensor t = read_tensor_proto(input_files[i].string(), &name);
        const bool named_input =
            std::any_of(g.inputs.begin(), g.inputs.end(), [&](int id) { return g.values[id].name == name; });
        if (!named_input) {
            if (i >= g.inputs.size())
                throw std::runtime_error(input_files[i].string() + " is one input too many");
            name = g.values[g.inputs[i]].name;
        }
        options.input_shapes[name] = t.shape();
        if (is_compile_time_input(t)) options.input_values[name] = t;
        inputs[name] = t;
    }
    CompiledModel model = compile(g, tessera::get_host_target(), options);
    std::map<std::string, Tensor> outputs = model.run(inputs);
    const std::vector<fs::path> output_files = numbered_files(set, "output_");
    if (output_files.size() != g.outputs.size())
        return "the data set has " + std::to_string(output_files.size()) + " outputs, the model " +
               std::to_string(g.outputs.size());
    for (size_t i = 0; i < output_files.size(); i++) {
        const std::string name = g.values[g.outputs[i]].name;
        const Tensor expected = read_tensor_proto(output_files[i].string());
        const Comparison c = compare_tensors(outputs.at(name), expected);
        if (!c.matches) return "output " + name + ": " + c.worst;
    }
    return "";
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// The model's operators, sorted and unique, joined by +.
std::string operators_of(const Graph& g) {
    std::set<std::string> ops;
    for (const Node& n : g.nodes) ops.insert(n.op);
    std::string text;
    for (const std::string& op : ops) text += (text.empty() ? "" : "+") + op;
    return text.empty() ? "(no nodes)" : text;
}

Outcome run_case(const fs::path& dir, std::string& detail, std::string& ops) {
    ops = "?";
    try {
        const Graph g = load_onnx((dir / "model.onnx").string());
        ops = operators_of(g);
        for (const fs::path& set : data_sets(dir)) {
            detail = run_data_set(g, set);
            if (!detail.empty()) {
                detail = set.filename().string() + ": " + detail;
                return Outcome::Failed;
            }
        }
        return Outcome::Passed;
    } catch (const UnsupportedError& e) {
        detail = first_line(e.what());
        return Outcome::Unsupported;
    } catch (const std::exception& e) {
        detail = first_line(e.what());
        return Outcome::Failed;
    }
}

}  // namespace

int test_command(const Options& o) {
    if (o.positional.empty()) throw std::invalid_argument("test takes one or more folders");
    int counts[3] = {0, 0, 0};
    std::vector<CaseResult> results;
    for (const std::string& dir : o.positional) {
        for (const fs::path& c : test_cases(dir)) {
            std::string detail, ops;
            const Outcome outcome = run_case(c, detail, ops);
            counts[int(outcome)]++;
            std::printf("%s: %s%s%s\n", c.filename().c_str(), outcome_word(outcome),
                        detail.empty() ? "" : ": ", detail.c_str());
            std::fflush(stdout);
            const std::string folder = c.parent_path().filename().string() + "/" + c.filename().string();
            results.push_back({folder, ops, outcome, detail});
        }
    }
    if (!o.report.empty()) write_conformance_report(results, o.report);
    std::printf("%d passed, %d failed, %d unsupported\n", counts[0], counts[1], counts[2]);
    return counts[1] == 0 ? 0 : 1;
}

}  // namespace tessera_onnx
