#include "conformance_report.h"

#include <array>
#include <fstream>
#include <map>
#include <stdexcept>

namespace tessera_onnx {

const char* outcome_word(Outcome o) {
    switch (o) {
        case Outcome::Passed: return "passed";
        case Outcome::Failed: return "failed";
        case Outcome::Unsupported: return "unsupported";
    }
    return "";
}

void write_conformance_report(const std::vector<CaseResult>& results, const std::string& path) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write the report " + path);
    std::map<std::string, std::array<int, 3>> by_ops;
    std::array<int, 3> totals{0, 0, 0};
    for (const CaseResult& r : results) {
        by_ops[r.ops][int(r.outcome)]++;
        totals[int(r.outcome)]++;
    }
    out << "# ONNX backend test cases run by tessera-onnx\n\n"
        << "Written by `scripts/onnx_conformance.sh` from `tessera-onnx test --report`: the cases of "
           "Debian's\n"
        << "libonnx-testdata, compared with rtol 1e-3 and atol 1e-4 for floats and exactly otherwise.\n\n"
        << "**" << totals[0] << " passed, " << totals[1] << " failed, " << totals[2] << " unsupported** of "
        << results.size() << " cases.\n\n"
        << "## By operator\n\nA case whose model has several nodes is listed under all its operators, joined "
           "by +.\n\n"
        << "| operators | passed | failed | unsupported |\n|---|---:|---:|---:|\n";
    for (const auto& [ops, counts] : by_ops)
        out << "| " << ops << " | " << counts[0] << " | " << counts[1] << " | " << counts[2] << " |\n";
    out << "\n## Cases that did not pass\n\n";
    for (const CaseResult& r : results) {
        if (r.outcome == Outcome::Passed) continue;
        std::string detail = r.detail;
        for (char& c : detail)
            if (c == '|') c = '/';
        out << "- `" << r.folder << "` (" << r.ops << "): " << outcome_word(r.outcome) << ": " << detail
            << "\n";
    }
}

}  // namespace tessera_onnx
