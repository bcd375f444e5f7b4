// Cleanup on interruption: a process-wide registry of temporary files and folders (and child
// processes) to dispose of if the program is interrupted, and the handling of SIGINT, SIGTERM
// and SIGHUP that a program's main() may enable.
//
// The library registers its temporaries (write_file_atomic, StagedDirectory, render_figures)
// but never installs signal handling itself: an embedding program keeps its own. Without
// enable_interrupt_cleanup() the registry is inert bookkeeping, so in-process callers (tests
// calling the CLI's dispatch()) see no difference.
//
// enable_interrupt_cleanup() blocks those signals in the calling thread (threads started later
// inherit the mask) and starts one thread that waits for them with sigwait(). That thread runs
// in an ordinary context (no async-signal-safety limits): on a signal it takes the registry's
// lock and keeps it, so that no commit's renames are split and every later registration
// blocks until the process ends (a writer then never recreates what was removed); it sends
// SIGTERM to registered child processes, removes every registered temporary (again, 20 ms
// later, until a pass finds nothing, for writers that had registered just before), prints on
// stderr
//   "PROGRAM: interrupted (SIGTERM); removed partial output NAME[, NAME...]"
// (NAME the output the temporary stood for; nested temporaries are not listed twice) and ends
// the process with _exit(128 + signal): 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
// A program that returns from main() or calls exit() meanwhile waits for that (an atexit
// handler takes the same lock), so the exit status is 128 + signal whenever a cleanup began.
// A signal that was ignored when the program started (nohup, background jobs of a
// non-interactive shell) stays ignored. Child processes must reset their signal mask
// (render_figures does).
//
// Limits: SIGKILL and power loss run no code; the names of temporaries make them recognisable
// and the next write into the same place removes them (atomic_file.hpp). Code that creates
// files under a temporary folder by other means than write_file_atomic/StagedDirectory (plain
// streams) is not stopped by the registry: a write into a folder being removed fails, or in
// the worst case recreates a folder under its temporary name, never under the final one.
// An uncaught exception in a thread calls std::terminate, which no cleanup survives.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/types.h>

namespace rhoflow {

/// While alive, a temporary file or folder that an interruption removes (see above).
class RemoveOnInterrupt {
public:
    /// Guards nothing.
    RemoveOnInterrupt() noexcept = default;
    /// Registers `temporary` (removed recursively) as standing for the output `name`.
    RemoveOnInterrupt(std::filesystem::path temporary, std::string name);
    /// Unregisters (does not remove anything).
    ~RemoveOnInterrupt();
    /// Moves the registration.
    RemoveOnInterrupt(RemoveOnInterrupt&& other) noexcept;
    /// Moves the registration, releasing the one held.
    RemoveOnInterrupt& operator=(RemoveOnInterrupt&& other) noexcept;
    RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
    RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;
    /// Unregisters now: the temporary no longer exists or has been moved into place.
    void release() noexcept;

private:
    std::uint64_t id_ = 0;
};

/// While alive, a child process that an interruption sends SIGTERM to before removing files.
class TerminateOnInterrupt {
public:
    /// Registers the child process `pid`.
    explicit TerminateOnInterrupt(pid_t pid);
    /// Unregisters it (call after waiting for it).
    ~TerminateOnInterrupt();
    TerminateOnInterrupt(const TerminateOnInterrupt&) = delete;
    TerminateOnInterrupt& operator=(const TerminateOnInterrupt&) = delete;

private:
    std::uint64_t id_ = 0;
};

/// Runs `f` while no interruption cleanup can run (it waits until f returns): for the renames
/// that move a temporary into place, which must not be split by a cleanup. `f` must be short
/// and must not register or unregister anything.
void without_interrupt_cleanup(const std::function<void()>& f);

/// Enables the handling described above, naming the program `program` in the message. Call
/// once from main() before any other thread starts (and never call exit() inside
/// without_interrupt_cleanup); later calls do nothing. Throws std::runtime_error if the
/// signal mask or the thread cannot be set up.
void enable_interrupt_cleanup(const std::string& program = "rhoflow");

/// Says that the program's work is over and reported (its files committed, its message
/// printed): an interruption from now on, with nothing left to remove, ends the process with
/// 128 + signal silently. For a launcher's SIGTERM to a rank that is only shutting down.
void interrupt_work_done() noexcept;

/// True once enable_interrupt_cleanup() has run in this process.
bool interrupt_cleanup_enabled() noexcept;

}  // namespace rhoflow
