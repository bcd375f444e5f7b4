// Where a computation runs: on this process's threads, or shared by the ranks of an MPI team.
// Every call that can spread its work takes an Execution, so that a caller always says whether
// the call is collective (every rank must make it) or not; the units it is cut into are run by
// the same executor either way (exec/units.hpp).
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

}  // namespace rhoflow
