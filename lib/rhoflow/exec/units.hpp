// Typed units of work and the one executor that runs them, in one process or over the ranks of
// an MPI team (exec/team.hpp).
//
// Every computation that can be spread is a list of units: an ensemble's trial blocks, a
// comparison's trial, study and table blocks and its finish, an experiment's cells, the batches
// of cells of `prove` and of its checker. execute() runs them the same way whatever the team:
// over several ranks, rank 0 hands them out (see exec/team.hpp for the protocol); in a team of
// one (no mpirun, Execution::local, or inside a unit, where work is never spread again) it runs
// them in turn on the calling thread. It is one path: the same units, their inputs and outputs
// through the same CBOR encoding (doubles exactly, NaN included), the same hooks. A unit runs
// its own items on the process's threads (exec/parallel.hpp), so a team of one loses nothing.
//
// A unit is named by a UnitId (an enum for its kind, the computation it belongs to, its index
// there): no caller invents an encoding for it. Its input and output are JSON values, written
// and read with the nlohmann hooks every params and result struct already has.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "rhoflow/exec/execution.hpp"
#include "rhoflow/exec/parallel.hpp"

namespace rhoflow {

/// Which unit: its kind, the computation it belongs to and its index there.
struct UnitId {
    UnitKind kind = UnitKind::trials;  ///< what it is
    std::uint32_t owner = 0;           ///< the computation it belongs to (an experiment's cell; 0 alone)
    std::int64_t index = 0;            ///< its index among the owner's units
};

/// Whether two ids name the same unit.
inline bool operator==(const UnitId& a, const UnitId& b) noexcept {
    return a.kind == b.kind && a.owner == b.owner && a.index == b.index;
}

/// One unit to run.
struct Unit {
    UnitId id;                    ///< which unit
    nlohmann::json input;         ///< what the work function receives, on whichever rank runs it
    double cost = 1;              ///< estimated cost: among units of the same `order`, larger ones first
    int order = 0;                ///< units of a smaller order are handed out first
    std::function<void()> local;  ///< if set, rank 0 runs this instead (never sent; may queue units)
};

/// Rank 0's queue while units run (handed to the hook and to local units to add work).
class UnitQueue {
public:
    virtual ~UnitQueue() = default;
    /// Queues a unit (thread-safe).
    virtual void add(Unit unit) = 0;
};

/// What any rank computes for a unit: its output.
using UnitWork = std::function<nlohmann::json(const UnitId& id, const nlohmann::json& input)>;
/// Rank 0's hook for a finished unit: its output, the rank that computed it and the seconds it
/// took there. Called one at a time; may queue units.
using UnitDone = std::function<void(UnitQueue& queue, const UnitId& id, nlohmann::json output, int rank,
                                    double seconds)>;

/// Thrown on rank 0 when a unit failed: which unit, on which rank, and the error itself (same
/// category, message prefixed by "rank K: " when another rank ran it) for rethrow().
class UnitError : public std::runtime_error {
public:
    /// `error` holds the exception to rethrow.
    UnitError(UnitId id, int rank, std::exception_ptr error, const std::string& message)
        : std::runtime_error(message), id_(id), rank_(rank), error_(std::move(error)) {}
    /// The failed unit.
    const UnitId& id() const noexcept { return id_; }
    /// The rank it failed on.
    int rank() const noexcept { return rank_; }
    /// Throws the error (InvalidArgument, NumericalError or std::runtime_error).
    [[noreturn]] void rethrow() const { std::rethrow_exception(error_); }

private:
    UnitId id_;
    int rank_;
    std::exception_ptr error_;
};

/// Runs `units` and whatever the hook and local units queue, until none is left. Under
/// Execution::team collective: every rank calls it with the same `work`; `units` and `done` are
/// used on rank 0 only. Throws UnitError on rank 0 and TeamAborted on the others if a unit failed
/// (nothing new is handed out after a failure).
void execute(Execution ex, const UnitWork& work, std::vector<Unit> units, const UnitDone& done);

/// Units this process has run since it started (tests use it to see that a computation goes
/// through the executor).
std::int64_t units_run() noexcept;

/// Collective under Execution::team: rank 0 computes `f` and every rank gets its value (f() in
/// a team of one). If `f` throws, rank 0 rethrows it and the other ranks throw TeamAborted.
nlohmann::json root_then_broadcast(Execution ex, const std::function<nlohmann::json()>& f);

/// Computes f(i) for every i in [0, n): the indices cut into blocks_for(n, ranks_for(ex))
/// blocks of consecutive indices, each block one unit of kind `kind` whose indices run on
/// `threads` threads (exec/parallel.hpp); every rank gets every value, in index order.
/// Collective under Execution::team, where every rank must be able to compute f for any index
/// (the same inputs on every rank: SPMD). `Out` needs nlohmann's JSON hooks.
template <class Out, class F>
std::vector<Out> map_indices(Execution ex, UnitKind kind, std::int64_t n, int threads, F&& f) {
    const std::int64_t blocks = blocks_for(n, ranks_for(ex));
    auto start = [&](std::int64_t b) { return n * b / blocks; };  // block b is [start(b), start(b + 1))
    std::vector<Unit> units;
    for (std::int64_t b = 0; n > 0 && b < blocks; ++b) {
        Unit u;
        u.id = {kind, 0, b};
        u.input = {start(b), start(b + 1)};
        u.cost = static_cast<double>(start(b + 1) - start(b));
        units.push_back(std::move(u));
    }
    std::vector<Out> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    auto work = [&](const UnitId&, const nlohmann::json& in) {
        const auto first = in.at(0).get<std::int64_t>(), end = in.at(1).get<std::int64_t>();
        std::vector<Out> got(static_cast<std::size_t>(end - first));
        parallel_for(end - first, threads, [&](std::int64_t k) { got[static_cast<std::size_t>(k)] = f(first + k); });
        return nlohmann::json(got);
    };
    try {
        execute(ex, work, std::move(units), [&](UnitQueue&, const UnitId& id, nlohmann::json o, int, double) {
            const std::int64_t first = start(id.index);
            auto got = o.get<std::vector<Out>>();
            for (std::size_t k = 0; k < got.size(); ++k) out[static_cast<std::size_t>(first) + k] = std::move(got[k]);
        });
    } catch (const UnitError& e) {
        e.rethrow();
    }
    if (ranks_for(ex) == 1) return out;
    return root_then_broadcast(ex, [&] { return nlohmann::json(out); }).template get<std::vector<Out>>();
}

}  // namespace rhoflow
