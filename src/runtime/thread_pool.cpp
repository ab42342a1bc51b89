// The thread pool that runs parallel loops (tessera_do_par_for): one per process, started by the
// first parallel loop, resized when the thread count has changed and no parallel loop runs.
//
// A parallel loop is a Job on its calling thread's stack, queued under the pool's one mutex. Its
// iterations are claimed one at a time from an atomic counter, by the calling thread and by idle
// workers. The calling thread works only on its own job, then waits until the workers that joined
// it have left it. A thread that starts a nested loop can always finish that loop alone, so
// nesting never deadlocks, whatever the number of threads.
//
// Waiting threads spin a little before they sleep: waking a sleeping thread takes tens to hundreds
// of microseconds (more in a virtual machine, whose idle CPU the host must wake too), which a
// parallel loop of a millisecond pays at its start, when its workers wake, and at its end, when
// its caller does. Workers spinning between the loops of a pipeline, or between pipelines run
// back to back, start the next loop at once.

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <iterator>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "runtime_internal.h"
#include "tessera/runtime.h"

namespace {

struct Job {
    tessera_task_t task = nullptr;
    void* user_context = nullptr;
    uint8_t* closure = nullptr;
    int32_t min = 0;
    int64_t extent = 0;
    // Offsets claimed so far. 64 bits: every thread that finds the job exhausted still adds one.
    std::atomic<int64_t> next{0};
    std::atomic<int32_t> result{0};
    // Changed under the pool's mutex: the workers inside work_on(*this). The job's memory may go
    // away only when this is 0 and no worker can find the job any more. Atomic so that the caller
    // can spin on it before it sleeps.
    std::atomic<int> helpers{0};
    std::condition_variable helpers_left;
};

// How long a thread with nothing to do spins before it sleeps.
constexpr auto kSpinTime = std::chrono::microseconds(500);

// Polls done() until it is true or kSpinTime has passed; returns done().
template <typename Done>
bool spin_until(Done done) {
    const auto give_up = std::chrono::steady_clock::now() + kSpinTime;
    while (!done()) {
        for (int i = 0; i < 64; i++) {
            if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        if (std::chrono::steady_clock::now() > give_up) return done();
    }
    return true;
}

// Claims and runs iterations of job until none is left. Once one has failed, the rest are claimed
// but not run.
void work_on(Job& job) {
    for (int64_t i = job.next.fetch_add(1); i < job.extent; i = job.next.fetch_add(1)) {
        if (job.result.load(std::memory_order_relaxed) != 0) continue;
        int32_t code = job.task(job.user_context, int32_t(job.min + i), job.closure);
        if (code != 0) {
            int32_t none = 0;
            job.result.compare_exchange_strong(none, code);
        }
    }
}

class ThreadPool {
public:
    static ThreadPool& get() {
        // Never destroyed: its workers sleep on its members until the process exits.
        static const bool registered = [] {
            pthread_atfork(nullptr, nullptr, forget_workers_in_child);
            return true;
        }();
        (void)registered;
        ThreadPool* pool = current_.load();
        if (!pool) {
            ThreadPool* fresh = new ThreadPool();
            if (!current_.compare_exchange_strong(pool, fresh)) {
                delete fresh;
            } else {
                pool = fresh;
            }
        }
        return *pool;
    }

    // Runs every iteration of job with up to `threads` threads, the caller included, and returns
    // the job's result.
    int32_t run(Job& job, int threads);

private:
    // A process forked from one with a pool has the pool's state but none of its threads (the
    // autotuner measures schedules in forked workers): it starts a pool of its own, leaking the
    // old one, whose threads' objects cannot be destroyed.
    static void forget_workers_in_child() { current_.store(nullptr); }

    static inline std::atomic<ThreadPool*> current_{nullptr};

    void resize_if_idle(std::unique_lock<std::mutex>& lock, size_t workers);
    void grow(size_t workers);
    void shrink(std::unique_lock<std::mutex>& lock, size_t workers);
    void worker_loop(size_t index);
    Job* find_work();

    std::mutex mutex_;  // guards everything below
    std::condition_variable work_available_;
    std::deque<Job*> jobs_;  // jobs that may have unclaimed iterations, oldest first
    // jobs_.size(), changed under the mutex, read by spinning workers without it.
    std::atomic<size_t> queued_jobs_{0};
    int running_jobs_ = 0;  // jobs queued and not yet finished
    std::vector<std::thread> workers_;
    size_t wanted_workers_ = 0;  // a worker whose index is at least this leaves
    bool resizing_ = false;      // a shrink is joining the workers that leave
};

int32_t ThreadPool::run(Job& job, int threads) {
    std::unique_lock<std::mutex> lock(mutex_);
    resize_if_idle(lock, size_t(std::max(threads - 1, 0)));
    if (threads <= 1 || workers_.empty()) {
        lock.unlock();
        work_on(job);
        return job.result.load();
    }
    running_jobs_++;
    jobs_.push_back(&job);
    queued_jobs_ = jobs_.size();
    lock.unlock();
    work_available_.notify_all();
    work_on(job);

    lock.lock();
    // No worker may find the job once this returns; one may already have dropped it.
    auto queued = std::find(jobs_.begin(), jobs_.end(), &job);
    if (queued != jobs_.end()) jobs_.erase(queued);
    queued_jobs_ = jobs_.size();
    if (job.helpers > 0) {
        lock.unlock();
        spin_until([&] { return job.helpers.load() == 0; });
        lock.lock();
    }
    job.helpers_left.wait(lock, [&] { return job.helpers == 0; });
    running_jobs_--;
    return job.result.load();
}

// While no job runs, no worker is inside a task, so the workers that leave do so promptly and
// joining them cannot wait on the caller.
void ThreadPool::resize_if_idle(std::unique_lock<std::mutex>& lock, size_t workers) {
    if (running_jobs_ > 0 || resizing_ || workers == workers_.size()) return;
    if (workers > workers_.size()) {
        grow(workers);
    } else {
        shrink(lock, workers);
    }
}

void ThreadPool::grow(size_t workers) {
    wanted_workers_ = workers;
    try {
        while (workers_.size() < workers)
            workers_.emplace_back([this, index = workers_.size()] { worker_loop(index); });
    } catch (const std::system_error&) {
        // The system has no more threads for us: go on with those we have.
        wanted_workers_ = workers_.size();
    }
}

void ThreadPool::shrink(std::unique_lock<std::mutex>& lock, size_t workers) {
    wanted_workers_ = workers;
    std::vector<std::thread> leaving(std::make_move_iterator(workers_.begin() + workers),
                                     std::make_move_iterator(workers_.end()));
    workers_.resize(workers);
    // Other loops may start while the lock is released; they run on the workers that stay.
    resizing_ = true;
    lock.unlock();
    work_available_.notify_all();
    for (std::thread& t : leaving) t.join();
    lock.lock();
    resizing_ = false;
}

void ThreadPool::worker_loop(size_t index) {
    std::unique_lock<std::mutex> lock(mutex_);
    bool spun = false;  // since the last job or the last wake
    while (index < wanted_workers_) {
        Job* job = find_work();
        if (!job) {
            // Spin first, then look again under the lock (the pool may have shrunk meanwhile);
            // if there is still nothing, sleep: from this look on, any job queued and any
            // shrink notifies the wait.
            if (!spun) {
                lock.unlock();
                spin_until([&] { return queued_jobs_.load() > 0; });
                lock.lock();
                spun = true;
            } else {
                work_available_.wait(lock);
                spun = false;
            }
            continue;
        }
        spun = false;
        job->helpers++;
        lock.unlock();
        work_on(*job);
        lock.lock();
        // Notified under the lock: the owner cannot return, and free the job, before we let go.
        if (--job->helpers == 0) job->helpers_left.notify_one();
    }
}

// The oldest job with iterations left to claim; drops exhausted ones on the way.
Job* ThreadPool::find_work() {
    while (!jobs_.empty()) {
        Job* job = jobs_.front();
        if (job->next.load() < job->extent) return job;
        jobs_.pop_front();
        queued_jobs_ = jobs_.size();
    }
    return nullptr;
}

}  // namespace

extern "C" int32_t tessera_do_par_for(void* user_context, tessera_task_t task, int32_t min, int32_t extent,
                                      uint8_t* closure) {
    if (extent <= 0) return 0;
    if (extent == 1) return task(user_context, min, closure);
    Job job;
    job.task = task;
    job.user_context = user_context;
    job.closure = closure;
    job.min = min;
    job.extent = extent;
    return ThreadPool::get().run(job, tessera::runtime::num_threads_to_use());
}
