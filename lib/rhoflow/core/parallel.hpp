// A minimal parallel loop: tasks 0..n-1 on a fixed number of threads, dynamically scheduled.
// Results must be written per task index by the caller, which keeps every output independent
// of the thread count and of the order in which tasks finish.
#pragma once

#include <cstdint>
#include <functional>

namespace rhoflow {

/// Number of threads to use for `requested` (0 = every core this process may run on: its CPU
/// affinity, which mpirun's binding, taskset or a batch system may narrow), at least 1.
int resolve_threads(int requested) noexcept;

/// Runs task(i) for i in [0, n) on `threads` threads (0 = all). The first exception thrown by
/// a task is rethrown here after all threads have stopped taking tasks.
void parallel_for(std::int64_t n, int threads, const std::function<void(std::int64_t)>& task);

}  // namespace rhoflow
