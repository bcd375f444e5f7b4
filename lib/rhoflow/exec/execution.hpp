// Where a computation runs: on this process's threads, or shared by the ranks of an MPI team.
// Every call that can spread its work takes an Execution, so that a caller always says whether
// the call is collective (every rank must make it) or not; the units it is cut into are run by
// the same executor either way (exec/units.hpp), each named by its UnitKind.
#pragma once

#include <cstdint>

namespace rhoflow {

/// Where a computation runs.
enum class Execution {
    local,  ///< on this process's threads alone
    team,   ///< shared by the ranks of the MPI team: collective, every rank makes the same call
};

/// The ranks a computation under `ex` is spread over now: the team's size for Execution::team
/// (1 without mpirun, and inside a unit, where work is never spread again), else 1.
int ranks_for(Execution ex) noexcept;

/// Blocks to cut `n` independent items into for `ranks` ranks: one for a single rank (its
/// threads share the block), else 4 per rank (dynamic balancing), at most n.
std::int64_t blocks_for(std::int64_t n, int ranks) noexcept;

/// What a unit is.
enum class UnitKind : std::uint8_t {
    trials,           ///< a block of an ensemble's trials
    compare_trials,   ///< a block of a comparison's trials, each with its gap tracker
    compare_study,    ///< a block of one step-size-study run's trials
    compare_table,    ///< a block of the nodes of the one-step moment tables
    compare_finish,   ///< a comparison's statistics from its units' outputs
    job,              ///< a whole job (field, ode, phase, check, ...)
    write,            ///< an experiment cell's files and manifest entry (rank 0, never sent)
    enclosures,       ///< a batch of prove's rho cells to enclose
    recompute,        ///< a batch of a certificate's cells for the checker to recompute
    check_points,     ///< a batch of a check map's points to certify
};

/// The kind's name ("trials", "compare_table", ...), for messages and run.json.
const char* unit_kind_name(UnitKind kind) noexcept;


}  // namespace rhoflow
