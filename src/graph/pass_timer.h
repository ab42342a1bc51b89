#pragma once
// Times a step of graph compilation and prints it when asked (TESSERA_TIME_GRAPH=1 or
// CompileOptions::time_passes).

#include <chrono>
#include <cstdio>
#include <string>

namespace tessera::graph {

bool graph_timing_requested(bool option);

template <typename Step>
auto timed(bool print, const std::string& name, Step&& step) {
    const auto start = std::chrono::steady_clock::now();
    auto result = step();
    if (print) {
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "tessera graph: %-40s %9.2f ms\n", name.c_str(), ms);
    }
    return result;
}

}  // namespace tessera::graph
