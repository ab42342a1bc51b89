// The local runner: each candidate in a worker process forked from this one, which has the
// pipeline already, so nothing needs to be sent but the plan (in the fork's memory) and the
// result. Workers compile in parallel, then are measured one at a time, so that no compilation
// runs beside a measurement. A worker that crashes, hangs or runs past its time is killed and its
// candidate marked failed.

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>

#include "tune/tune_runner.h"

namespace tessera::tune {
namespace {

using Clock = std::chrono::steady_clock;

// A worker's first byte: its candidate compiled and it waits to be measured, or compilation failed
// and its result follows.
constexpr uint8_t compiled_tag = 'C', failed_tag = 'F';

bool write_all(int fd, const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= size_t(w);
    }
    return true;
}

// In the worker: compile, say so, wait for the go, measure, send the result, and leave without
// running the parent's exit handlers.
[[noreturn]] void worker_main(const MeasureSetup& setup, const Candidate& c, int result_fd, int go_fd) {
    // A crash ends the worker as it would end a plain process: the parent's handlers (a test
    // framework's, say) must not report it as their own.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
    if (setup.worker_hook) setup.worker_hook(c.trial);
    std::string why;
    auto compiled = CompiledCandidate::compile(setup, c, &why);
    Measurement m;
    std::vector<std::vector<uint8_t>> outputs;
    if (!compiled) {
        write_all(result_fd, &failed_tag, 1);
        m.outcome = Outcome::CompileError;
        m.message = why;
    } else {
        write_all(result_fd, &compiled_tag, 1);
        uint8_t go = 0;
        while (::read(go_fd, &go, 1) < 0 && errno == EINTR) {
        }
        m = compiled->run(setup, setup.reference.empty() ? &outputs : nullptr);
    }
    const std::vector<uint8_t> bytes = encode_result(m, outputs);
    const uint64_t n = bytes.size();
    write_all(result_fd, &n, 8);
    write_all(result_fd, bytes.data(), bytes.size());
    ::_exit(0);
}

struct Worker {
    size_t index = 0;  // in the batch
    pid_t pid = -1;
    int result_fd = -1, go_fd = -1;
    Clock::time_point deadline;
    std::vector<uint8_t> received;
    bool tagged = false;  // its first byte received
    bool compiled = false;
    bool eof = false;
};

// Reads what the worker has sent; false at the end of its output.
bool read_some(Worker& w) {
    uint8_t buffer[1 << 16];
    const ssize_t n = ::read(w.result_fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {
        w.eof = true;
        return false;
    }
    w.received.insert(w.received.end(), buffer, buffer + n);
    if (!w.tagged && !w.received.empty()) {
        w.tagged = true;
        w.compiled = w.received[0] == compiled_tag;
        w.received.erase(w.received.begin());
    }
    return true;
}

// Waits for any of the workers to send something or for the nearest deadline; returns the
// workers that sent something.
std::vector<Worker*> wait_for(std::vector<Worker*>& workers) {
    std::vector<pollfd> fds;
    Clock::time_point nearest = Clock::time_point::max();
    for (Worker* w : workers) {
        fds.push_back(pollfd{w->result_fd, POLLIN, 0});
        nearest = std::min(nearest, w->deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(nearest - Clock::now()).count();
    const int n = ::poll(fds.data(), fds.size(), int(std::clamp<int64_t>(wait + 1, 0, 1000)));
    std::vector<Worker*> ready;
    for (size_t i = 0; n > 0 && i < fds.size(); i++)
        if (fds[i].revents) ready.push_back(workers[i]);
    return ready;
}

// The worker's result once it has finished (or been killed), and its outputs.
Measurement finish(Worker& w, bool timed_out, std::vector<std::vector<uint8_t>>* outputs) {
    if (timed_out) ::kill(w.pid, SIGKILL);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::close(w.result_fd);
    ::close(w.go_fd);
    Measurement m;
    if (timed_out) {
        m.outcome = Outcome::TimedOut;
        m.message = w.compiled ? "the run took longer than its time limit"
                               : "compilation took longer than its time limit";
        return m;
    }
    uint64_t n = 0;
    if (w.received.size() >= 8) std::memcpy(&n, w.received.data(), 8);
    const std::vector<uint8_t> bytes(
        w.received.begin() + std::min<ptrdiff_t>(8, ptrdiff_t(w.received.size())), w.received.end());
    if (w.received.size() < 8 || bytes.size() != n || !decode_result(bytes, &m, outputs)) {
        m = Measurement{};
        m.outcome = Outcome::Crashed;
        m.message = WIFSIGNALED(status)
                        ? "the worker died of signal " + std::to_string(WTERMSIG(status))
                        : "the worker exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return m;
}

class LocalRunner : public TuneRunner {
public:
    explicit LocalRunner(int parallel_compiles) : parallel_(std::max(parallel_compiles, 1)) {}

    std::vector<Measurement> measure(
        MeasureSetup& setup, const std::vector<Candidate>& batch,
        std::vector<std::vector<std::vector<uint8_t>>>* outputs_wanted) override {
        std::vector<Measurement> results(batch.size());
        std::vector<std::vector<std::vector<uint8_t>>> outputs(batch.size());
        std::vector<Worker> workers(batch.size());
        std::deque<size_t> waiting_to_start;
        for (size_t i = 0; i < batch.size(); i++) waiting_to_start.push_back(i);
        std::vector<Worker*> compiling, compiled;
        while (!waiting_to_start.empty() || !compiling.empty()) {
            while (!waiting_to_start.empty() && compiling.size() < size_t(parallel_)) {
                const size_t i = waiting_to_start.front();
                waiting_to_start.pop_front();
                if (start(setup, batch[i], workers[i], i))
                    compiling.push_back(&workers[i]);
                else
                    results[i] = Measurement{Outcome::Crashed, {}, 0, "no worker process could be started"};
            }
            for (Worker* w : wait_for(compiling)) read_some(*w);
            for (auto it = compiling.begin(); it != compiling.end();) {
                Worker& w = **it;
                const bool timed_out = Clock::now() > w.deadline;
                if (w.compiled) {
                    compiled.push_back(&w);
                } else if (w.eof || timed_out) {
                    results[w.index] = finish(w, timed_out, &outputs[w.index]);
                } else {
                    ++it;
                    continue;
                }
                it = compiling.erase(it);
            }
        }
        for (Worker* w : compiled) results[w->index] = run(setup, *w, &outputs[w->index]);
        settle_reference(setup, results, outputs);
        if (outputs_wanted) *outputs_wanted = std::move(outputs);
        return results;
    }

private:
    bool start(const MeasureSetup& setup, const Candidate& c, Worker& w, size_t index) {
        int result_pipe[2], go_pipe[2];
        if (::pipe(result_pipe) != 0) return false;
        if (::pipe(go_pipe) != 0) {
            ::close(result_pipe[0]);
            ::close(result_pipe[1]);
            return false;
        }
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(result_pipe[0]);
            ::close(go_pipe[1]);
            worker_main(setup, c, result_pipe[1], go_pipe[0]);
        }
        ::close(result_pipe[1]);
        ::close(go_pipe[0]);
        if (pid < 0) {
            ::close(result_pipe[0]);
            ::close(go_pipe[1]);
            return false;
        }
        w = Worker{};
        w.index = index;
        w.pid = pid;
        w.result_fd = result_pipe[0];
        w.go_fd = go_pipe[1];
        w.deadline = Clock::now() + std::chrono::milliseconds(int64_t(setup.compile_timeout_seconds * 1000));
        return true;
    }

    static Measurement run(const MeasureSetup& setup, Worker& w, std::vector<std::vector<uint8_t>>* outputs) {
        w.deadline = Clock::now() + std::chrono::milliseconds(int64_t(setup.run_timeout_seconds * 1000));
        const uint8_t go = 1;
        write_all(w.go_fd, &go, 1);
        std::vector<Worker*> one{&w};
        while (!w.eof && Clock::now() <= w.deadline) {
            for (Worker* ready : wait_for(one)) read_some(*ready);
        }
        return finish(w, !w.eof, outputs);
    }

    int parallel_;
};

}  // namespace

std::shared_ptr<TuneRunner> local_runner(int parallel_compiles) {
    // A worker killed while the parent writes to it must not take the parent with it.
    std::signal(SIGPIPE, SIG_IGN);
    return std::make_shared<LocalRunner>(parallel_compiles);
}

}  // namespace tessera::tune
