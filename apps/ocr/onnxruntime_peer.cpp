#include "onnxruntime_peer.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

namespace ocr {

OnnxruntimePeer::OnnxruntimePeer(const std::string& server_script, const std::string& model, int threads,
                                 const std::vector<std::string>& inputs) {
    signal(SIGPIPE, SIG_IGN);  // a server that died is an error of run(), not the end of the benchmark
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) {
        error_ = "cannot make pipes to the onnxruntime server";
        return;
    }
    std::vector<std::string> args{"node", server_script, model, std::to_string(threads)};
    args.insert(args.end(), inputs.begin(), inputs.end());
    pid_ = fork();
    if (pid_ == 0) {
        dup2(down[0], 0);
        dup2(up[1], 1);
        close(down[1]);
        close(up[0]);
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execvp("node", argv.data());
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    to_child_ = down[1];
    from_child_ = up[0];
    const std::string first = read_line();
    if (first != "ready")
        error_ = "the onnxruntime server did not start: " + (first.empty() ? "no answer" : first);
}

OnnxruntimePeer::~OnnxruntimePeer() {
    if (to_child_ >= 0) close(to_child_);  // the server ends at the end of its input
    if (from_child_ >= 0) close(from_child_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
}

std::string OnnxruntimePeer::read_line() {
    char buffer[256];
    for (;;) {
        const size_t newline = pending_.find('\n');
        if (newline != std::string::npos) {
            std::string line = pending_.substr(0, newline);
            pending_.erase(0, newline + 1);
            return line;
        }
        const ssize_t n = read(from_child_, buffer, sizeof(buffer));
        if (n <= 0) return "";
        pending_.append(buffer, size_t(n));
    }
}

double OnnxruntimePeer::run() {
    if (!error_.empty()) return -1;
    const char command[] = "run\n";
    if (write(to_child_, command, sizeof(command) - 1) != ssize_t(sizeof(command) - 1)) {
        error_ = "the onnxruntime server stopped reading";
        return -1;
    }
    const std::string line = read_line();
    char* end = nullptr;
    const double ms = std::strtod(line.c_str(), &end);
    if (line.empty() || *end != '\0') {
        error_ = "the onnxruntime server answered: " + (line.empty() ? "nothing" : line);
        return -1;
    }
    return ms;
}

}  // namespace ocr
