// Cancellation, for programs that embed the library (the Python module stops a run on Ctrl-C):
// a CancelScope makes a CancelFlag the calling thread's; long loops call throw_if_cancelled()
// (the parallel loop of exec/parallel.hpp before every task, the SGA trial loop every 1000
// steps), so a requested flag ends the computation with Interrupted (core/errors.hpp) after the
// work already under way. Without a scope (the command line) nothing changes and
// throw_if_cancelled() costs one thread-local read.
#pragma once

#include <atomic>

namespace rhoflow {

/// A request to stop, made from any thread.
class CancelFlag {
public:
    /// Asks every computation running under this flag to stop at its next check.
    void request() noexcept { requested_.store(true, std::memory_order_relaxed); }
    /// True once request() was called.
    bool requested() const noexcept { return requested_.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> requested_{false};
};

/// While alive, `flag` (which must outlive it; nullptr: none) is the calling thread's flag.
class CancelScope {
public:
    /// Installs `flag`, remembering the flag it replaces.
    explicit CancelScope(const CancelFlag* flag) noexcept;
    /// Restores the flag it replaced.
    ~CancelScope();
    CancelScope(const CancelScope&) = delete;
    CancelScope& operator=(const CancelScope&) = delete;

private:
    const CancelFlag* previous_;
};

/// The calling thread's flag, or nullptr.
const CancelFlag* current_cancel_flag() noexcept;

/// Throws Interrupted (core/errors.hpp) if the calling thread's flag was requested.
void throw_if_cancelled();

}  // namespace rhoflow
