// Execution: a minimal parallel loop: tasks 0..n-1 on a fixed number of threads, dynamically scheduled.
// Results must be written per task index by the caller, which keeps every output independent
// of the thread count and of the order in which tasks finish.
//
// Cancellation (core/cancel.hpp): parallel_for hands the caller's flag on
// to its workers and calls throw_if_cancelled() before every task, and the SGA trial loop calls
// it every 1000 steps, so a requested flag ends the computation with Interrupted after the
// blocks of work already under way. Without a scope (the command line) nothing changes and
// throw_if_cancelled() costs one thread-local read.
#pragma once

#include <cstdint>
#include <functional>

#include "rhoflow/core/cancel.hpp"

namespace rhoflow {

/// Number of threads to use for `requested` (0 = every core this process may run on: its CPU
/// affinity, which mpirun's binding, taskset or a batch system may narrow), at least 1.
int resolve_threads(int requested) noexcept;

/// Runs task(i) for i in [0, n) on `threads` threads (0 = all), each under the caller's
/// CancelFlag and checking it before every task. The first exception thrown by a task (or
/// Interrupted) is rethrown here after all threads have stopped taking tasks.
void parallel_for(std::int64_t n, int threads, const std::function<void(std::int64_t)>& task);

}  // namespace rhoflow
