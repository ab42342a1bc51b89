#pragma once
// What the rows of the apps' benchmark programs share: a failure found before timing, reported by
// the row it belongs to, and the rate of a row beside the FMA peak measured in the same process.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

namespace tessera_apps {

// Reports the row's failure (failures maps rows to errors), if it had one; then it must not run.
inline bool skipped_for_failure(benchmark::State& state, const std::string& row,
                                const std::map<std::string, std::string>& failures) {
    auto it = failures.find(row);
    if (it == failures.end()) return false;
    state.SkipWithError(it->second.c_str());
    return true;
}

// GFLOPS, and peak_pct, the rate as a percentage of peak_gflops (when measured).
inline void set_flop_rates(benchmark::State& state, double flops_per_run, double peak_gflops) {
    const double gflop = flops_per_run * double(state.iterations()) / 1e9;
    state.counters["GFLOPS"] = benchmark::Counter(gflop, benchmark::Counter::kIsRate);
    if (peak_gflops > 0)
        state.counters["peak_pct"] =
            benchmark::Counter(100 * gflop / peak_gflops, benchmark::Counter::kIsRate);
}

// Lists the failed rows on stderr after the timed ones; the program's exit status: 1 if any failed.
inline int report_failures(const char* program, const std::map<std::string, std::string>& failures) {
    for (const auto& [row, message] : failures)
        std::fprintf(stderr, "%s: %s FAILED: %s\n", program, row.c_str(), message.c_str());
    return failures.empty() ? 0 : 1;
}

}  // namespace tessera_apps
