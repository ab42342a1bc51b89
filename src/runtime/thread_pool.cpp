// The thread pool that runs parallel loops (tessera_do_par_for): one per process, started by the
// first parallel loop, resized when the thread count has changed and no parallel loop runs.
//
// A parallel loop is a Job on its calling thread's stack, queued under the pool's one mutex. Its
// iterations are claimed one at a time from an atomic counter, by the calling thread and by idle
// workers. The calling thread works only on its own job, then sleeps until the workers that joined
// it have left it. A thread that starts a nested loop can always finish that loop alone, so
// nesting never deadlocks, whatever the number of threads.

#include <algorithm>
#include <atomic>
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
    // Under the pool's mutex: the workers inside work_on(*this). The job's memory may go away
    // only when this is 0 and no worker can find the job any more.
    int helpers = 0;
    std::condition_variable helpers_left;
};

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
        static ThreadPool* pool = new ThreadPool();
        return *pool;
    }

    // Runs every iteration of job with up to `threads` threads, the caller included, and returns
    // the job's result.
    int32_t run(Job& job, int threads);

private:
    void resize_if_idle(std::unique_lock<std::mutex>& lock, size_t workers);
    void grow(size_t workers);
    void shrink(std::unique_lock<std::mutex>& lock, size_t workers);
    void worker_loop(size_t index);
    Job* find_work();

    std::mutex mutex_;  // guards everything below
    std::condition_variable work_available_;
    std::deque<Job*> jobs_;  // jobs that may have unclaimed iterations, oldest first
    int running_jobs_ = 0;   // jobs queued and not yet finished
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
    lock.unlock();
    work_available_.notify_all();
    work_on(job);

    lock.lock();
    // No worker may find the job once this returns; one may already have dropped it.
    auto queued = std::find(jobs_.begin(), jobs_.end(), &job);
    if (queued != jobs_.end()) jobs_.erase(queued);
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
    while (index < wanted_workers_) {
        Job* job = find_work();
        if (!job) {
            work_available_.wait(lock);
            continue;
        }
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
