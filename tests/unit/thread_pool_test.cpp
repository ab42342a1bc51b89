// The runtime's thread pool through its C entry point, tessera_do_par_for: every iteration runs
// exactly once, nesting works with any thread count, errors come back, thread counts change.

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "tessera/runtime.h"

namespace {

// Sets the thread count for one test and puts the default back after it.
class ThreadCount {
public:
    explicit ThreadCount(int n) { tessera_set_num_threads(n); }
    ~ThreadCount() { tessera_set_num_threads(0); }
};

// A task that counts how often each index ran, and adds up the indices.
struct Counts {
    explicit Counts(int n) : runs(n) {}
    std::vector<std::atomic<int>> runs;
    std::atomic<int64_t> sum{0};
    int min = 0;
};

int32_t count_index(void*, int32_t index, uint8_t* closure) {
    auto* counts = reinterpret_cast<Counts*>(closure);
    counts->runs.at(index - counts->min)++;
    counts->sum += index;
    return 0;
}

void check_each_index_ran_once(int threads, int min, int extent) {
    ThreadCount count(threads);
    Counts counts(extent);
    counts.min = min;
    REQUIRE(tessera_do_par_for(nullptr, count_index, min, extent, reinterpret_cast<uint8_t*>(&counts)) == 0);
    int64_t expected_sum = 0;
    for (int i = 0; i < extent; i++) {
        CHECK_MESSAGE(counts.runs[i].load() == 1, "threads " << threads << ", index " << min + i);
        expected_sum += min + i;
    }
    CHECK(counts.sum.load() == expected_sum);
}

// Three levels of loops, each level a parallel loop in every iteration of the one above; the
// innermost counts its cells of a 3-D grid.
constexpr int kOuter = 7, kMiddle = 11, kInner = 13;

struct Grid {
    std::vector<std::atomic<int>> cells = std::vector<std::atomic<int>>(kOuter * kMiddle * kInner);
};

struct Level {
    Grid* grid;
    int offset;  // of the enclosing iterations in the grid
};

int32_t inner_level(void*, int32_t index, uint8_t* closure) {
    auto* level = reinterpret_cast<Level*>(closure);
    level->grid->cells.at(level->offset + index)++;
    return 0;
}

int32_t middle_level(void*, int32_t index, uint8_t* closure) {
    auto* level = reinterpret_cast<Level*>(closure);
    Level inner{level->grid, (level->offset + index) * kInner};
    return tessera_do_par_for(nullptr, inner_level, 0, kInner, reinterpret_cast<uint8_t*>(&inner));
}

int32_t outer_level(void*, int32_t index, uint8_t* closure) {
    auto* grid = reinterpret_cast<Grid*>(closure);
    Level middle{grid, index * kMiddle};
    return tessera_do_par_for(nullptr, middle_level, 0, kMiddle, reinterpret_cast<uint8_t*>(&middle));
}

void check_three_nested_levels(int threads) {
    ThreadCount count(threads);
    Grid grid;
    REQUIRE(tessera_do_par_for(nullptr, outer_level, 0, kOuter, reinterpret_cast<uint8_t*>(&grid)) == 0);
    for (int i = 0; i < kOuter * kMiddle * kInner; i++)
        CHECK_MESSAGE(grid.cells[i].load() == 1, "threads " << threads << ", cell " << i);
}

// Fails with -1 at index `failing`, and counts the iterations it ran.
struct Failure {
    int failing;
    std::atomic<int> ran{0};
};

int32_t fail_at_one_index(void*, int32_t index, uint8_t* closure) {
    auto* failure = reinterpret_cast<Failure*>(closure);
    failure->ran++;
    return index == failure->failing ? -1 : 0;
}

int32_t fail_at_every_odd_index(void*, int32_t index, uint8_t*) { return index % 2 ? -(index % 7) - 1 : 0; }

// Records the threads that ran iterations; each iteration waits a little, so that one thread
// cannot take them all before the others wake up.
struct Threads {
    std::mutex mutex;
    std::set<std::thread::id> ids;
};

int32_t record_thread(void*, int32_t, uint8_t* closure) {
    auto* threads = reinterpret_cast<Threads*>(closure);
    {
        std::lock_guard<std::mutex> lock(threads->mutex);
        threads->ids.insert(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return 0;
}

size_t threads_used(int extent) {
    Threads threads;
    REQUIRE(tessera_do_par_for(nullptr, record_thread, 0, extent, reinterpret_cast<uint8_t*>(&threads)) == 0);
    return threads.ids.size();
}

int32_t add_index(void*, int32_t index, uint8_t* closure) {
    reinterpret_cast<std::atomic<int64_t>*>(closure)->fetch_add(index);
    return 0;
}

}  // namespace

TEST_CASE("every index of a parallel loop runs exactly once with 1 thread") {
    check_each_index_ran_once(1, 0, 1003);
}

TEST_CASE("every index of a parallel loop runs exactly once with 4 threads") {
    check_each_index_ran_once(4, 0, 1003);
    check_each_index_ran_once(4, -517, 1003);
    check_each_index_ran_once(4, 5, 2);
    check_each_index_ran_once(4, 9, 1);
}

TEST_CASE("every index runs exactly once with more threads than iterations") {
    check_each_index_ran_once(16, 3, 5);
}

TEST_CASE("a parallel loop of no iterations calls nothing") {
    ThreadCount count(4);
    CHECK(tessera_do_par_for(nullptr, fail_at_every_odd_index, 0, 0, nullptr) == 0);
    CHECK(tessera_do_par_for(nullptr, fail_at_every_odd_index, 0, -5, nullptr) == 0);
}

TEST_CASE("parallel loops nested three deep run every cell once with 1 thread") {
    check_three_nested_levels(1);
}

TEST_CASE("parallel loops nested three deep run every cell once with 2 threads") {
    check_three_nested_levels(2);
}

TEST_CASE("parallel loops nested three deep run every cell once with 4 threads") {
    check_three_nested_levels(4);
}

TEST_CASE("a task's error code is the loop's result") {
    for (int threads : {1, 4}) {
        ThreadCount count(threads);
        for (int failing : {0, 500, 1002}) {
            Failure failure{failing};
            CHECK_MESSAGE(tessera_do_par_for(nullptr, fail_at_one_index, 0, 1003,
                                             reinterpret_cast<uint8_t*>(&failure)) == -1,
                          "threads " << threads << ", failing at " << failing);
            CHECK(failure.ran.load() >= 1);
            CHECK(failure.ran.load() <= 1003);
        }
    }
}

TEST_CASE("with 1 thread a failure skips the iterations after it") {
    ThreadCount count(1);
    Failure failure{10};
    CHECK(tessera_do_par_for(nullptr, fail_at_one_index, 0, 1003, reinterpret_cast<uint8_t*>(&failure)) ==
          -1);
    CHECK(failure.ran.load() == 11);
}

TEST_CASE("when many tasks fail the loop returns one of their codes") {
    ThreadCount count(4);
    int32_t result = tessera_do_par_for(nullptr, fail_at_every_odd_index, 0, 1003, nullptr);
    CHECK(result < 0);
    CHECK(result >= -7);
}

TEST_CASE("with 1 thread every iteration runs on the calling thread") {
    ThreadCount count(1);
    Threads threads;
    REQUIRE(tessera_do_par_for(nullptr, record_thread, 0, 37, reinterpret_cast<uint8_t*>(&threads)) == 0);
    REQUIRE(threads.ids.size() == 1);
    CHECK(*threads.ids.begin() == std::this_thread::get_id());
}

TEST_CASE("with 4 threads the iterations run on more than one thread") {
    ThreadCount count(4);
    CHECK(threads_used(203) > 1);
    CHECK(threads_used(203) <= 4);
}

TEST_CASE("a changed thread count takes effect at the next loop") {
    tessera_set_num_threads(4);
    CHECK(threads_used(203) > 1);
    tessera_set_num_threads(1);
    CHECK(threads_used(203) == 1);
    tessera_set_num_threads(3);
    size_t used = threads_used(203);
    CHECK(used > 1);
    CHECK(used <= 3);
    tessera_set_num_threads(2);
    CHECK(threads_used(203) <= 2);
    tessera_set_num_threads(6);
    CHECK(threads_used(203) <= 6);
    CHECK(tessera_set_num_threads(0) == 6);
    check_each_index_ran_once(0, 0, 1003);
}

TEST_CASE("ten thousand small parallel loops all give the right sum") {
    ThreadCount count(4);
    bool all_right = true;
    for (int call = 0; call < 10000; call++) {
        std::atomic<int64_t> sum{0};
        int extent = 2 + call % 9;
        int32_t result =
            tessera_do_par_for(nullptr, add_index, call, extent, reinterpret_cast<uint8_t*>(&sum));
        int64_t expected = int64_t(extent) * call + int64_t(extent) * (extent - 1) / 2;
        if (result != 0 || sum.load() != expected) {
            all_right = false;
            FAIL_CHECK("call " << call << ": result " << result << ", sum " << sum.load()
                               << " != " << expected);
            break;
        }
    }
    CHECK(all_right);
}

TEST_CASE("parallel loops started from several threads at once all finish") {
    ThreadCount count(4);
    std::vector<std::thread> callers;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 3; t++) {
        callers.emplace_back([&wrong] {
            for (int call = 0; call < 300; call++) {
                std::atomic<int64_t> sum{0};
                int32_t result =
                    tessera_do_par_for(nullptr, add_index, 0, 101, reinterpret_cast<uint8_t*>(&sum));
                if (result != 0 || sum.load() != 101 * 100 / 2) wrong++;
            }
        });
    }
    for (std::thread& t : callers) t.join();
    CHECK(wrong.load() == 0);
}

TEST_CASE("changing the thread count while loops run on other threads loses no iteration") {
    ThreadCount count(4);
    std::atomic<bool> stop{false};
    std::atomic<int> wrong{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 2; t++) {
        callers.emplace_back([&] {
            for (int call = 0; call < 300; call++) {
                std::atomic<int64_t> sum{0};
                int32_t result =
                    tessera_do_par_for(nullptr, add_index, 0, 57, reinterpret_cast<uint8_t*>(&sum));
                if (result != 0 || sum.load() != 57 * 56 / 2) wrong++;
            }
        });
    }
    std::thread changer([&] {
        for (int i = 0; !stop.load(); i++) {
            tessera_set_num_threads(1 + i % 5);
            std::atomic<int64_t> sum{0};
            if (tessera_do_par_for(nullptr, add_index, 0, 9, reinterpret_cast<uint8_t*>(&sum)) != 0 ||
                sum.load() != 36)
                wrong++;
        }
    });
    for (std::thread& t : callers) t.join();
    stop = true;
    changer.join();
    CHECK(wrong.load() == 0);
}
