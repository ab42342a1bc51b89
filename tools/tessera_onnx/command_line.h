#pragma once
// The options of tessera-onnx's commands.

#include <map>
#include <string>
#include <vector>

namespace tessera_onnx {

struct Options {
    std::vector<std::string> positional;                 // the model, or test folders
    std::map<std::string, std::string> inputs;           // --input NAME=FILE.pb
    std::map<std::string, std::vector<int64_t>> shapes;  // --shape NAME=1x3x640x640
    std::vector<std::string> keep;                       // --keep NAME
    std::string output_dir = ".";                        // --output-dir DIR
    int time_runs = 0;                                   // --time N
    double rtol = 1e-3, atol = 1e-4;                     // --rtol, --atol (compare)
    std::string report;                                  // --report FILE (test): results by operator
    std::string records;     // --records FILE: tuning records (tune writes them; run, info apply them)
    int trials = 100;        // --trials N (tune): per distinct group
    double time_budget = 0;  // --time-budget 30m (tune): seconds, 0 for none
    std::string curve;       // --curve FILE.csv (tune): each group's best time against trials
    bool verbose = false;
    bool profile = false;  // --profile (run --time): time per group                                //
                           // --verbose: compile times per pass and group
};

// Parses argv from its first option on; a bad option throws std::invalid_argument with a message.
Options parse_options(int argc, char** argv, int first);

}  // namespace tessera_onnx
