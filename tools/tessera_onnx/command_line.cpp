#include "command_line.h"

#include <stdexcept>

namespace tessera_onnx {
namespace {

std::pair<std::string, std::string> split_assignment(const std::string& option, const std::string& text) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw std::invalid_argument(option + " takes NAME=VALUE, not " + text);
    return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<int64_t> parse_shape(const std::string& text) {
    std::vector<int64_t> shape;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t x = text.find('x', start);
        const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
        size_t used = 0;
        int64_t d = -1;
        try {
            d = std::stoll(part, &used);
        } catch (const std::exception&) {
        }
        if (part.empty() || used != part.size() || d < 0)
            throw std::invalid_argument("--shape takes sizes joined by x, as 1x3x640x640, not " + text);
        shape.push_back(d);
        if (x == std::string::npos) break;
        start = x + 1;
    }
    return shape;
}

// "90", "90s", "30m" or "2h": seconds.
double parse_duration(const std::string& text) {
    size_t used = 0;
    double x = -1;
    try {
        x = std::stod(text, &used);
    } catch (const std::exception&) {
    }
    const std::string unit = text.substr(std::min(used, text.size()));
    const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
    if (!(x > 0) || scale < 0)
        throw std::invalid_argument("--time-budget takes a duration such as 90s, 30m or 2h, not " + text);
    return x * scale;
}

}  // namespace

Options parse_options(int argc, char** argv, int first) {
    Options o;
    for (int i = first; i < argc; i++) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--input") {
            auto [name, file] = split_assignment(arg, value());
            o.inputs[name] = file;
        } else if (arg == "--shape") {
            auto [name, shape] = split_assignment(arg, value());
            o.shapes[name] = parse_shape(shape);
        } else if (arg == "--keep") {
            o.keep.push_back(value());
        } else if (arg == "--output-dir") {
            o.output_dir = value();
        } else if (arg == "--time") {
            const std::string n = value();
            try {
                o.time_runs = std::stoi(n);
            } catch (const std::exception&) {
                o.time_runs = -1;
            }
            if (o.time_runs < 0) throw std::invalid_argument("--time takes a number of runs, not " + n);
        } else if (arg == "--rtol" || arg == "--atol") {
            const std::string text = value();
            size_t used = 0;
            double x = -1;
            try {
                x = std::stod(text, &used);
            } catch (const std::exception&) {
            }
            if (used != text.size() || !(x >= 0))
                throw std::invalid_argument(arg + " takes a tolerance, not " + text);
            (arg == "--rtol" ? o.rtol : o.atol) = x;
        } else if (arg == "--records") {
            o.records = value();
        } else if (arg == "--curve") {
            o.curve = value();
        } else if (arg == "--trials") {
            const std::string n = value();
            size_t used = 0;
            int trials = -1;
            try {
                trials = std::stoi(n, &used);
            } catch (const std::exception&) {
            }
            if (used != n.size() || trials < 1)
                throw std::invalid_argument("--trials takes a positive number of trials, not " + n);
            o.trials = trials;
        } else if (arg == "--time-budget") {
            o.time_budget = parse_duration(value());
        } else if (arg == "--report") {
            o.report = value();
        } else if (arg == "--profile") {
            o.profile = true;
        } else if (arg == "--verbose") {
            o.verbose = true;
        } else if (arg.rfind("--", 0) == 0) {
            throw std::invalid_argument("unknown option " + arg);
        } else {
            o.positional.push_back(arg);
        }
    }
    return o;
}

}  // namespace tessera_onnx
