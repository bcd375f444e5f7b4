// The team of processes a run is spread over: the ranks of an MPI job (`mpirun -n N rhoflow ...`),
// or a team of one when rhoflow is built without MPI or started without mpirun. Compiled with
// or without MPI (RHOFLOW_MPI); only this file's .cpp knows MPI.
//
// Model: every rank runs the same program on the same inputs (SPMD). Where the work is
// independent units (trial blocks, cells, moment-table node blocks), the ranks meet in one
// collective run_pool(): rank 0 keeps a queue of tasks and hands them out one at a time, largest cost
// first, to whichever rank asks (dynamic load balancing); rank 0 computes tasks too, on its
// main thread, while a second thread of rank 0 serves the other ranks. A task is the caller's
// tag (PoolWork says what it is): rank 0 runs its own tasks in place, with typed values; a task
// handed to another rank travels as bytes (the caller encodes it, with nlohmann's CBOR: doubles
// exactly, NaN included), and its output comes back as bytes to rank 0, which alone keeps the
// outputs, placed by their tags: rank 0 ends with exactly the values one process computes.
//
// Rank 0 may also queue root-only tasks (a closure that never travels: finishing a cell,
// writing files), and the result hook may queue further tasks, so a cell's finish starts as soon
// as its last unit is back, while other cells' units keep the other ranks busy.
//
// Failures: a task that throws on rank K is reported to rank 0 with its category
// (InvalidArgument with its field, NumericalError, anything else: FailureKind), rank 0 stops
// handing out work, waits for the tasks in flight and then ends the pool on every rank: rank 0
// throws PoolError (the task's tag, the rank, and the error rethrowable with "rank K: " in front
// of its message, same category: a program reports it as it would for one process), the other
// ranks throw TeamAborted (silent: rank 0 reports). A rank that dies (killed, crashed)
// sends nothing: Open MPI's mpirun then ends the whole job (see docs/cli.md, "MPI").
//
// Waiting ranks poll (MPI_Iprobe with a backoff up to 2 ms) instead of blocking in MPI_Recv,
// which in Open MPI spins at 100% CPU: an idle rank leaves its core to the others (laptops
// with --oversubscribe, rank 0's serial work).
//
// Nesting: work done inside a task is never spread again (team_spread() is false while a pool
// runs on this rank): a cell's trial block that runs an ensemble runs it locally.
//
// The library's computations do not use the pool directly: they are typed units run by
// execute() (exec/units.hpp), which encodes them for the pool; the pool's types are in detail::.
// The program decides what an MPI job is (which launcher started it, what to do when the
// launcher is gone, which exit code a failure maps to): MpiSession takes those decisions.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rhoflow/core/digest.hpp"

namespace rhoflow {

/// MPI for the lifetime of a program's main(): MPI_Init_thread (MPI_THREAD_SERIALIZED: rank 0's
/// serving thread makes MPI calls while its main thread computes) and MPI_Finalize, when the
/// program says an MPI launcher started it (`start`; the command line reads the launchers'
/// environment variables, apps/rhoflow/main.cpp); otherwise, and without MPI (built with
/// RHOFLOW_MPI=OFF), it does nothing: a team of one. The command line creates it after
/// enable_interrupt_cleanup() so that MPI's own threads inherit the blocked signal mask.
class MpiSession {
public:
    /// Initialises MPI if `start`; throws std::runtime_error if the library cannot give the
    /// thread level. `on_orphaned`, if given, is called by a waiting rank whose launcher (its
    /// parent process at start) is gone, so that the program can stop (it should not return).
    MpiSession(int* argc, char*** argv, bool start, std::function<void()> on_orphaned = {});
    /// Finalises MPI (unless abort() ended the job).
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
    /// Ends every rank of the job now (MPI_Abort with `code`; std::exit(code) without MPI).
    [[noreturn]] static void abort(int code);
};

/// This process's rank in the team (0 without MPI).
int team_rank() noexcept;
/// The number of ranks (1 without MPI).
int team_size() noexcept;
/// Whether this process is rank 0, the one that reads inputs, writes files and reports.
inline bool team_root() noexcept { return team_rank() == 0; }
/// Whether work should be spread now: more than one rank and no pool running on this rank.
bool team_spread() noexcept;
/// Whether rhoflow was built with MPI.
bool team_has_mpi() noexcept;

/// The category of a failure, as it travels between ranks.
enum class FailureKind : std::int32_t {
    other = 0,          ///< anything else
    invalid_input = 1,  ///< InvalidArgument (core/errors.hpp)
    numerical = 2,      ///< NumericalError
};

/// Thrown on ranks other than 0 when a collective step failed; rank 0 reports the error.
class TeamAborted : public std::runtime_error {
public:
    /// `kind`: the category of the failure on the rank where it happened.
    TeamAborted(FailureKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    /// The failure's category.
    FailureKind kind() const noexcept { return kind_; }

private:
    FailureKind kind_;
};

/// The category of `e`: InvalidArgument, NumericalError, TeamAborted's kind, else other.
FailureKind failure_kind(const std::exception& e) noexcept;

namespace detail {

/// Thrown on rank 0 when a task failed: which task (its tag), on which rank, and the error
/// itself (same category, message prefixed by "rank K: ") for rethrow().
class PoolError : public std::runtime_error {
public:
    /// `error` holds the exception to rethrow.
    PoolError(std::uint64_t tag, int rank, std::exception_ptr error, const std::string& message)
        : std::runtime_error(message), tag_(tag), rank_(rank), error_(std::move(error)) {}
    /// The failed task's tag.
    std::uint64_t tag() const noexcept { return tag_; }
    /// The rank it failed on.
    int rank() const noexcept { return rank_; }
    /// Throws the error (InvalidArgument, NumericalError or std::runtime_error).
    [[noreturn]] void rethrow() const { std::rethrow_exception(error_); }
    /// The error itself.
    std::exception_ptr error() const noexcept { return error_; }

private:
    std::uint64_t tag_;
    int rank_;
    std::exception_ptr error_;
};


class PoolQueue;

/// One task of a pool (built on rank 0): the caller's tag; what it is lives with the caller.
struct PoolTask {
    std::uint64_t tag = 0;             ///< the caller's identification (given to PoolWork, hooks and errors)
    double cost = 1;                   ///< estimated cost: larger tasks are handed out first
    bool root_only = false;            ///< run `local` on rank 0 instead (never sent)
    std::function<void(PoolQueue&)> local;  ///< root-only tasks: what rank 0 runs (may queue tasks)
    int order = 0;                     ///< tasks of a smaller order are handed out first (then by cost)
};

/// What a pool runs, by tag (the executor, exec/units.hpp, implements it). Tasks run in place on
/// rank 0, their values typed and never encoded; only a task sent to another rank, and what it
/// gives back, cross as bytes: the MPI boundary.
class PoolWork {
public:
    virtual ~PoolWork() = default;
    /// Rank 0: runs task `tag` here; its output stays with the caller until the result hook.
    virtual void run_here(std::uint64_t tag) = 0;
    /// Rank 0 (serving thread): task `tag` as bytes, to send to another rank.
    virtual std::string send(std::uint64_t tag) = 0;
    /// Another rank: runs a task that arrived as bytes; its output as bytes.
    virtual std::string run_arrived(const std::string& task) = 0;
};

/// Rank 0's hook for a finished (non-root-only) task: `sent_back` is the output's bytes when
/// another rank computed it, null when rank 0 did (run_here kept it); the rank and the seconds
/// it took there. Called one at a time, from rank 0's threads; may queue tasks.
using PoolResultHook = std::function<void(PoolQueue& queue, const PoolTask& task, const std::string* sent_back,
                                          int rank, double seconds)>;

/// Rank 0's queue while a pool runs (handed to hooks and root-only tasks to add work).
class PoolQueue {
public:
    virtual ~PoolQueue() = default;
    /// Queues a task (thread-safe).
    virtual void add(PoolTask task) = 0;
};

/// Runs a pool (see above). Collective when `spread` and team_spread(): every rank calls it with
/// the same `work`; `tasks` and `on_result` are used on rank 0 only. Returns when every task,
/// including those queued while it ran, is done; throws PoolError on rank 0 and TeamAborted
/// elsewhere if one failed. Otherwise (a team of one) it runs the tasks in turn on the calling
/// thread, in the same order (errors as PoolError too).
void run_pool(PoolWork& work, std::vector<PoolTask> tasks, const PoolResultHook& on_result, bool spread = true);

}  // namespace detail

/// Collective: rank 0 runs `f` and every rank gets its result. If `f` throws, rank 0 rethrows
/// it and the other ranks throw TeamAborted of the same kind. In a team of one: `f()`.
std::string team_root_then_broadcast(const std::function<std::string()>& f);

/// Collective: the smallest and the largest of `value` over the ranks (value, value in a team
/// of one). For ranks that each checked the same input to agree on the outcome before any
/// collective work, so that a rank that refused it alone cannot leave the others waiting.
std::pair<int, int> team_min_max(int value);

/// Whether a failure that ended a collective step (run_pool, team_root_then_broadcast) was
/// thrown on this rank: every rank then failed alike, and none is left waiting. A failure
/// elsewhere on a rank (not shared) may leave the others waiting: end the job (MpiSession::abort).
bool team_failure_shared() noexcept;

/// Collective: -1 when every rank holds rank 0's `digest`, else the lowest rank whose digest
/// differs (-1 in a team of one). For ranks to check that they were given the same input (the
/// command line, the bytes of an input file) before any work.
int team_first_differing(std::uint64_t digest);

}  // namespace rhoflow
