#pragma once
// onnxruntime-node as a benchmark peer: scripts/onnxruntime_server.js in a child process, asked
// for one timed run at a time, so that its runs alternate with Tessera's in one benchmark run.

#include <string>
#include <vector>

namespace ocr {

class OnnxruntimePeer {
public:
    // Starts the server for model with threads intra-op threads on the inputs (NAME=FILE.pb); an
    // empty error() afterwards means it is ready.
    OnnxruntimePeer(const std::string& server_script, const std::string& model, int threads,
                    const std::vector<std::string>& inputs);
    ~OnnxruntimePeer();
    OnnxruntimePeer(const OnnxruntimePeer&) = delete;
    OnnxruntimePeer& operator=(const OnnxruntimePeer&) = delete;

    const std::string& error() const { return error_; }
    // Milliseconds of one run, measured by the server; negative after an error.
    double run();

private:
    std::string read_line();
    int pid_ = -1, to_child_ = -1, from_child_ = -1;
    std::string pending_, error_;
};

}  // namespace ocr
