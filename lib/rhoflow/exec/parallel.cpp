#include "rhoflow/exec/parallel.hpp"

#include "rhoflow/core/errors.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <sched.h>
#include <thread>
#include <vector>

namespace rhoflow {

int resolve_threads(int requested) noexcept {
    if (requested > 0) return requested;
    // The cores this process may run on: all of the machine's, unless a launcher bound it to
    // fewer (mpirun binds each rank to its own core; taskset; a batch system's cgroup).
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 0 ? static_cast<int>(hw) : 1;
}

void parallel_for(std::int64_t n, int threads, const std::function<void(std::int64_t)>& task) {
    if (n <= 0) return;
    const int T = static_cast<int>(std::min<std::int64_t>(resolve_threads(threads), n));
    std::atomic<std::int64_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mutex;
    const CancelFlag* flag = current_cancel_flag();
    auto worker = [&] {
        CancelScope scope(flag);  // the caller's flag, on every worker thread
        for (;;) {
            if (failed.load(std::memory_order_relaxed)) return;
            const std::int64_t i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= n) return;
            try {
                throw_if_cancelled();
                task(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                failed = true;
            }
        }
    };
    if (T == 1) {
        worker();
    } else {
        std::vector<std::thread> pool;
        pool.reserve(static_cast<std::size_t>(T));
        for (int t = 0; t < T; ++t) pool.emplace_back(worker);
        for (auto& th : pool) th.join();
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace rhoflow
