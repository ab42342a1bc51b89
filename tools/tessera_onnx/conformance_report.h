#pragma once
// The report of a `tessera-onnx test` run, by operator: what a conformance run leaves behind.

#include <string>
#include <vector>

namespace tessera_onnx {

enum class Outcome { Passed, Failed, Unsupported };

struct CaseResult {
    std::string folder;  // the suite's folder and the case's, e.g. node/test_abs
    std::string ops;     // the model's operators, sorted, joined by +; "?" when it did not load
    Outcome outcome;
    std::string detail;  // why it failed or is unsupported
};

const char* outcome_word(Outcome o);
// Markdown: the totals, a table by operator set, and every case that did not pass with its reason.
void write_conformance_report(const std::vector<CaseResult>& results, const std::string& path);

}  // namespace tessera_onnx
