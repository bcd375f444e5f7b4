// parallel_for: every index exactly once, the first exception rethrown only after every
// worker has stopped, and no new task handed out after a failure.
#include "rhoflow/exec/parallel.hpp"

#include "rhoflow/core/errors.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <sched.h>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace rhoflow;

TEST_CASE("parallel_for: every index runs exactly once (1, 2, 8 threads, n below and above the thread count)") {
    for (int threads : {1, 2, 8}) {
        for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, std::int64_t{7},
                               std::int64_t{8}, std::int64_t{9}, std::int64_t{1000}}) {
            CAPTURE(threads);
            CAPTURE(n);
            std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
            std::atomic<std::int64_t> calls{0};
            parallel_for(n, threads, [&](std::int64_t i) {
                REQUIRE(i >= 0);
                REQUIRE(i < n);
                hits[static_cast<std::size_t>(i)].fetch_add(1);
                calls.fetch_add(1);
            });
            CHECK(calls.load() == n);
            for (std::int64_t i = 0; i < n; ++i) CHECK(hits[static_cast<std::size_t>(i)].load() == 1);
        }
    }
}

TEST_CASE("parallel_for: with 2 or 8 threads the tasks really run concurrently") {
    // Two tasks wait for each other: each sees the other only if two threads run them. The wait
    // ends when the other arrives; its bound (60 s) only ends a failing run (one thread would wait
    // for a task that cannot start), and no busy machine delays a thread's start that long.
    for (int threads : {2, 8}) {
        CAPTURE(threads);
        std::atomic<int> arrived{0};
        std::atomic<int> met{0};
        parallel_for(2, threads, [&](std::int64_t) {
            arrived.fetch_add(1);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            while (arrived.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
            if (arrived.load() == 2) met.fetch_add(1);
        });
        CHECK(met.load() == 2);
    }
}

TEST_CASE("parallel_for: a task's exception is rethrown after every thread has stopped") {
    for (int threads : {1, 2, 8}) {
        CAPTURE(threads);
        std::atomic<int> running{0};
        std::atomic<std::int64_t> finished{0};
        bool caught = false;
        try {
            parallel_for(64, threads, [&](std::int64_t i) {
                running.fetch_add(1);
                if (i == 5) {
                    running.fetch_sub(1);
                    throw std::runtime_error("task 5 failed");
                }
                // Slow tasks: were the exception rethrown before the workers stop, some would
                // still be running here.
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                finished.fetch_add(1);
                running.fetch_sub(1);
            });
        } catch (const std::runtime_error& e) {
            caught = true;
            CHECK(std::string(e.what()) == "task 5 failed");
            CHECK(running.load() == 0);
        }
        CHECK(caught);
        const std::int64_t at_return = finished.load();
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        CHECK(finished.load() == at_return);  // nothing runs on after the call returned
    }
}

TEST_CASE("parallel_for: the first exception wins, and no task starts after a failure") {
    SUBCASE("one thread: nothing after the failing index") {
        std::vector<std::int64_t> seen;
        CHECK_THROWS_AS(parallel_for(100, 1,
                                     [&](std::int64_t i) {
                                         seen.push_back(i);
                                         if (i == 3) throw std::logic_error("3");
                                     }),
                        std::logic_error);
        CHECK(seen == std::vector<std::int64_t>{0, 1, 2, 3});
    }
    SUBCASE("several threads: the rest of a long loop is abandoned") {
        // 20000 tasks of >= 100 us; after task 10 fails each worker may finish the task it holds,
        // so only a handful more start. A loop that keeps handing out tasks starts all 20000.
        // The bound n/2 leaves room for the failing thread being descheduled before it records
        // the failure (the others would need over 140 ms to start 10000 tasks).
        for (int threads : {2, 8}) {
            CAPTURE(threads);
            std::atomic<std::int64_t> started{0};
            CHECK_THROWS_AS(parallel_for(20000, threads,
                                         [&](std::int64_t i) {
                                             started.fetch_add(1);
                                             if (i == 10) throw std::out_of_range("10");
                                             std::this_thread::sleep_for(std::chrono::microseconds(100));
                                         }),
                            std::out_of_range);
            CHECK(started.load() < 10000);
        }
    }
    SUBCASE("every task throws: exactly one exception comes out, of a task that ran") {
        std::atomic<std::int64_t> started{0};
        try {
            parallel_for(50, 4, [&](std::int64_t i) {
                started.fetch_add(1);
                throw std::runtime_error(std::to_string(i));
            });
            FAIL("no exception");
        } catch (const std::runtime_error& e) {
            const std::int64_t i = std::stoll(e.what());
            CHECK(i >= 0);
            CHECK(i < 50);
        }
        CHECK(started.load() <= 4);  // each of the 4 workers ran at most its first task
    }
}

TEST_CASE("parallel_for: resolve_threads maps 0 to the cores this process may use and keeps positive requests") {
    CHECK(resolve_threads(0) >= 1);
    cpu_set_t set;
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
    CHECK(resolve_threads(0) == CPU_COUNT(&set));
    CHECK(resolve_threads(0) <= static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    CHECK(resolve_threads(3) == 3);
    CHECK(resolve_threads(-2) >= 1);
}

// mpirun binds each rank to its own core: "all cores" must then mean that one, not the machine's.
TEST_CASE("parallel_for: resolve_threads follows a narrowed CPU affinity (as under mpirun's binding)") {
    cpu_set_t old;
    REQUIRE(sched_getaffinity(0, sizeof old, &old) == 0);
    int first = 0;
    while (!CPU_ISSET(first, &old)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);  // this thread only
    const int n = resolve_threads(0);
    sched_setaffinity(0, sizeof old, &old);
    CHECK(n == 1);
}

TEST_CASE("parallel_for: a requested CancelFlag stops the loop with Interrupted on every thread, and only under its scope") {
    SUBCASE("one thread: the task that requests it finishes, no later task starts") {
        CancelFlag flag;
        CancelScope scope(&flag);
        std::vector<std::int64_t> seen;
        CHECK_THROWS_AS(parallel_for(100, 1,
                                     [&](std::int64_t i) {
                                         seen.push_back(i);
                                         if (i == 3) flag.request();
                                     }),
                        Interrupted);
        CHECK(seen == std::vector<std::int64_t>{0, 1, 2, 3});
    }
    SUBCASE("several threads: the workers see the caller's flag") {
        for (int threads : {2, 8}) {
            CAPTURE(threads);
            CancelFlag flag;
            CancelScope scope(&flag);
            std::atomic<std::int64_t> started{0};
            std::atomic<int> saw_flag{0};
            CHECK_THROWS_AS(parallel_for(20000, threads,
                                         [&](std::int64_t i) {
                                             started.fetch_add(1);
                                             if (current_cancel_flag() == &flag) saw_flag.fetch_add(1);
                                             if (i == 10) flag.request();
                                             std::this_thread::sleep_for(std::chrono::microseconds(100));
                                         }),
                            Interrupted);
            CHECK(started.load() < 10000);
            CHECK(saw_flag.load() == started.load());
        }
    }
    SUBCASE("a flag requested outside any scope stops nothing; the scope ends with its block") {
        CancelFlag flag;
        flag.request();
        {
            CancelScope scope(&flag);
            CHECK_THROWS_AS(throw_if_cancelled(), Interrupted);
        }
        CHECK(current_cancel_flag() == nullptr);
        std::atomic<std::int64_t> ran{0};
        parallel_for(50, 2, [&](std::int64_t) { ran.fetch_add(1); });
        CHECK(ran.load() == 50);
    }
}
